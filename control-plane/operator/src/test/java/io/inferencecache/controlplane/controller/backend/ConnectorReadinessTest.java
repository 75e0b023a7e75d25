package io.inferencecache.controlplane.controller.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConnectorReadinessTest {
  private static final OffsetDateTime NOW =
      OffsetDateTime.of(2026, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);

  /** {@code ns/cb} (UID u1, generation 2), typed LMCache with {@code topology}. */
  static CacheBackend typed(final CacheBackend.Topology topology) {
    final CacheBackend cr = EnginePodsFixture.backend();
    cr.getSpec().lmCache = new CacheBackend.LMCacheEngine();
    cr.getSpec().lmCache.topology = topology;
    return cr;
  }

  /**
   * An engine pod stamped for generation 2 of {@code ns/cb}; {@code server} and {@code engine} are
   * the readiness of its lmcache-mp-server and of the pod (null: no status at all).
   */
  static V1Pod engine(final String name, final Boolean server, final Boolean engine) {
    final V1Pod p = EnginePodsFixture.pod(name, "u1", "vllm");
    final Map<String, String> a = new HashMap<>(p.getMetadata().getAnnotations());
    a.put(ConnectorReadiness.INJECTED_GENERATION, "2");
    p.getMetadata().annotations(a);
    p.getSpec().nodeName("node-" + name);
    if (server != null) {
      p.getStatus()
          .addInitContainerStatusesItem(
              new V1ContainerStatus()
                  .name(ConnectorReadiness.SERVER)
                  .image("i")
                  .imageID("")
                  .restartCount(0)
                  .ready(server));
    }
    if (engine != null) {
      p.getStatus()
          .addConditionsItem(new V1PodCondition().type("Ready").status(engine ? "True" : "False"));
    }
    return p;
  }

  private static V1Pod with(final V1Pod p, final UnaryOperator<V1Pod> change) {
    return change.apply(p);
  }

  private static V1Pod stamp(final V1Pod p, final String key, final String value) {
    final Map<String, String> a = new HashMap<>(p.getMetadata().getAnnotations());
    if (value == null) {
      a.remove(key);
    } else {
      a.put(key, value);
    }
    p.getMetadata().annotations(a);
    return p;
  }

  static Stream<Arguments> table() {
    return Stream.of(
        Arguments.of("no pod", List.of(), "False", "NoEnginePods", "no active engine pod"),
        Arguments.of(
            "only finished or deleting pods",
            List.of(
                with(engine("a", true, true), p -> p.status(p.getStatus().phase("Succeeded"))),
                with(engine("b", true, true), p -> p.status(p.getStatus().phase("Failed"))),
                with(
                    engine("c", true, true),
                    p -> p.metadata(p.getMetadata().deletionTimestamp(NOW)))),
            "False",
            "NoEnginePods",
            "no active engine pod"),
        Arguments.of(
            "all covered and Ready",
            List.of(engine("a", true, true), engine("b", true, true)),
            "True",
            "ConnectorReady",
            "2/2 engine pods Ready with a ready lmcache-mp-server"),
        Arguments.of(
            "an unstamped pod wins over a server that is not ready",
            List.of(
                engine("a", false, false),
                stamp(engine("b", true, true), Backends.INJECTED_BY, null)),
            "Unknown",
            "ConnectorInjectionUnverified",
            "1/2 engine pod(s) not injected for generation 2 of this CacheBackend (b)"),
        Arguments.of(
            "a pod injected for an older generation",
            List.of(stamp(engine("a", true, true), ConnectorReadiness.INJECTED_GENERATION, "1")),
            "Unknown",
            "ConnectorInjectionUnverified",
            "1/1 engine pod(s) not injected for generation 2"),
        Arguments.of(
            "a pod of an earlier CR of the same name",
            List.of(stamp(engine("a", true, true), Backends.INJECTED_BY_UID, "u0")),
            "Unknown",
            "ConnectorInjectionUnverified",
            "(a)"),
        Arguments.of(
            "a server not ready yet",
            List.of(engine("a", true, true), engine("b", false, false)),
            "False",
            "MPServersNotReady",
            "1/2 lmcache-mp-server sidecars ready, 1/2 engine pods Ready; server not ready in b"),
        Arguments.of(
            "no status reported yet",
            List.of(engine("a", null, null)),
            "False",
            "MPServersNotReady",
            "0/1 lmcache-mp-server sidecars ready, 0/1 engine pods Ready; server not ready in a"),
        Arguments.of(
            "servers ready, an engine still loading",
            List.of(engine("a", true, false), engine("b", true, true)),
            "False",
            "MPServersNotReady",
            "2/2 lmcache-mp-server sidecars ready, 1/2 engine pods Ready; engine not Ready in a"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void conditionFromTheMatchedPods(
      final String why,
      final List<V1Pod> pods,
      final String status,
      final String reason,
      final String message) {
    final ConnectorReadiness.Result r =
        ConnectorReadiness.evaluate(typed(CacheBackend.Topology.POD_LOCAL), pods);
    assertThat(r.condition().status()).as(why).isEqualTo(status);
    assertThat(r.condition().reason()).as(why).isEqualTo(reason);
    assertThat(r.condition().message()).as(why).contains(message);
  }

  @Test
  void statusConnectorCountsAndSortsThePerPodCoverage() {
    final List<V1Pod> pods = new ArrayList<>();
    pods.add(engine("c", false, false));
    pods.add(stamp(engine("b", true, true), Backends.INJECTED_BY, "ns/other"));
    pods.add(engine("a", true, true));
    pods.add(engine("d", true, false));
    pods.add(with(engine("e", true, true), p -> p.status(p.getStatus().phase("Succeeded"))));
    final CacheBackend.ConnectorStatus c =
        ConnectorReadiness.evaluate(typed(CacheBackend.Topology.POD_LOCAL), pods).connector();
    assertThat(c.mode).isEqualTo(CacheBackend.ConnectorMode.MULTIPROCESS);
    assertThat(c.topology).isEqualTo(CacheBackend.Topology.POD_LOCAL);
    assertThat(
            List.of(
                c.matchedEnginePods,
                c.readyEnginePods,
                c.desiredServers,
                c.readyServers,
                c.coveredEnginePods,
                c.uncoveredEnginePods))
        .containsExactly(4, 2, 4, 3, 2, 2);
    assertThat(c.enginePodCoverage)
        .extracting(
            e -> e.name + " " + e.nodeName + " " + e.ready + " " + e.covered + " " + e.reason)
        .containsExactly(
            "a node-a true true ConnectorReady",
            "b node-b true false ConnectorInjectionUnverified",
            "c node-c false false MPServersNotReady",
            "d node-d false true ConnectorReady");
  }

  @Test
  void nodeLocalIsReportedAsNotSupported() {
    final ConnectorReadiness.Result r =
        ConnectorReadiness.evaluate(
            typed(CacheBackend.Topology.NODE_LOCAL), List.of(engine("a", true, true)));
    assertThat(r.condition().status()).isEqualTo("False");
    assertThat(r.condition().reason()).isEqualTo("NodeLocalNotSupported");
    assertThat(r.condition().message()).contains("use topology PodLocal");
    assertThat(r.connector().desiredServers).isZero();
    assertThat(r.connector().coveredEnginePods).isZero();
    assertThat(r.connector().enginePodCoverage.get(0).reason).isEqualTo("NodeLocalNotSupported");
  }

  @Test
  void applyWritesBothAndAFailedListKeepsThem() {
    final CacheBackend cr = typed(CacheBackend.Topology.POD_LOCAL);
    final CacheBackend.Status st = new CacheBackend.Status();
    ConnectorReadiness.apply(cr, st, List.of(engine("a", true, true)), 2, NOW);
    final V1Condition c = Conditions.get(st.conditions, ConnectorReadiness.TYPE);
    assertThat(c.getStatus()).isEqualTo("True");
    assertThat(c.getObservedGeneration()).isEqualTo(2L);
    assertThat(st.connector.coveredEnginePods).isEqualTo(1);
    ConnectorReadiness.apply(cr, st, null, 2, NOW.plusSeconds(5));
    assertThat(Conditions.get(st.conditions, ConnectorReadiness.TYPE).getStatus())
        .isEqualTo("True");
    assertThat(st.connector.coveredEnginePods).isEqualTo(1);
  }

  @Test
  void appliesOnlyToTypedLMCacheOffload() {
    assertThat(ConnectorReadiness.applies(typed(CacheBackend.Topology.POD_LOCAL))).isTrue();
    assertThat(ConnectorReadiness.applies(EnginePodsFixture.backend())).as("no lmCache").isFalse();
    final CacheBackend eventsOnly = typed(CacheBackend.Topology.POD_LOCAL);
    eventsOnly.getSpec().integration = new CacheBackend.Integration();
    eventsOnly.getSpec().integration.mode = CacheBackend.IntegrationMode.EVENTS_ONLY;
    assertThat(ConnectorReadiness.applies(eventsOnly)).isFalse();
    final CacheBackend hiCache = typed(CacheBackend.Topology.POD_LOCAL);
    hiCache.getSpec().type = CacheBackend.CacheType.SGLANG_HICACHE;
    assertThat(ConnectorReadiness.applies(hiCache)).isFalse();
  }
}
