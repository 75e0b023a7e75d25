package io.inferencecache.controlplane.controller.backend;

import static io.inferencecache.controlplane.controller.backend.BackendStack.eventsOnly;
import static io.inferencecache.controlplane.controller.backend.BackendStack.managed;
import static io.inferencecache.controlplane.support.KubeFixture.assertCondition;
import static io.inferencecache.controlplane.support.KubeFixture.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Service;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The CacheBackend reconciler on kube-local against a real server ({@link BackendStack}): the
 * EventsOnly first-KV-event gate, Managed Redis, and the faults that must land as conditions
 * without hot-looping.
 */
@KubeLocalTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class CacheBackendKubeIT {
  /** A {@code metav1.Time} as the API server writes it: RFC 3339, UTC, whole seconds. */
  private static final String META_TIME = "\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z";

  private KubeLocal kube;
  private BackendStack stack;

  @BeforeAll
  void start(final KubeLocal kube) throws Exception {
    this.kube = kube;
    this.stack = new BackendStack(kube, "backend-it");
  }

  @AfterAll
  void stop() throws Exception {
    stack.close();
  }

  private void apply(final String yaml) {
    stack.apply(yaml);
  }

  private JsonObject cb(final String ns, final String name) {
    return stack.cb(ns, name);
  }

  private boolean hasEvent(final String ns, final String reason, final String type)
      throws Exception {
    return stack.hasEvent(ns, reason, type);
  }

  @Test
  void eventsOnlyWithoutPodsAwaitsTheFirstEventThenTimesOutDegraded() {
    final String ns = kube.newNamespace();
    apply(eventsOnly(ns, "cb", "d1", "10s"));
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "cb");
              final JsonObject st = cb.getAsJsonObject("status");
              assertThat(st).isNotNull();
              assertThat(st.get("matchedEnginePods").getAsInt()).isZero();
              assertThat(st.get("engineSelectorMessage").getAsString())
                  .isEqualTo(
                      "spec.engineSelector.matchLabels={inferencecache.io/cache-domain:d1}; no"
                          + " Pods in namespace match");
              assertCondition(cb, "Ready", "False", "AwaitingFirstKVEvent");
              assertCondition(cb, "Progressing", "True", "AwaitingFirstKVEvent");
              assertCondition(cb, "Degraded", "False", "NotDegraded");
              assertThat(hasEvent(ns, "EngineSelectorUnmatched", "Normal")).isTrue();
              assertThat(hasEvent(ns, "AwaitingFirstKVEvent", "Normal")).isTrue();
            });
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "cb");
              assertCondition(cb, "Ready", "False", "NoKVEventsObserved");
              assertCondition(cb, "Degraded", "True", "NoKVEventsObserved");
              assertThat(condition(cb, "Ready")[2]).contains("within 10s");
              assertThat(hasEvent(ns, "NoKVEventsObserved", "Warning")).isTrue();
            });
    assertThat(kube.kubectl("get", "cb", "cb", "-n", ns).stdout())
        .containsPattern("cb\\s+LMCache\\s+False\\s+0\\s+0\\s+\\d+s\\n");
  }

  @Test
  void aMatchingPodWhoseReplicaReportsOpensTheGateAndShowsPrefixes() throws Exception {
    final String ns = kube.newNamespace();
    apply(eventsOnly(ns, "cb", "d2", "5m0s"));
    stack.enginePod(ns, "engine-0", "d2");
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "cb");
              assertThat(cb.getAsJsonObject("status").get("matchedEnginePods").getAsInt())
                  .isEqualTo(1);
              assertThat(cb.getAsJsonObject("status").has("engineSelectorMessage")).isFalse();
              assertCondition(cb, "Ready", "False", "AwaitingFirstKVEvent");
            });
    stack.report(ns, "engine-0", 3);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "cb");
              final JsonObject st = cb.getAsJsonObject("status");
              assertCondition(cb, "Ready", "True", "KVEventsObserved");
              assertCondition(cb, "Progressing", "False", "Synced");
              assertThat(st.getAsJsonObject("indexParticipation").get("prefixCount").getAsLong())
                  .isEqualTo(3);
              assertThat(hasEvent(ns, "KVEventsObserved", "Normal")).isTrue();
              // Stored as sent: every metav1.Time is whole-second RFC 3339, as upstream writes.
              assertThat(st.get("firstKVEventObservedAt").getAsString()).matches(META_TIME);
              if (st.has("firstAvailableAt")) {
                assertThat(st.get("firstAvailableAt").getAsString()).matches(META_TIME);
              }
              assertThat(st.getAsJsonObject("indexParticipation").get("lastEventAt").getAsString())
                  .matches(META_TIME);
              assertThat(st.getAsJsonArray("conditions"))
                  .isNotEmpty()
                  .allSatisfy(
                      c ->
                          assertThat(c.getAsJsonObject().get("lastTransitionTime").getAsString())
                              .matches(META_TIME));
            });
    final String table = kube.kubectl("get", "cb", "-n", ns).stdout();
    assertThat(table)
        .containsPattern("TYPE\\s+READY\\s+MATCHED\\s+REMOTE\\s+PREFIXES\\s+LASTEVENT");
    assertThat(table).containsPattern("cb\\s+LMCache\\s+True\\s+1\\s+3\\s+\\d+s\\s+\\d+s\\n");
  }

  @Test
  void managedRedisIsOwnedReadyProbedUpdatedAndCollectedWithTheCr() throws Exception {
    final String ns = kube.newNamespace();
    stack.probeMode.set("pass");
    apply(managed(ns, "l2", ""));
    stack.awaitDeployment(ns, "l2");
    final V1Service svc =
        await()
            .ignoreExceptions()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> new CoreV1Api(kube.adminClient()).readNamespacedService("l2", ns).execute(),
                Objects::nonNull);
    final V1Deployment d = stack.deployment(ns, "l2");
    final String uid = cb(ns, "l2").getAsJsonObject("metadata").get("uid").getAsString();
    for (final List<V1OwnerReference> refs :
        List.of(d.getMetadata().getOwnerReferences(), svc.getMetadata().getOwnerReferences())) {
      assertThat(refs).hasSize(1);
      assertThat(refs.get(0).getUid()).isEqualTo(uid);
      assertThat(refs.get(0).getKind()).isEqualTo("CacheBackend");
      assertThat(refs.get(0).getController()).isTrue();
      assertThat(refs.get(0).getBlockOwnerDeletion()).isTrue();
    }
    final var c = d.getSpec().getTemplate().getSpec().getContainers();
    assertThat(c).hasSize(1);
    assertThat(c.get(0).getName()).isEqualTo("redis-l2");
    assertThat(c.get(0).getImage()).isEqualTo("docker.io/library/redis:7.4-alpine");
    assertThat(c.get(0).getArgs())
        .containsExactly(
            "redis-server",
            "--save",
            "",
            "--appendonly",
            "no",
            "--protected-mode",
            "no",
            "--maxmemory",
            "6871947674",
            "--maxmemory-policy",
            "allkeys-lru");
    assertThat(c.get(0).getReadinessProbe().getTcpSocket().getPort().getStrValue())
        .isEqualTo("redis");
    assertThat(c.get(0).getResources().getLimits().get("memory").toSuffixedString())
        .isEqualTo("8Gi");
    assertThat(svc.getSpec().getPorts().get(0).getPort()).isEqualTo(6379);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertCondition(cb(ns, "l2"), "Ready", "False", "RolloutInProgress"));

    stack.patchDeploymentStatus(ns, "l2", 1);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "l2");
              assertCondition(cb, "Ready", "True", "BackendReady");
              assertCondition(cb, "FunctionalProbeOK", "True", "ProbeOK");
              assertCondition(cb, "RemoteStorageReady", "True", "RemoteStorageReady");
              assertThat(
                      cb.getAsJsonObject("status")
                          .getAsJsonObject("remoteStorage")
                          .get("endpoint")
                          .getAsString())
                  .isEqualTo("l2." + ns + ".svc.cluster.local:6379");
            });
    final String key = ns + "/l2";
    assertThat(stack.probeCount(key, "ingest", "ok")).isGreaterThanOrEqualTo(1);
    assertThat(stack.probeCount(key, "routing", "ok")).isGreaterThanOrEqualTo(1);
    assertThat(stack.probeCount(key, "t2", "skipped")).isGreaterThanOrEqualTo(1);
    assertThat(kube.kubectl("get", "cb", "l2", "-n", ns).stdout())
        .containsPattern("l2\\s+LMCache\\s+True\\s+l2\\." + ns + "\\.svc\\.cluster\\.local:6379");

    apply(
        managed(
            ns,
            "l2",
            "    redis:\n      image: docker.io/library/redis:7.2-alpine\n"
                + "      resources: {requests: {memory: 1Gi}, limits: {memory: 2Gi}}\n"));
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final var live =
                  stack.deployment(ns, "l2").getSpec().getTemplate().getSpec().getContainers();
              assertThat(live.get(0).getImage()).isEqualTo("docker.io/library/redis:7.2-alpine");
              assertThat(live.get(0).getArgs()).contains("1717986919");
            });
    // kube-local runs no garbage collector: deletion of the children is the API server's GC acting
    // on the controller owner references asserted above; here the reconciler must not recreate
    // anything for a CR that is gone.
    assertThat(kube.kubectl("delete", "cb", "l2", "-n", ns).exitCode()).isZero();
    assertThat(kube.kubectl("get", "cb", "-n", ns, "-o", "name").stdout().strip()).isEmpty();
  }

  private String resourceVersion(final String ns, final String name) {
    return cb(ns, name).getAsJsonObject("metadata").get("resourceVersion").getAsString();
  }

  /** No status write for {@code window} while the verdict is steady: the bound is 0 per window. */
  private void assertNoWritesFor(final String ns, final String name, final Duration window) {
    final String rv = resourceVersion(ns, name);
    await()
        .ignoreExceptions()
        .during(window)
        .atMost(window.plusSeconds(10))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> rv.equals(resourceVersion(ns, name)));
  }

  @Test
  void redisThatNeverBecomesReadyIsReplicasUnavailableWithoutHotLooping() throws Exception {
    final String ns = kube.newNamespace();
    apply(managed(ns, "stuck", ""));
    stack.awaitDeployment(ns, "stuck");
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "stuck");
              assertCondition(cb, "Ready", "False", "RolloutInProgress");
              assertCondition(cb, "Progressing", "True", "RolloutInProgress");
              assertCondition(cb, "RemoteStorageReady", "Unknown", "RemoteStoragePending");
            });
    stack.patchDeploymentStatus(ns, "stuck", 0);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "stuck");
              assertCondition(cb, "Ready", "False", "ReplicasUnavailable");
              assertThat(condition(cb, "Ready")[2])
                  .contains("0/1 replicas available")
                  .contains("kubectl describe deployment stuck");
              assertCondition(cb, "Degraded", "True", "ReplicasUnavailable");
              assertCondition(cb, "Progressing", "False", "Degraded");
              assertThat(hasEvent(ns, "BackendDegraded", "Warning")).isTrue();
            });
    assertNoWritesFor(ns, "stuck", Duration.ofSeconds(35));
  }

  @Test
  void aFailingProbeStageAndAnUnavailableServerLandAsProbeConditions() throws Exception {
    final String ns = kube.newNamespace();
    stack.probeMode.set("fail");
    try {
      apply(managed(ns, "pf", ""));
      stack.awaitDeployment(ns, "pf");
      stack.patchDeploymentStatus(ns, "pf", 1);
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                final JsonObject cb = cb(ns, "pf");
                assertThat(condition(cb, "FunctionalProbeOK"))
                    .containsExactly(
                        "False", "ProbeRoutingFailed", "probe chain did not win PREFIX_MATCH");
                assertThat(condition(cb, "Ready"))
                    .containsExactly(
                        "False",
                        "ProbeRoutingFailed",
                        "functional probe failed: probe chain did not win PREFIX_MATCH");
              });
      assertThat(stack.probeCount(ns + "/pf", "routing", "failed")).isGreaterThanOrEqualTo(1);

      final String ns2 = kube.newNamespace();
      stack.probeMode.set("down");
      apply(managed(ns2, "sd", ""));
      stack.awaitDeployment(ns2, "sd");
      stack.patchDeploymentStatus(ns2, "sd", 1);
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                final JsonObject cb = cb(ns2, "sd");
                final String[] probe = condition(cb, "FunctionalProbeOK");
                assertThat(probe).startsWith("Unknown", "ProbeError");
                assertThat(probe[2]).contains("answered 503: server unavailable");
                assertCondition(cb, "Ready", "True", "BackendReady");
              });
      assertNoWritesFor(ns2, "sd", Duration.ofSeconds(35));
    } finally {
      stack.probeMode.set("pass");
    }
  }
}
