package io.inferencecache.controlplane.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.gson.JsonObject;
import io.inferencecache.controlplane.controller.bridge.ServerSnapshot;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.k8s.model.CacheIndexResource;
import io.kubernetes.client.openapi.JSON;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class SnapshotProjectionTest {
  static final String URL = "http://server:8081/snapshot";
  static final Instant NOW = Instant.parse("2026-12-01T12:00:00.700Z");

  static ServerSnapshot decode(final String json) throws IOException {
    return ServerSnapshot.decode(json.getBytes(StandardCharsets.UTF_8));
  }

  static final String SNAPSHOT =
      "{\"replicas\":["
          + "{\"replicaId\":\"r2\",\"tenant\":\"team-a\",\"cacheMemoryBytes\":1024,\"hitRate\":0.5,"
          + "\"pressure\":0,\"lastUpdate\":\"2026-12-01T11:59:58.123456Z\",\"prefixCount\":3,"
          + "\"lastEventAt\":\"0001-01-01T00:00:00Z\",\"statsReported\":true,\"future\":1},"
          + "{\"replicaId\":\"r1\",\"tenant\":\"team-a\",\"cacheMemoryBytes\":0,\"hitRate\":0,"
          + "\"pressure\":1,\"lastUpdate\":\"2026-12-01T11:59:00Z\",\"prefixCount\":0,"
          + "\"lastEventAt\":\"2026-12-01T11:58:00Z\"},"
          + "{\"replicaId\":\"r1\",\"tenant\":\"team-b\",\"cacheMemoryBytes\":0,\"hitRate\":0.25,"
          + "\"pressure\":0.125,\"lastUpdate\":\"2026-12-01T11:59:00Z\",\"prefixCount\":0,"
          + "\"lastEventAt\":\"0001-01-01T00:00:00Z\"},"
          + "{\"replicaId\":\"prefix-only\",\"cacheMemoryBytes\":0,\"hitRate\":0,\"pressure\":0,"
          + "\"lastUpdate\":\"0001-01-01T00:00:00Z\",\"prefixCount\":7,"
          + "\"lastEventAt\":\"2026-12-01T11:00:00Z\"}],"
          + "\"tenants\":[{\"tenantId\":\"team-b\",\"indexEntries\":4,\"hitRate\":0,"
          + "\"hitRateReported\":true,\"memoryUsed\":0},"
          + "{\"tenantId\":\"\",\"indexEntries\":6,\"hitRate\":0,\"memoryUsed\":0},"
          + "{\"tenantId\":\"team-a\",\"indexEntries\":10,\"hitRate\":0.75,\"memoryUsed\":0}],"
          + "\"totalPrefixes\":20,\"hotPrefixes\":0}\n";

  @Test
  void zeroTimeDecodesAsAbsentAndNullListsAsEmpty() throws IOException {
    final ServerSnapshot s = decode(SNAPSHOT);
    assertThat(s.replicas().get(0).lastEventAt()).isNull();
    assertThat(s.replicas().get(3).lastUpdate()).isNull();
    final ServerSnapshot empty =
        decode("{\"replicas\":null,\"tenants\":null,\"totalPrefixes\":0,\"hotPrefixes\":0}");
    assertThat(empty.replicas()).isEmpty();
    assertThat(empty.tenants()).isEmpty();
  }

  @Test
  void malformedSnapshotIsAnError() {
    assertThatThrownBy(() -> decode("{\"replicas\":5}")).isInstanceOf(IOException.class);
    assertThatThrownBy(() -> decode("not json")).isInstanceOf(IOException.class);
    assertThatThrownBy(
            () -> decode("{\"replicas\":[{\"replicaId\":\"a\",\"lastUpdate\":\"yesterday\"}]}"))
        .isInstanceOf(IOException.class);
  }

  @Test
  void cacheIndexStatusProjectsRowsTotalsAndWholeSecondTimes() throws IOException {
    final CacheIndexStatus st = CacheIndexStatus.project(decode(SNAPSHOT), URL, NOW);
    assertThat(st.total()).isEqualTo(20);
    assertThat(st.hot()).isZero();
    assertThat(st.observedServer()).isEqualTo(URL);
    assertThat(st.lastUpdated()).isEqualTo("2026-12-01T12:00:00Z");
    // prefix-only replica dropped; duplicate r1 keeps the larger tenant; sorted by id
    assertThat(st.replicas())
        .containsExactly(
            new CacheIndexStatus.ReplicaRow(
                "r1", "team-b", null, "0.25", "0.125", "2026-12-01T11:59:00Z"),
            new CacheIndexStatus.ReplicaRow(
                "r2", "team-a", 1024L, "0.5", "0", "2026-12-01T11:59:58Z"));
    // tenants in snapshot order; hitRate only when reported or non-zero
    assertThat(st.tenants())
        .containsExactly(
            new CacheIndexStatus.TenantRow("team-b", 4L, "0"),
            new CacheIndexStatus.TenantRow("", 6L, null),
            new CacheIndexStatus.TenantRow("team-a", 10L, "0.75"));
  }

  @Test
  void emptySnapshotRendersAZeroSummary() throws IOException {
    final JsonObject json =
        CrText.tree(
                CacheIndexStatus.project(
                        decode(
                            "{\"replicas\":null,\"tenants\":null,\"totalPrefixes\":0,"
                                + "\"hotPrefixes\":0}"),
                        URL,
                        NOW)
                    .toStatus())
            .getAsJsonObject();
    assertThat(json.toString())
        .isEqualTo(
            "{\"prefixes\":{\"summary\":{\"total\":0,\"hot\":0}},\"observedServer\":\""
                + URL
                + "\",\"lastUpdated\":\"2026-12-01T12:00:00Z\"}");
  }

  @Test
  void jsonRoundTripIsEqualAndTimestampsAloneAreNoChange() throws IOException {
    final CacheIndexStatus first = CacheIndexStatus.project(decode(SNAPSHOT), URL, NOW);
    final CacheIndexStatus stored =
        CacheIndexStatus.from(
            JSON.deserialize(
                CrText.tree(first.toStatus()).toString(), CacheIndexResource.Status.class));
    assertThat(stored).isEqualTo(first);
    final CacheIndexStatus later =
        CacheIndexStatus.project(
            decode(SNAPSHOT.replace("11:59:58.123456Z", "11:59:59Z")), URL, NOW.plusSeconds(30));
    assertThat(later).isNotEqualTo(stored);
    assertThat(later.sameIgnoringTimes(stored)).isTrue();
    final CacheIndexStatus changed =
        CacheIndexStatus.project(
            decode(SNAPSHOT.replace("\"totalPrefixes\":20", "\"totalPrefixes\":21")), URL, NOW);
    assertThat(changed.sameIgnoringTimes(stored)).isFalse();
    assertThat(CrText.tree(first.toStatus()).toString()).doesNotContain("0001-01-01");
  }

  @Test
  void hitRateIsAbsentUnlessReportedOrNonZero() throws IOException {
    final CacheIndexStatus st =
        CacheIndexStatus.project(
            decode(
                "{\"tenants\":[{\"tenantId\":\"x\",\"indexEntries\":1,\"hitRate\":0}],"
                    + "\"totalPrefixes\":1}"),
            URL,
            NOW);
    assertThat(st.tenants().get(0).hitRate()).isNull();
    assertThat(CrText.tree(st.toStatus()).toString())
        .contains("\"memoryUsed\":0")
        .doesNotContain("hitRate");
  }
}
