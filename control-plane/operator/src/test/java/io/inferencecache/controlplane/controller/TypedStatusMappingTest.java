package io.inferencecache.controlplane.controller;

import static io.inferencecache.controlplane.controller.PolicyBodyTest.tenant;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import io.inferencecache.controlplane.controller.bridge.ServerSnapshot;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.k8s.model.CacheIndexResource;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import io.kubernetes.client.openapi.JSON;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The typed forms of the two projected statuses: what goes on the wire and what reads back. */
class TypedStatusMappingTest {
  private static final Instant NOW = Instant.parse("2026-12-01T12:00:00.750Z");

  @Test
  void tenantStatusIsWrittenWithWholeSecondTimesAndReadsBackEqual() throws IOException {
    final CacheTenant t =
        tenant("ns", "t", "{\"tenantID\":\"a\",\"quota\":{\"maxIndexEntries\":2}}");
    final TenantStatus st =
        TenantStatus.project(
                List.of(t),
                ServerSnapshot.decode(
                    "{\"tenants\":[{\"tenantId\":\"a\",\"indexEntries\":3}],\"totalPrefixes\":0}"
                        .getBytes(StandardCharsets.UTF_8)),
                NOW)
            .get("ns/t");
    final JsonObject wire = CrText.tree(st.toStatus()).getAsJsonObject();
    assertThat(wire.get("observedGeneration").getAsLong()).isEqualTo(1);
    assertThat(wire.get("indexEntries").getAsLong()).isEqualTo(3);
    final JsonObject quota = wire.getAsJsonArray("conditions").get(1).getAsJsonObject();
    assertThat(quota.get("type").getAsString()).isEqualTo("QuotaExceeded");
    assertThat(quota.get("status").getAsString()).isEqualTo("True");
    assertThat(quota.get("reason").getAsString()).isEqualTo("OverEntryBudget");
    assertThat(quota.get("observedGeneration").getAsLong()).isEqualTo(1);
    assertThat(quota.get("lastTransitionTime").getAsString()).isEqualTo("2026-12-01T12:00:00Z");
    final CacheTenant.Status back = JSON.deserialize(wire.toString(), CacheTenant.Status.class);
    assertThat(TenantStatus.from(back)).isEqualTo(st);
  }

  @Test
  void noStoredStatusReadsAsNone() {
    assertThat(TenantStatus.from(null)).isNull();
    assertThat(TenantStatus.from(new CacheTenant.Status())).isNull();
    assertThat(CacheIndexStatus.from(null)).isNull();
    assertThat(CacheIndexStatus.from(new CacheIndexResource.Status())).isNull();
  }

  @Test
  void cacheIndexRowsKeepTheirFieldsAndTimesThroughTheWire() {
    final CacheIndexStatus st =
        new CacheIndexStatus(
            List.of(
                new CacheIndexStatus.ReplicaRow(
                    "r1", "team-a", 1024L, "0.5", "0.25", "2026-12-01T11:59:58Z"),
                new CacheIndexStatus.ReplicaRow("r2", null, null, "0", "0", null)),
            List.of(new CacheIndexStatus.TenantRow("team-a", 4L, "0.75")),
            20,
            3,
            "http://127.0.0.1:8080/snapshot",
            "2026-12-01T12:00:00Z");
    final String wire = CrText.tree(st.toStatus()).toString();
    assertThat(wire)
        .contains("\"lastUpdate\":\"2026-12-01T11:59:58Z\"")
        .contains("\"lastUpdated\":\"2026-12-01T12:00:00Z\"")
        .contains("\"memoryUsed\":0")
        .contains("\"summary\":{\"total\":20,\"hot\":3}");
    final CacheIndexStatus back =
        CacheIndexStatus.from(JSON.deserialize(wire, CacheIndexResource.Status.class));
    assertThat(back).isEqualTo(st);
  }

  @Test
  void copyNeverChangesTheCachedObject() {
    final CacheTenant cached = tenant("ns", "t", "{\"tenantID\":\"a\"}");
    final CacheTenant copy = CrText.copy(cached, CacheTenant.class);
    copy.getSpec().tenantID = "b";
    copy.setStatus(new CacheTenant.Status());
    assertThat(cached.getSpec().tenantID).isEqualTo("a");
    assertThat(cached.getStatus()).isNull();
    assertThat(copy.getMetadata().getCreationTimestamp())
        .isEqualTo(cached.getMetadata().getCreationTimestamp());
  }
}
