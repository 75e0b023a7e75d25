package io.inferencecache.controlplane.controller.backend;

import static io.inferencecache.controlplane.support.KubeFixture.assertCondition;
import static io.inferencecache.controlplane.support.KubeFixture.assertNoCondition;
import static io.inferencecache.controlplane.support.KubeFixture.condition;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ContainerState;
import io.kubernetes.client.openapi.models.V1ContainerStateRunning;
import io.kubernetes.client.openapi.models.V1ContainerStateTerminated;
import io.kubernetes.client.openapi.models.V1ContainerStateWaiting;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The verdicts read from the engine pods a backend injected (EngineCompatibility,
 * EngineKernelsHealthy) on kube-local against a real server ({@link BackendStack}). kube-local runs
 * no kubelet: the test writes the pod statuses a kubelet would.
 */
@KubeLocalTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class EngineVerdictsKubeIT {
  private KubeLocal kube;
  private BackendStack stack;

  @BeforeAll
  void start(final KubeLocal kube) throws Exception {
    this.kube = kube;
    this.stack = new BackendStack(kube, "engine-verdicts-it");
  }

  @AfterAll
  void stop() throws Exception {
    stack.close();
  }

  private static V1ContainerStatus status(final String name, final V1ContainerState state) {
    return new V1ContainerStatus()
        .name(name)
        .image("example.invalid/" + name + ":1")
        .imageID("")
        .ready(false)
        .restartCount(4)
        .state(state);
  }

  /** Plays the kubelet: pod {@code ns/name} reports the kernel check's and the engine's states. */
  private void patchPodStatus(
      final String ns,
      final String name,
      final V1ContainerState kernelCheck,
      final V1ContainerState engine)
      throws Exception {
    final CoreV1Api core = new CoreV1Api(kube.adminClient());
    final V1Pod pod = core.readNamespacedPod(name, ns).execute();
    pod.status(
        new V1PodStatus()
            .phase("Pending")
            .initContainerStatuses(List.of(status("lmcache-kernel-check", kernelCheck)))
            .containerStatuses(
                List.of(
                    status("vllm", engine),
                    status(
                        "kvevent-subscriber",
                        new V1ContainerState().running(new V1ContainerStateRunning())))));
    core.replaceNamespacedPodStatus(name, ns, pod).execute();
  }

  @Test
  void aCrashLoopingInjectedEngineAndAStrictKernelFailureBecomeConditionsAndAWarning()
      throws Exception {
    final String ns = kube.newNamespace();
    stack.apply(
        "apiVersion: "
            + KubeFixture.API
            + "\nkind: CacheBackend\nmetadata:\n  name: host\n  namespace: "
            + ns
            + "\n  annotations: {inferencecache.io/require-kv-events: \"false\"}\n"
            + "spec:\n  runtime: VLLM\n  type: LMCache\n");
    stack.awaitCb(ns, "host", cb -> assertCondition(cb, "Ready", "True", "HostOnlyActive"));
    final String uid = stack.cb(ns, "host").getAsJsonObject("metadata").get("uid").getAsString();
    // The pod as the webhook leaves it: stamped, with the subscriber and a strict kernel check.
    stack.apply(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: engine-0\n  namespace: "
            + ns
            + "\n  annotations:\n    inferencecache.io/injected-by: "
            + ns
            + "/host\n    inferencecache.io/injected-by-uid: "
            + uid
            + "\nspec:\n  initContainers:\n  - name: lmcache-kernel-check\n"
            + "    image: example.invalid/vllm:1\n"
            + "    env: [{name: KERNEL_CHECK_STRICT, value: \"1\"}]\n"
            + "  containers:\n  - {name: vllm, image: example.invalid/vllm:1}\n"
            + "  - {name: kvevent-subscriber, image: example.invalid/ic:1}\n");
    stack.awaitCb(
        ns,
        "host",
        cb -> {
          assertCondition(cb, "EngineKernelsHealthy", "Unknown", "KernelCheckPending");
          assertNoCondition(cb, "EngineCompatibility");
        });

    patchPodStatus(
        ns,
        "engine-0",
        new V1ContainerState()
            .terminated(new V1ContainerStateTerminated().exitCode(0).message("OK")),
        new V1ContainerState()
            .waiting(
                new V1ContainerStateWaiting()
                    .reason("CrashLoopBackOff")
                    .message("back-off 40s restarting failed container")));
    stack.awaitCb(
        ns,
        "host",
        cb -> {
          assertThat(condition(cb, "EngineCompatibility"))
              .startsWith("False", "InjectedEngineCrashLooping");
          assertThat(condition(cb, "EngineCompatibility")[2])
              .startsWith(
                  "engine container \"vllm\" of pod " + ns + "/engine-0 is in CrashLoopBackOff");
          assertCondition(cb, "EngineKernelsHealthy", "True", "KernelsHealthy");
          assertCondition(cb, "Ready", "True", "HostOnlyActive");
          assertThat(stack.hasEvent(ns, "InjectedEngineCrashLooping", "Warning")).isTrue();
        });

    patchPodStatus(
        ns,
        "engine-0",
        new V1ContainerState()
            .terminated(
                new V1ContainerStateTerminated()
                    .exitCode(1)
                    .message("FAIL: lmcache.c_ops: undefined symbol")),
        new V1ContainerState().running(new V1ContainerStateRunning()));
    stack.awaitCb(
        ns,
        "host",
        cb -> {
          assertThat(condition(cb, "EngineKernelsHealthy"))
              .containsExactly(
                  "False",
                  "KernelLoadFailed",
                  "LMCache GPU kernels did not load, the engine runs without them: pod "
                      + ns
                      + "/engine-0: FAIL: lmcache.c_ops: undefined symbol");
          assertCondition(cb, "Ready", "False", "EngineKernelDegraded");
          assertCondition(cb, "Progressing", "False", "EngineKernelDegraded");
          assertNoCondition(cb, "EngineCompatibility");
        });
    assertThat(
            KubeFixture.events(kube, ns).stream()
                .filter(e -> "InjectedEngineCrashLooping".equals(e.getReason()))
                .count())
        .as("one Warning for one transition")
        .isEqualTo(1);

    // EventsOnly backends take neither verdict, whatever their pods say.
    stack.apply(
        "apiVersion: "
            + KubeFixture.API
            + "\nkind: CacheBackend\nmetadata:\n  name: host\n  namespace: "
            + ns
            + "\n  annotations: {inferencecache.io/require-kv-events: \"false\"}\n"
            + "spec:\n  runtime: VLLM\n  type: LMCache\n  integration: {mode: EventsOnly}\n");
    stack.awaitCb(
        ns,
        "host",
        cb -> {
          assertCondition(cb, "Ready", "True", "EventsOnlyActive");
          assertNoCondition(cb, "EngineKernelsHealthy", "EngineCompatibility");
        });
  }
}
