package io.inferencecache.controlplane.controller.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.inferencecache.controlplane.cli.ControllerCommand;
import io.inferencecache.controlplane.controller.ControllerOptions;
import io.inferencecache.controlplane.controller.ControllerRuntime;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.kubernetes.client.openapi.apis.CoordinationV1Api;
import io.kubernetes.client.openapi.apis.EventsV1Api;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1Lease;
import io.kubernetes.client.openapi.models.V1LeaseSpec;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Engine-pod events are re-emitted by every controller start and by a new leader; a controller that
 * does not hold the Lease writes no status and no event.
 */
@KubeLocalTest
@Timeout(180)
class CacheBackendLeadershipIT {
  @TempDir Path dir;

  private ControllerRuntime runtime(
      final KubeLocal kube, final boolean leaderElect, final String leaseNs) throws Exception {
    final ControllerOptions options =
        new ControllerOptions(
            "0",
            "127.0.0.1:0",
            leaderElect,
            "http://127.0.0.1:9/snapshot",
            "http://127.0.0.1:9/policy",
            Duration.ofSeconds(30),
            Duration.ofSeconds(30),
            kube.kubeconfig(),
            dir.resolve("none"),
            dir.resolve("none"),
            leaseNs,
            Duration.ofSeconds(10),
            Duration.ofSeconds(7),
            Duration.ofSeconds(1));
    return new ControllerRuntime(
        options,
        ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ofSeconds(30)),
        ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ZERO),
        leaderElect ? "follower-then-leader" : "first",
        new io.inferencecache.controlplane.controller.metrics.ControllerMetrics(
            new com.codahale.metrics.MetricRegistry()),
        "");
  }

  private static long count(final KubeLocal kube, final String ns, final String reason)
      throws Exception {
    return new EventsV1Api(kube.adminClient())
        .listNamespacedEvent(ns).execute().getItems().stream()
            .filter(
                e ->
                    reason.equals(e.getReason())
                        && EnginePodEventsReconciler.REPORTER.equals(e.getReportingController()))
            .count();
  }

  private static long controllerEvents(final KubeLocal kube, final String ns) throws Exception {
    return new EventsV1Api(kube.adminClient())
        .listNamespacedEvent(ns).execute().getItems().stream()
            .map(EventsV1Event::getReportingController)
            .filter(
                r ->
                    TransitionEvents.REPORTER.equals(r)
                        || EnginePodEventsReconciler.REPORTER.equals(r))
            .count();
  }

  private static void apply(final KubeLocal kube, final String yaml) {
    assertThat(kube.kubectlWithInput(yaml, "apply", "--validate=false", "-f", "-").exitCode())
        .isZero();
  }

  private static String backend(final String ns, final String name, final String domain) {
    return "apiVersion: inferencecache.io/v1alpha1\nkind: CacheBackend\nmetadata: {name: "
        + name
        + ", namespace: "
        + ns
        + "}\nspec:\n  runtime: VLLM\n  integration: {mode: EventsOnly}\n  engineSelector:\n"
        + "    matchLabels: {inferencecache.io/cache-domain: "
        + domain
        + "}\n";
  }

  @Test
  void restartsAndNewLeadersReEmitPodEventsAndAFollowerWritesNothing(final KubeLocal kube)
      throws Exception {
    kube.applyCrdsFor120(KubeFixture.crds());
    final String ns = kube.newNamespace();
    final String leaseNs = kube.newNamespace();
    final ControllerRuntime first = runtime(kube, false, leaseNs);
    final Thread firstRunner = KubeFixture.runInBackground(first);
    apply(kube, backend(ns, "cb", "dom"));
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                kube.kubectl(
                        "get", "cb", "cb", "-n", ns, "-o", "jsonpath={.status.matchedEnginePods}")
                    .stdout()
                    .strip()
                    .equals("0"));
    final String uid =
        kube.kubectl("get", "cb", "cb", "-n", ns, "-o", "jsonpath={.metadata.uid}")
            .stdout()
            .strip();
    apply(
        kube,
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: injected\n  namespace: "
            + ns
            + "\n  labels: {inferencecache.io/cache-domain: dom}\n  annotations:\n"
            + "    inferencecache.io/injected-by: "
            + ns
            + "/cb\n    inferencecache.io/injected-by-uid: "
            + uid
            + "\nspec:\n  containers: [{name: engine, image: example.invalid/vllm:1}]\n---\n"
            + "apiVersion: v1\nkind: Pod\nmetadata:\n  name: opted-out\n  namespace: "
            + ns
            + "\n  annotations:\n    inferencecache.io/skip-inject: \"true\"\n"
            + "    inferencecache.io/inject-skipped: skip-inject-annotation\n"
            + "spec:\n  containers: [{name: engine, image: example.invalid/vllm:1}]\n---\n"
            + "apiVersion: v1\nkind: Pod\nmetadata:\n  name: forged\n  namespace: "
            + ns
            + "\n  annotations:\n    inferencecache.io/injected-by: "
            + ns
            + "/cb\n    inferencecache.io/injected-by-uid: not-the-uid\n"
            + "spec:\n  containers: [{name: engine, image: example.invalid/vllm:1}]\n");
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              assertThat(count(kube, ns, "InjectedByCacheBackend")).isEqualTo(1);
              assertThat(count(kube, ns, "SkippedByOperator")).isEqualTo(1);
            });
    final EventsV1Event injected =
        new EventsV1Api(kube.adminClient())
            .listNamespacedEvent(ns).execute().getItems().stream()
                .filter(e -> "InjectedByCacheBackend".equals(e.getReason()))
                .findFirst()
                .orElseThrow();
    assertThat(injected.getRegarding().getName()).isEqualTo("injected");
    assertThat(injected.getRelated().getKind()).isEqualTo("CacheBackend");
    assertThat(injected.getRelated().getUid()).isEqualTo(uid);
    assertThat(injected.getNote())
        .isEqualTo("Injected engine config from CacheBackend \"" + ns + "/cb\"");
    first.close();
    firstRunner.join(10_000);

    final OffsetDateTime now = OffsetDateTime.now(ZoneOffset.UTC);
    new CoordinationV1Api(kube.adminClient())
        .createNamespacedLease(
            leaseNs,
            new V1Lease()
                .metadata(new V1ObjectMeta().name(ControllerOptions.LEADER_LOCK))
                .spec(
                    new V1LeaseSpec()
                        .holderIdentity("someone-else")
                        .leaseDurationSeconds(10)
                        .leaseTransitions(0)
                        .acquireTime(now)
                        .renewTime(now)))
        .execute();
    final ControllerRuntime follower = runtime(kube, true, leaseNs);
    final Thread followerRunner = KubeFixture.runInBackground(follower);
    try {
      apply(kube, backend(ns, "late", "other"));
      final long before = controllerEvents(kube, ns);
      await()
          .ignoreExceptions()
          .during(Duration.ofSeconds(6))
          .atMost(Duration.ofSeconds(9))
          .until(
              () ->
                  controllerEvents(kube, ns) == before
                      && kube.kubectl("get", "cb", "late", "-n", ns, "-o", "jsonpath={.status}")
                          .stdout()
                          .isBlank());
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(40))
          .untilAsserted(
              () -> {
                assertThat(count(kube, ns, "InjectedByCacheBackend")).isEqualTo(2);
                assertThat(count(kube, ns, "SkippedByOperator")).isEqualTo(2);
                assertThat(
                        kube.kubectl(
                                "get",
                                "cb",
                                "late",
                                "-n",
                                ns,
                                "-o",
                                "jsonpath={.status.matchedEnginePods}")
                            .stdout()
                            .strip())
                    .isEqualTo("0");
              });
    } finally {
      follower.close();
      followerRunner.join(10_000);
    }
  }
}
