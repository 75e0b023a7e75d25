package io.inferencecache.controlplane.controller;

import static io.inferencecache.controlplane.controller.PolicyBodyTest.tenant;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.controller.bridge.ServerSnapshot;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.k8s.model.CacheTenant;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TenantStatusTest {
  static final Instant T0 = Instant.parse("2026-12-01T12:00:00.400Z");

  static ServerSnapshot snapshot(final String tenants) throws IOException {
    return ServerSnapshot.decode(
        ("{\"tenants\":[" + tenants + "],\"totalPrefixes\":0}").getBytes(StandardCharsets.UTF_8));
  }

  /** {@code cr} with {@code st} stored, as the informer reads it back from the API server. */
  static CacheTenant withStatus(final CacheTenant cr, final TenantStatus st) {
    final CacheTenant copy = CrText.copy(cr, CacheTenant.class);
    copy.setStatus(st.toStatus());
    return io.kubernetes.client.openapi.JSON.deserialize(
        CrText.tree(copy).toString(), CacheTenant.class);
  }

  @Test
  void ownerIsObservedAndWithinBudget() throws IOException {
    final CacheTenant t =
        tenant("team-a", "t", "{\"tenantID\":\"a\",\"quota\":{\"maxIndexEntries\":10}}");
    final TenantStatus st =
        TenantStatus.project(List.of(t), snapshot("{\"tenantId\":\"a\",\"indexEntries\":4}"), T0)
            .get("team-a/t");
    assertThat(st.indexEntries()).isEqualTo(4);
    assertThat(st.observedGeneration()).isEqualTo(1);
    assertThat(st.condition("Ready").reason()).isEqualTo("Observed");
    assertThat(st.condition("Ready").message())
        .isEqualTo("projected from the latest server snapshot read");
    assertThat(st.condition("QuotaExceeded").status()).isEqualTo("False");
    assertThat(st.condition("QuotaExceeded").reason()).isEqualTo("WithinBudget");
    assertThat(st.condition("Ready").lastTransitionTime()).isEqualTo("2026-12-01T12:00:00Z");
  }

  @Test
  void quotaFlapsBetweenOverAndWithinBudgetAndKeepsTransitionTimes() throws IOException {
    final CacheTenant t =
        tenant("ns", "t", "{\"tenantID\":\"a\",\"quota\":{\"maxIndexEntries\":10}}");
    final TenantStatus over =
        TenantStatus.project(List.of(t), snapshot("{\"tenantId\":\"a\",\"indexEntries\":11}"), T0)
            .get("ns/t");
    assertThat(over.condition("QuotaExceeded").status()).isEqualTo("True");
    assertThat(over.condition("QuotaExceeded").reason()).isEqualTo("OverEntryBudget");
    final Instant t1 = T0.plusSeconds(60);
    final TenantStatus back =
        TenantStatus.project(
                List.of(withStatus(t, over)),
                snapshot("{\"tenantId\":\"a\",\"indexEntries\":9}"),
                t1)
            .get("ns/t");
    assertThat(back.condition("QuotaExceeded").reason()).isEqualTo("WithinBudget");
    assertThat(back.condition("QuotaExceeded").lastTransitionTime())
        .isEqualTo("2026-12-01T12:01:00Z");
    assertThat(back.condition("Ready").lastTransitionTime()).isEqualTo("2026-12-01T12:00:00Z");
  }

  @Test
  void identicalPollIsNoChange() throws IOException {
    final CacheTenant t = tenant("ns", "t", "{\"tenantID\":\"a\"}");
    final ServerSnapshot s = snapshot("{\"tenantId\":\"a\",\"indexEntries\":3}");
    final TenantStatus first = TenantStatus.project(List.of(t), s, T0).get("ns/t");
    final CacheTenant stored = withStatus(t, first);
    final TenantStatus again =
        TenantStatus.project(List.of(stored), s, T0.plusSeconds(30)).get("ns/t");
    assertThat(again.sameIgnoringTimes(TenantStatus.from(stored.getStatus()))).isTrue();
    assertThat(again).isEqualTo(TenantStatus.from(stored.getStatus()));
    assertThat(again.condition("QuotaExceeded").reason()).isEqualTo("NoQuota");
  }

  @Test
  void tenantAbsentFromTheSnapshotIsObservedAsZero() throws IOException {
    final CacheTenant t = tenant("ns", "t", "{\"tenantID\":\"missing\"}");
    final TenantStatus st = TenantStatus.project(List.of(t), snapshot(""), T0).get("ns/t");
    assertThat(st.indexEntries()).isZero();
    assertThat(CrText.tree(st.toStatus()).toString()).contains("\"indexEntries\":0");
  }

  @Test
  void shadowedDuplicateIsNotEffective() throws IOException {
    final CacheTenant owner =
        tenant("a-ns", "t", "{\"tenantID\":\"dup\",\"quota\":{\"maxIndexEntries\":5}}");
    final CacheTenant later =
        tenant("b-ns", "t", "{\"tenantID\":\"dup\",\"quota\":{\"maxIndexEntries\":50}}");
    final CacheTenant noQuota = tenant("0-ns", "t", "{\"tenantID\":\"dup\"}");
    final Map<String, TenantStatus> st =
        TenantStatus.project(
            List.of(later, owner, noQuota),
            snapshot("{\"tenantId\":\"dup\",\"indexEntries\":7}"),
            T0);
    assertThat(st.get("a-ns/t").condition("QuotaExceeded").reason()).isEqualTo("OverEntryBudget");
    for (final String shadowed : new String[] {"b-ns/t", "0-ns/t"}) {
      assertThat(st.get(shadowed).condition("Ready").status()).isEqualTo("False");
      assertThat(st.get(shadowed).condition("Ready").reason()).isEqualTo("DuplicateTenantID");
      assertThat(st.get(shadowed).condition("QuotaExceeded").reason()).isEqualTo("NotEffective");
      assertThat(st.get(shadowed).condition("Ready").message()).contains("a-ns/t");
    }
  }
}
