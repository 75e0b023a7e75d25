package io.inferencecache.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferencecache.engine.IndexSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SnapshotJsonTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Test
  void emptyIndexWritesNullArraysAndNewline() {
    assertThat(SnapshotJson.write(new IndexSnapshot(List.of(), List.of(), 0, 0)))
        .isEqualTo("{\"replicas\":null,\"tenants\":null,\"totalPrefixes\":0,\"hotPrefixes\":0}\n");
  }

  @Test
  void fullRowsMatchTheUpstreamWireShapeByteForByte() {
    final IndexSnapshot s =
        new IndexSnapshot(
            List.of(
                new IndexSnapshot.ReplicaRow(
                    "vllm-0",
                    "ns-a",
                    100,
                    0.5f,
                    0.25f,
                    1_700_000_000_000_000_000L,
                    3,
                    1_700_000_500_000_000_000L,
                    true,
                    600,
                    1000)),
            List.of(new IndexSnapshot.TenantRow("team-a", 3, 0.5f, true)),
            3,
            0);
    assertThat(SnapshotJson.write(s))
        .isEqualTo(
            "{\"replicas\":[{\"replicaId\":\"vllm-0\",\"tenant\":\"ns-a\",\"cacheMemoryBytes\":100,"
                + "\"hitRate\":0.5,\"pressure\":0.25,\"lastUpdate\":\"2023-11-14T22:13:20Z\","
                + "\"prefixCount\":3,\"lastEventAt\":\"2023-11-14T22:21:40Z\",\"statsReported\":true,"
                + "\"t2HitTokens\":600,\"t2QueryTokens\":1000}],"
                + "\"tenants\":[{\"tenantId\":\"team-a\",\"indexEntries\":3,\"hitRate\":0.5,"
                + "\"hitRateReported\":true,\"memoryUsed\":0}],\"totalPrefixes\":3,\"hotPrefixes\":0}\n");
  }

  @Test
  void optionalTagsAreOmittedAndZeroTimesWritten() throws Exception {
    final IndexSnapshot s =
        new IndexSnapshot(
            List.of(new IndexSnapshot.ReplicaRow("r", "", 0, 0f, 0f, 0, 0, 0, false, 0, 0)),
            List.of(new IndexSnapshot.TenantRow("", 1, 0f, false)),
            1,
            0);
    final String json = SnapshotJson.write(s);
    assertThat(json)
        .contains(
            "{\"replicaId\":\"r\",\"cacheMemoryBytes\":0,\"hitRate\":0,\"pressure\":0,"
                + "\"lastUpdate\":\"0001-01-01T00:00:00Z\",\"prefixCount\":0,"
                + "\"lastEventAt\":\"0001-01-01T00:00:00Z\"}")
        .contains("{\"tenantId\":\"\",\"indexEntries\":1,\"hitRate\":0,\"memoryUsed\":0}");
    final JsonNode root = MAPPER.readTree(json);
    assertThat(fieldNames(root.get("replicas").get(0)))
        .doesNotContain("tenant", "statsReported", "t2HitTokens", "t2QueryTokens");
    assertThat(fieldNames(root.get("tenants").get(0))).doesNotContain("hitRateReported");
  }

  @Test
  void keySetsAreFrozen() throws Exception {
    final IndexSnapshot s =
        new IndexSnapshot(
            List.of(new IndexSnapshot.ReplicaRow("r", "t", 1, 0.1f, 0.2f, 5, 1, 6, true, 1, 2)),
            List.of(new IndexSnapshot.TenantRow("t", 1, 0.1f, true)),
            1,
            0);
    final JsonNode root = MAPPER.readTree(SnapshotJson.write(s));
    assertThat(fieldNames(root)).containsExactlyElementsOf(SnapshotJson.TOP_LEVEL_KEYS);
    assertThat(fieldNames(root.get("replicas").get(0)))
        .containsExactlyElementsOf(SnapshotJson.REPLICA_KEYS);
    assertThat(fieldNames(root.get("tenants").get(0)))
        .containsExactlyElementsOf(SnapshotJson.TENANT_KEYS);
    assertThat(SnapshotJson.REPLICA_KEYS)
        .containsExactly(
            "replicaId",
            "tenant",
            "cacheMemoryBytes",
            "hitRate",
            "pressure",
            "lastUpdate",
            "prefixCount",
            "lastEventAt",
            "statsReported",
            "t2HitTokens",
            "t2QueryTokens");
    assertThat(SnapshotJson.TENANT_KEYS)
        .containsExactly("tenantId", "indexEntries", "hitRate", "hitRateReported", "memoryUsed");
  }

  @Test
  void presenceBitsAbsentStillDecodeAsFalse() throws Exception {
    // An old body without the presence bits: a reader treats them as false (rolling skew).
    final JsonNode r =
        MAPPER.readTree(
            "{\"replicaId\":\"r\",\"cacheMemoryBytes\":0,\"hitRate\":0.8,\"pressure\":0,"
                + "\"lastUpdate\":\"0001-01-01T00:00:00Z\",\"prefixCount\":0,"
                + "\"lastEventAt\":\"0001-01-01T00:00:00Z\"}");
    assertThat(r.path("statsReported").asBoolean(false)).isFalse();
    final IndexSnapshot s =
        new IndexSnapshot(
            List.of(new IndexSnapshot.ReplicaRow("r", "", 0, 0.8f, 0f, 0, 0, 0, false, 0, 0)),
            List.of(),
            0,
            0);
    assertThat(MAPPER.readTree(SnapshotJson.write(s)).get("replicas").get(0)).isEqualTo(r);
  }

  private static List<String> fieldNames(final JsonNode node) {
    final List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }
}
