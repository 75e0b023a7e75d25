package io.inferencecache.controlplane.controller.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ConnectorCompositionTest {
  private static final OffsetDateTime NOW =
      OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  /**
   * {@code connector} and {@code remote} are {@code status/reason/observedGeneration} of
   * ConnectorReady and RemoteStorageReady ({@code -}: absent); the backend is at generation 2.
   */
  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      value = {
        "never observed                 | -                             | -                           | none     | true  | Unknown | ConnectorInjectionUnverified",
        "observed for an older spec     | True/ConnectorReady/1         | -                           | none     | true  | Unknown | ConnectorInjectionUnverified",
        "connector unverified           | Unknown/ConnectorInjectionUnverified/2 | -                  | none     | true  | Unknown | ConnectorInjectionUnverified",
        "no engine pods                 | False/NoEnginePods/2          | -                           | none     | true  | False   | NoEnginePods",
        "servers not ready              | False/MPServersNotReady/2     | True/RemoteStorageReady/2   | Managed  | false | False   | MPServersNotReady",
        "host-only, connector ready     | True/ConnectorReady/2         | -                           | none     | false | True    | ConnectorReady",
        "remote ready                   | True/ConnectorReady/2         | True/RemoteStorageReady/2   | Managed  | false | True    | ConnectorReady",
        "fail-closed, Redis rolling out | True/ConnectorReady/2         | Unknown/RemoteStoragePending/2 | Managed | false | Unknown | RemoteStoragePending",
        "fail-closed, Redis down        | True/ConnectorReady/2         | False/RemoteStorageUnavailable/2 | Managed | false | False | RemoteStorageUnavailable",
        "fail-closed, endpoint missing  | True/ConnectorReady/2         | False/ExternalEndpointMissing/2 | External | false | False | ExternalEndpointMissing",
        "fail-open, endpoint missing    | True/ConnectorReady/2         | False/ExternalEndpointMissing/2 | External | true | True  | ConnectorReady",
        "fail-open, Redis down          | True/ConnectorReady/2         | False/RemoteStorageUnavailable/2 | Managed | true | True  | ConnectorReady",
      })
  void readyBase(
      final String why,
      final String connector,
      final String remote,
      final String ownership,
      final boolean failOpen,
      final String status,
      final String reason) {
    final CacheBackend cr = ConnectorReadinessTest.typed(CacheBackend.Topology.POD_LOCAL);
    cr.getSpec().integration = new CacheBackend.Integration();
    cr.getSpec().integration.failOpen = failOpen;
    if (!"none".equals(ownership)) {
      cr.getSpec().remoteStorage = new CacheBackend.RemoteStorage();
      cr.getSpec().remoteStorage.provider = CacheBackend.Provider.REDIS;
      cr.getSpec().remoteStorage.ownership =
          "Managed".equals(ownership)
              ? CacheBackend.Ownership.MANAGED
              : CacheBackend.Ownership.EXTERNAL;
    }
    final CacheBackend.Status st = new CacheBackend.Status();
    put(st, ConnectorReadiness.TYPE, connector);
    put(st, ReadyRules.REMOTE_STORAGE_READY, remote);
    final ReadyRules.Verdict v = ConnectorComposition.readyBase(cr, st);
    assertThat(v.status()).as(why).isEqualTo(status);
    assertThat(v.reason()).as(why).isEqualTo(reason);
    if (failOpen && "ConnectorReady".equals(reason) && remote.startsWith("False")) {
      assertThat(v.message())
          .as(why)
          .contains("remote storage is degraded")
          .contains("does not gate Ready with integration.failOpen=true");
    } else if (!"ConnectorInjectionUnverified".equals(reason)) {
      assertThat(v.message()).as(why).isEqualTo("message of " + reason);
    }
  }

  private static void put(final CacheBackend.Status st, final String type, final String spec) {
    if ("-".equals(spec)) {
      return;
    }
    final String[] p = spec.split("/");
    st.conditions =
        Conditions.set(
            st.conditions, type, p[0], p[1], "message of " + p[1], Long.parseLong(p[2]), NOW);
  }
}
