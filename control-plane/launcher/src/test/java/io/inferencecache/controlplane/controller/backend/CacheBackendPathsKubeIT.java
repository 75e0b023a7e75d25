package io.inferencecache.controlplane.controller.backend;

import static io.inferencecache.controlplane.controller.backend.BackendStack.eventsOnly;
import static io.inferencecache.controlplane.controller.backend.BackendStack.managed;
import static io.inferencecache.controlplane.support.KubeFixture.assertCondition;
import static io.inferencecache.controlplane.support.KubeFixture.assertNoCondition;
import static io.inferencecache.controlplane.support.KubeFixture.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import com.codahale.metrics.Gauge;
import com.google.gson.JsonObject;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.controlplane.support.LogCapture;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import java.time.Duration;
import org.assertj.core.api.ThrowingConsumer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The CacheBackend dispatch rows beside EventsOnly and Managed (External, host-only, unmanaged),
 * the Managed verdicts a Deployment can move through (recovery, scaled to zero), the failOpen
 * events and the tier-2 hit rate with its metrics, on kube-local against a real server ({@link
 * BackendStack}). kube-local runs no webhook here, so objects the validator would refuse can be
 * applied: the reconciler must still say what is wrong.
 */
@KubeLocalTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class CacheBackendPathsKubeIT {
  private KubeLocal kube;
  private BackendStack stack;

  @BeforeAll
  void start(final KubeLocal kube) throws Exception {
    this.kube = kube;
    this.stack = new BackendStack(kube, "backend-paths-it");
  }

  @AfterAll
  void stop() throws Exception {
    stack.close();
  }

  /** Waits (20 s) until CacheBackend {@code ns/name} satisfies {@code check}. */
  private void awaitCb(
      final String ns, final String name, final ThrowingConsumer<JsonObject> check) {
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> check.accept(stack.cb(ns, name)));
  }

  private static JsonObject status(final JsonObject cb) {
    return cb.getAsJsonObject("status");
  }

  private static long generation(final JsonObject cb) {
    return cb.getAsJsonObject("metadata").get("generation").getAsLong();
  }

  private boolean serviceExists(final String ns, final String name) {
    try {
      new CoreV1Api(kube.adminClient()).readNamespacedService(name, ns).execute();
      return true;
    } catch (Exception e) {
      return false;
    }
  }

  /** A vLLM LMCache backend {@code ns/name} whose spec goes on with {@code rest}. */
  private static String backend(final String ns, final String name, final String rest) {
    return "apiVersion: "
        + KubeFixture.API
        + "\nkind: CacheBackend\nmetadata: {name: "
        + name
        + ", namespace: "
        + ns
        + "}\nspec:\n  runtime: VLLM\n  type: LMCache\n"
        + rest;
  }

  private static String external(final String ns, final String name, final String endpoint) {
    return backend(
        ns,
        name,
        "  remoteStorage:\n    provider: Redis\n    ownership: External\n"
            + (endpoint == null ? "" : "    endpoint: \"" + endpoint + "\"\n"));
  }

  @Test
  void externalRedisReplacesTheManagedWorkloadAndItsEndpointIsAcceptedRefusedOrMissing()
      throws Exception {
    try (LogCapture log = LogCapture.of(CacheBackendReconciler.class)) {
      externalPath(log);
    }
  }

  private void externalPath(final LogCapture log) throws Exception {
    final String ns = kube.newNamespace();
    stack.apply(managed(ns, "ext", ""));
    stack.awaitDeployment(ns, "ext");
    await().atMost(Duration.ofSeconds(10)).until(() -> serviceExists(ns, "ext"));

    stack.apply(external(ns, "ext", " redis.cache.example:6379 "));
    awaitCb(
        ns,
        "ext",
        cb -> {
          assertCondition(cb, "Ready", "True", "ExternalEndpointAccepted");
          assertCondition(cb, "RemoteStorageReady", "True", "RemoteStorageReady");
          assertCondition(cb, "Progressing", "False", "Synced");
          assertNoCondition(cb, "Degraded", "FunctionalProbeOK", "T2Degraded");
          final JsonObject rs = status(cb).getAsJsonObject("remoteStorage");
          assertThat(rs.get("endpoint").getAsString()).isEqualTo("redis.cache.example:6379");
          assertThat(rs.get("ready").getAsString()).isEqualTo("True");
          assertThat(status(cb).get("observedGeneration").getAsLong()).isEqualTo(generation(cb));
          assertThat(stack.readOrNull(ns, "ext")).isNull();
          assertThat(serviceExists(ns, "ext")).isFalse();
          assertThat(stack.hasEvent(ns, "RemoteStorageReady", "Normal")).isTrue();
        });
    assertThat(kube.kubectl("get", "cb", "ext", "-n", ns).stdout())
        .containsPattern("ext\\s+LMCache\\s+True\\s+redis\\.cache\\.example:6379\\s");

    stack.apply(external(ns, "ext", "redis://redis.cache.example:6379"));
    awaitCb(
        ns,
        "ext",
        cb -> {
          assertThat(condition(cb, "Ready"))
              .containsExactly(
                  "False",
                  "ExternalEndpointInvalid",
                  "spec.remoteStorage.endpoint must be a bare host:port, without a scheme (got"
                      + " \"redis://redis.cache.example:6379\")");
          assertCondition(cb, "RemoteStorageReady", "False", "ExternalEndpointInvalid");
          final JsonObject rs = status(cb).getAsJsonObject("remoteStorage");
          assertThat(rs.has("endpoint")).isFalse();
          assertThat(rs.get("ready").getAsString()).isEqualTo("False");
          assertThat(stack.hasEvent(ns, "ExternalEndpointInvalid", "Warning")).isTrue();
        });

    stack.apply(external(ns, "ext", null));
    awaitCb(
        ns,
        "ext",
        cb -> {
          assertThat(condition(cb, "Ready"))
              .containsExactly(
                  "False",
                  "ExternalEndpointMissing",
                  "spec.remoteStorage.endpoint is required for ownership External (host:port)");
          assertCondition(cb, "RemoteStorageReady", "False", "ExternalEndpointMissing");
          assertThat(stack.hasEvent(ns, "ExternalEndpointMissing", "Warning")).isTrue();
        });
    // Removing the Managed Service is one DELETE the reconciler must read as done, whatever the
    // API server answers with (1.20 answers a Status): no reconcile of this backend failed.
    assertThat(log.messages(Level.ERROR)).noneMatch(m -> m.contains(ns));
    assertThat(log.messages(Level.WARN)).noneMatch(m -> m.contains(ns));
  }

  private static String hostOnly(final String ns, final String name, final String domain) {
    return backend(
        ns,
        name,
        "  engineSelector:\n    matchLabels: {inferencecache.io/cache-domain: " + domain + "}\n");
  }

  @Test
  void aHostOnlyBackendProvisionsNothingAndOpensItsGateOnTheFirstEvent() throws Exception {
    final String ns = kube.newNamespace();
    stack.apply(hostOnly(ns, "host", "h1"));
    awaitCb(
        ns,
        "host",
        cb -> {
          assertCondition(cb, "Ready", "False", "AwaitingFirstKVEvent");
          assertCondition(cb, "Progressing", "True", "AwaitingFirstKVEvent");
          assertCondition(cb, "Degraded", "False", "NotDegraded");
          assertNoCondition(cb, "RemoteStorageReady", "FunctionalProbeOK", "T2Degraded");
          assertThat(status(cb).has("remoteStorage")).isFalse();
          assertThat(status(cb).get("firstAvailableAt").getAsString())
              .matches("\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z");
        });
    assertThat(stack.readOrNull(ns, "host")).isNull();
    assertThat(serviceExists(ns, "host")).isFalse();

    stack.enginePod(ns, "host-0", "h1");
    stack.report(ns, "host-0", 2);
    awaitCb(
        ns,
        "host",
        cb -> {
          assertCondition(cb, "Ready", "True", "KVEventsObserved");
          assertThat(
                  status(cb).getAsJsonObject("indexParticipation").get("prefixCount").getAsLong())
              .isEqualTo(2);
        });
    // Tier-2 counters reach a host-only backend's status, but T2Degraded is the Managed path's.
    stack.reportT2(ns, "host-0", 0, 8);
    awaitCb(
        ns,
        "host",
        cb -> {
          assertThat(
                  status(cb).getAsJsonObject("indexParticipation").get("t2HitRate").getAsString())
              .isEqualTo("0");
          assertNoCondition(cb, "T2Degraded");
        });

    final String optedOut =
        hostOnly(ns, "host-ungated", "h2")
            .replace(
                "metadata: {name: host-ungated, namespace: " + ns + "}",
                "metadata:\n  name: host-ungated\n  namespace: "
                    + ns
                    + "\n  annotations: {inferencecache.io/require-kv-events: \"false\"}");
    stack.apply(optedOut);
    awaitCb(
        ns,
        "host-ungated",
        cb -> {
          assertThat(condition(cb, "Ready"))
              .containsExactly(
                  "True", "HostOnlyActive", "host-only cache hierarchy: nothing is provisioned");
          assertCondition(cb, "Progressing", "False", "Synced");
        });
  }

  @Test
  void aBackendWithoutAnEngineAdapterIsUnmanagedAndLosesItsWorkloadAndConditions()
      throws Exception {
    final String ns = kube.newNamespace();
    stack.apply(managed(ns, "um", ""));
    stack.awaitDeployment(ns, "um");
    awaitCb(ns, "um", cb -> assertCondition(cb, "Ready", "False", "RolloutInProgress"));

    // SGLang HiCache under vLLM has no engine adapter: the reconciler owns nothing for it.
    stack.apply(
        managed(ns, "um", "")
            .replace("type: LMCache", "type: SGLangHiCache\n  hiCache: {sizeGB: 4}"));
    awaitCb(
        ns,
        "um",
        cb -> {
          assertNoCondition(
              cb,
              "Ready",
              "Progressing",
              "Degraded",
              "FunctionalProbeOK",
              "RemoteStorageReady",
              "T2Degraded");
          assertThat(status(cb).has("remoteStorage")).isFalse();
          assertThat(status(cb).has("firstAvailableAt")).isFalse();
          assertThat(status(cb).get("observedGeneration").getAsLong()).isEqualTo(generation(cb));
          assertThat(generation(cb)).isEqualTo(2);
          assertThat(stack.readOrNull(ns, "um")).isNull();
          assertThat(serviceExists(ns, "um")).isFalse();
        });
  }

  @Test
  void managedRedisRecoversWithBackendRecoveredAndScaledToZeroIsNotReady() throws Exception {
    final String ns = kube.newNamespace();
    stack.apply(managed(ns, "rec", ""));
    stack.awaitDeployment(ns, "rec");
    stack.patchDeploymentStatus(ns, "rec", 0);
    awaitCb(ns, "rec", cb -> assertCondition(cb, "Degraded", "True", "ReplicasUnavailable"));
    assertThat(stack.hasEvent(ns, "BackendRecovered", "Normal")).isFalse();

    stack.patchDeploymentStatus(ns, "rec", 1);
    awaitCb(
        ns,
        "rec",
        cb -> {
          assertCondition(cb, "Ready", "True", "BackendReady");
          assertCondition(cb, "Degraded", "False", "NotDegraded");
          assertThat(stack.hasEvent(ns, "BackendRecovered", "Normal")).isTrue();
        });

    // Replicas are the operator's: the reconciler keeps a scale to 0 and reports it.
    assertThat(kube.kubectl("scale", "deployment", "rec", "-n", ns, "--replicas=0").exitCode())
        .isZero();
    awaitCb(
        ns,
        "rec",
        cb -> {
          assertThat(condition(cb, "Ready"))
              .containsExactly("False", "ScaledToZero", "Redis Deployment is scaled to 0 replicas");
          assertCondition(cb, "Progressing", "False", "ScaledToZero");
          assertCondition(cb, "Degraded", "False", "NotDegraded");
          assertCondition(cb, "RemoteStorageReady", "False", "RemoteStorageUnavailable");
          assertThat(stack.deployment(ns, "rec").getSpec().getReplicas()).isZero();
        });
  }

  @Test
  void flippingFailOpenEmitsFailClosedEnabledThenFailOpenRestoredAndTheDefaultIsSilent()
      throws Exception {
    final String ns = kube.newNamespace();
    final String closed =
        eventsOnly(ns, "fo", "f1", "5m0s")
            .replace("{mode: EventsOnly}", "{mode: EventsOnly, failOpen: false}");
    stack.apply(closed);
    awaitCb(
        ns,
        "fo",
        cb -> {
          assertThat(status(cb).get("failOpen").getAsBoolean()).isFalse();
          assertThat(stack.hasEvent(ns, "FailClosedEnabled", "Warning")).isTrue();
        });
    stack.apply(
        eventsOnly(ns, "fo", "f1", "5m0s")
            .replace("{mode: EventsOnly}", "{mode: EventsOnly, failOpen: true}"));
    awaitCb(
        ns,
        "fo",
        cb -> {
          assertThat(status(cb).get("failOpen").getAsBoolean()).isTrue();
          assertThat(stack.hasEvent(ns, "FailOpenRestored", "Normal")).isTrue();
        });

    final String quiet = kube.newNamespace();
    stack.apply(eventsOnly(quiet, "default-open", "f2", "5m0s"));
    awaitCb(
        quiet,
        "default-open",
        cb -> {
          assertThat(status(cb).get("failOpen").getAsBoolean()).isTrue();
          assertThat(stack.hasEvent(quiet, "AwaitingFirstKVEvent", "Normal")).isTrue();
        });
    assertThat(KubeFixture.events(kube, quiet))
        .noneMatch(
            e ->
                "FailClosedEnabled".equals(e.getReason())
                    || "FailOpenRestored".equals(e.getReason()));
  }

  private Double gauge(final String backend) {
    @SuppressWarnings("rawtypes")
    final Gauge g =
        stack
            .metrics
            .registry()
            .getGauges()
            .get(MetricFamily.BACKEND_T2_HIT_RATE.registryName(backend));
    return g == null ? null : ((Number) g.getValue()).doubleValue();
  }

  private Long queryTokens(final String backend) {
    final var c =
        stack
            .metrics
            .registry()
            .getCounters()
            .get(MetricFamily.BACKEND_T2_QUERY_TOKENS.registryName(backend));
    return c == null ? null : c.getCount();
  }

  @Test
  void tierTwoCountersBecomeTheHitRateItsMetricsAndT2Degraded() throws Exception {
    final String ns = kube.newNamespace();
    final String key = ns + "/t2";
    stack.apply(
        managed(ns, "t2", "")
            + "  engineSelector:\n    matchLabels: {inferencecache.io/cache-domain: t2}\n");
    stack.awaitDeployment(ns, "t2");
    stack.patchDeploymentStatus(ns, "t2", 1);
    awaitCb(ns, "t2", cb -> assertCondition(cb, "Ready", "True", "BackendReady"));
    assertNoCondition(stack.cb(ns, "t2"), "T2Degraded");
    assertThat(gauge(key)).isNull();

    stack.enginePod(ns, "t2-0", "t2");
    stack.reportT2(ns, "t2-0", 0, 40);
    awaitCb(
        ns,
        "t2",
        cb -> {
          assertThat(
                  status(cb).getAsJsonObject("indexParticipation").get("t2HitRate").getAsString())
              .isEqualTo("0");
          assertThat(condition(cb, "T2Degraded"))
              .containsExactly(
                  "True",
                  "T2ZeroHitRate",
                  "tier-2 storage is queried but never hits (t2HitRate 0)");
          assertCondition(cb, "Ready", "True", "BackendReady");
          assertThat(gauge(key)).isEqualTo(0.0);
          // The first observation is the baseline: the series appears at 0.
          assertThat(queryTokens(key)).isZero();
        });

    stack.reportT2(ns, "t2-0", 30, 100);
    awaitCb(
        ns,
        "t2",
        cb -> {
          assertThat(
                  status(cb).getAsJsonObject("indexParticipation").get("t2HitRate").getAsString())
              .isEqualTo("0.3");
          assertCondition(cb, "T2Degraded", "False", "T2Serving");
          assertThat(gauge(key)).isEqualTo(0.3);
          assertThat(queryTokens(key)).isEqualTo(60);
        });

    // A restarted engine's counter goes back: nothing is added, the baseline moves.
    stack.reportT2(ns, "t2-0", 5, 20);
    awaitCb(
        ns,
        "t2",
        cb ->
            assertThat(
                    status(cb).getAsJsonObject("indexParticipation").get("t2HitRate").getAsString())
                .isEqualTo("0.25"));
    assertThat(queryTokens(key)).isEqualTo(60);

    assertThat(kube.kubectl("delete", "cb", "t2", "-n", ns).exitCode()).isZero();
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(gauge(key)).isNull();
              assertThat(queryTokens(key)).isNull();
            });
  }
}
