package io.inferencecache.controlplane.controller.backend;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.inferencecache.controlplane.k8s.model.PodStamps;
import io.kubernetes.client.custom.Quantity;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentSpec;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1ResourceRequirements;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The pure rules of the CacheBackend reconciler. */
class BackendRulesTest {
  private static final OffsetDateTime T0 =
      OffsetDateTime.of(2026, 12, 1, 12, 0, 0, 0, ZoneOffset.UTC);

  private static CacheBackend backend(final String timeout) {
    final CacheBackend cr = new CacheBackend();
    cr.setMetadata(new V1ObjectMeta().namespace("ns").name("cb").generation(3L).uid("u"));
    cr.setSpec(new CacheBackend.Spec());
    cr.getSpec().observation = new CacheBackend.Observation();
    cr.getSpec().observation.firstEventTimeout = timeout;
    return cr;
  }

  private static CacheBackend.Status readyStatus(final OffsetDateTime anchor) {
    final CacheBackend.Status st = new CacheBackend.Status();
    st.firstAvailableAt = anchor;
    st.conditions =
        Conditions.set(null, ReadyRules.READY, Conditions.TRUE, "EventsOnlyActive", "m", 3, T0);
    return st;
  }

  @Test
  void theGateWaitsThenTimesOutAndStaysNoEventsUntilAnEventArrives() {
    final CacheBackend cr = backend("1m0s");
    CacheBackend.Status st = readyStatus(T0);
    assertThat(ReadyRules.kvEventGate(cr, st, null, false, T0.plusSeconds(20)))
        .isEqualTo(Duration.ofSeconds(40));
    assertThat(Conditions.reason(st.conditions, ReadyRules.READY)).isEqualTo(ReadyRules.AWAITING);
    st = readyStatus(T0);
    assertThat(ReadyRules.kvEventGate(cr, st, ReadyRules.AWAITING, false, T0.plusSeconds(60)))
        .isNull();
    assertThat(Conditions.reason(st.conditions, ReadyRules.READY)).isEqualTo(ReadyRules.NO_EVENTS);
    assertThat(Conditions.is(st.conditions, ReadyRules.DEGRADED, Conditions.TRUE)).isTrue();
    st = readyStatus(T0.plusSeconds(100));
    ReadyRules.kvEventGate(cr, st, ReadyRules.NO_EVENTS, false, T0.plusSeconds(101));
    assertThat(Conditions.reason(st.conditions, ReadyRules.READY))
        .as("sticky without a fresh window")
        .isEqualTo(ReadyRules.NO_EVENTS);
    st = readyStatus(T0);
    st.indexParticipation = new CacheBackend.IndexParticipation();
    st.indexParticipation.lastEventAt = T0.plusSeconds(5);
    ReadyRules.kvEventGate(cr, st, ReadyRules.NO_EVENTS, false, T0.plusSeconds(200));
    assertThat(Conditions.reason(st.conditions, ReadyRules.READY)).isEqualTo(ReadyRules.OBSERVED);
    assertThat(st.firstKVEventObservedAt).isEqualTo(T0.plusSeconds(5));
  }

  @Test
  void theGateIsOffByAnnotationAndWithoutABaseReady() {
    final CacheBackend cr = backend(null);
    cr.getMetadata().setAnnotations(Map.of(Backends.REQUIRE_KV_EVENTS, "false"));
    final CacheBackend.Status st = readyStatus(T0);
    assertThat(ReadyRules.kvEventGate(cr, st, null, false, T0)).isNull();
    assertThat(Conditions.reason(st.conditions, ReadyRules.READY)).isEqualTo("EventsOnlyActive");
    assertThat(Backends.firstEventTimeout(backend("nonsense"))).isEqualTo(Duration.ofMinutes(5));
    assertThat(Backends.firstEventTimeout(backend("-1s"))).isEqualTo(Duration.ofMinutes(5));
  }

  private static V1Deployment deployment(
      final int replicas,
      final long gen,
      final long observed,
      final int updated,
      final int available) {
    return new V1Deployment()
        .metadata(new V1ObjectMeta().name("d").generation(gen))
        .spec(new V1DeploymentSpec().replicas(replicas))
        .status(
            new V1DeploymentStatus()
                .observedGeneration(observed)
                .updatedReplicas(updated)
                .availableReplicas(available));
  }

  @Test
  void readyFollowsTheDeployment() {
    assertThat(ReadyRules.deploymentReady(deployment(1, 2, 2, 1, 1)).reason())
        .isEqualTo("BackendReady");
    assertThat(ReadyRules.deploymentReady(deployment(0, 2, 2, 0, 0)).reason())
        .isEqualTo("ScaledToZero");
    assertThat(ReadyRules.deploymentReady(deployment(1, 3, 2, 1, 1)).reason())
        .isEqualTo(ReadyRules.ROLLOUT);
    assertThat(ReadyRules.deploymentReady(deployment(1, 2, 2, 1, 0)).reason())
        .isEqualTo(ReadyRules.REPLICAS_UNAVAILABLE);
    assertThat(ReadyRules.deploymentReady(null).reason()).isEqualTo(ReadyRules.ROLLOUT);
  }

  @Test
  void progressingAndT2FollowTheirInputs() {
    final CacheBackend.Status st = readyStatus(T0);
    ReadyRules.progressing(st, 3, T0);
    assertThat(Conditions.reason(st.conditions, ReadyRules.PROGRESSING)).isEqualTo("Synced");
    st.indexParticipation = new CacheBackend.IndexParticipation();
    st.indexParticipation.t2HitRate = "0";
    ReadyRules.t2Degraded(st, 3, T0);
    assertThat(Conditions.reason(st.conditions, ReadyRules.T2_DEGRADED)).isEqualTo("T2ZeroHitRate");
    st.indexParticipation.t2HitRate = "0.5";
    ReadyRules.t2Degraded(st, 3, T0);
    assertThat(Conditions.reason(st.conditions, ReadyRules.T2_DEGRADED)).isEqualTo("T2Serving");
    st.indexParticipation.t2HitRate = null;
    ReadyRules.t2Degraded(st, 3, T0);
    assertThat(Conditions.get(st.conditions, ReadyRules.T2_DEGRADED)).isNull();
  }

  @Test
  void transitionTimesMoveOnlyWithTheStatus() {
    final var old = Conditions.set(null, ReadyRules.READY, Conditions.FALSE, "A", "m", 1, T0);
    final var now =
        Conditions.set(null, ReadyRules.READY, Conditions.FALSE, "B", "m", 1, T0.plusSeconds(9));
    Conditions.keepTransitionTimes(old, now);
    assertThat(now.get(0).getLastTransitionTime()).isEqualTo(T0);
    final var flipped =
        Conditions.set(null, ReadyRules.READY, Conditions.TRUE, "C", "m", 1, T0.plusSeconds(9));
    Conditions.keepTransitionTimes(old, flipped);
    assertThat(flipped.get(0).getLastTransitionTime()).isEqualTo(T0.plusSeconds(9));
  }

  @Test
  void externalEndpointsAreBareHostPort() {
    assertThat(CacheBackendReconciler.endpointProblem("redis.cache:6379")).isNull();
    assertThat(CacheBackendReconciler.endpointProblem("redis://r:6379")).contains("scheme");
    assertThat(CacheBackendReconciler.endpointProblem("r:0")).contains("1..65535");
    assertThat(CacheBackendReconciler.endpointProblem("r")).contains("host:port");
    assertThat(CacheBackendReconciler.endpointProblem("r :1")).contains("whitespace");
  }

  @Test
  void selectorMessageSkipInjectAndInjectedByParse() {
    final Map<String, String> sel = new TreeMap<>(Map.of("inferencecache.io/cache-domain", "d1"));
    assertThat(MatchedPods.unmatchedMessage(sel))
        .isEqualTo(
            "spec.engineSelector.matchLabels={inferencecache.io/cache-domain:d1}; no Pods in"
                + " namespace match");
    assertThat(PodStamps.optsOut("True")).isTrue();
    assertThat(PodStamps.optsOut("fAlse")).isTrue();
    assertThat(PodStamps.optsOut("False")).isFalse();
    assertThat(PodStamps.optsOut("Disabled")).isFalse();
    assertThat(PodStamps.optsOut("")).isFalse();
    assertThat(EnginePodEventsReconciler.injectedBy("team-a/cb.v1"))
        .containsExactly("team-a", "cb.v1");
    assertThat(EnginePodEventsReconciler.injectedBy("Team/cb")).isNull();
    assertThat(EnginePodEventsReconciler.injectedBy("a/b/c")).isNull();
  }

  private static long maxMemory(final String limit) {
    return RedisWorkload.maxMemoryBytes(
        new V1ResourceRequirements().putLimitsItem("memory", Quantity.fromString(limit)));
  }

  @Test
  void redisMaxMemoryIsTheLimitMinusAFifthInIntegerBytes() {
    assertThat(maxMemory("8Gi")).isEqualTo(6871947674L);
    assertThat(maxMemory("4Gi")).isEqualTo(3435973837L);
    assertThat(RedisWorkload.maxMemoryBytes(new V1ResourceRequirements()))
        .as("no limit: the 8Gi default")
        .isEqualTo(6871947674L);
    // 1000003 is not a multiple of 5: 1000003 - 200000, where floor(0.8 x) would be 800002.
    assertThat(maxMemory("1000003")).isEqualTo(800003L);
    assertThat(maxMemory("1000000")).isEqualTo(800000L);
    // A fractional quantity is rounded up to a whole byte first: 1.5k -> 1500, 100m -> 1.
    assertThat(maxMemory("1.5k")).isEqualTo(1200L);
    assertThat(maxMemory("100m")).isEqualTo(1L);
  }

  @Test
  void redisRenderingSizesMaxMemoryAndNamesTheProbeBody() throws Exception {
    assertThat(maxMemory("1Gi")).isEqualTo(858993460L);
    final CacheBackend cr = backend(null);
    cr.getSpec().remoteStorage = new CacheBackend.RemoteStorage();
    cr.getSpec().remoteStorage.redis = new CacheBackend.Redis();
    cr.getSpec().remoteStorage.redis.authentication = new CacheBackend.RedisAuthentication();
    cr.getSpec().remoteStorage.redis.authentication.password =
        new io.kubernetes.client.openapi.models.V1SecretKeySelector().name("s").key("p");
    final var c = RedisWorkload.container(cr);
    assertThat(c.getArgs()).endsWith("--requirepass", "$(REDIS_PASSWORD)");
    assertThat(c.getReadinessProbe().getExec().getCommand()).containsExactly("redis-cli", "ping");
    assertThat(ProbeClient.requestBody("ns/cb", "vllm", null))
        .isEqualTo(
            "{\"backend\":\"ns/cb\",\"model\":\"functional-self-test\",\"hashScheme\":\"vllm\"}");
  }
}
