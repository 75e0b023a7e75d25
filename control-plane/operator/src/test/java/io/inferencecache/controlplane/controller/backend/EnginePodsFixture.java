package io.inferencecache.controlplane.controller.backend;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1Container;
import io.kubernetes.client.openapi.models.V1ContainerState;
import io.kubernetes.client.openapi.models.V1ContainerStateRunning;
import io.kubernetes.client.openapi.models.V1ContainerStateTerminated;
import io.kubernetes.client.openapi.models.V1ContainerStateWaiting;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1EnvVar;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodSpec;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.util.Map;

/** Engine pods and a vLLM LMCache backend {@code ns/cb} (UID {@code u1}) for the verdict tests. */
final class EnginePodsFixture {
  private EnginePodsFixture() {}

  static CacheBackend backend() {
    final CacheBackend cr = new CacheBackend();
    cr.setMetadata(new V1ObjectMeta().namespace("ns").name("cb").generation(2L).uid("u1"));
    cr.setSpec(new CacheBackend.Spec());
    cr.getSpec().runtime = CacheBackend.EngineRuntime.VLLM;
    cr.getSpec().type = CacheBackend.CacheType.LMCACHE;
    return cr;
  }

  /**
   * A pod {@code ns/name} stamped by {@code ns/cb} with {@code uid}, with containers {@code names}.
   */
  static V1Pod pod(final String name, final String uid, final String... names) {
    final V1PodSpec spec = new V1PodSpec();
    for (final String n : names) {
      spec.addContainersItem(new V1Container().name(n).image("example.invalid/" + n));
    }
    return new V1Pod()
        .metadata(
            new V1ObjectMeta()
                .namespace("ns")
                .name(name)
                .annotations(Map.of(Backends.INJECTED_BY, "ns/cb", Backends.INJECTED_BY_UID, uid)))
        .spec(spec)
        .status(new V1PodStatus());
  }

  static V1ContainerState waiting(final String reason) {
    return new V1ContainerState().waiting(new V1ContainerStateWaiting().reason(reason));
  }

  static V1ContainerState running() {
    return new V1ContainerState().running(new V1ContainerStateRunning());
  }

  static V1ContainerState terminated(final int exit, final String message) {
    return new V1ContainerState()
        .terminated(new V1ContainerStateTerminated().exitCode(exit).message(message));
  }

  /** Adds a status of container {@code name} in {@code state} to {@code pod}. */
  static V1Pod withStatus(final V1Pod pod, final String name, final V1ContainerState state) {
    pod.getStatus()
        .addContainerStatusesItem(
            new V1ContainerStatus()
                .name(name)
                .image("i")
                .imageID("")
                .ready(false)
                .restartCount(3)
                .state(state));
    return pod;
  }

  /**
   * Adds init container {@code lmcache-kernel-check} ({@code strict} sets KERNEL_CHECK_STRICT=1,
   * else 0) with {@code state} and {@code last} (either may be null: no status at all when both).
   */
  static V1Pod withKernelCheck(
      final V1Pod pod,
      final boolean strict,
      final V1ContainerState state,
      final V1ContainerState last) {
    pod.getSpec()
        .addInitContainersItem(
            new V1Container()
                .name(KernelCheckVerdict.INIT_CONTAINER)
                .image("example.invalid/check")
                .addEnvItem(
                    new V1EnvVar().name(KernelCheckVerdict.STRICT_ENV).value(strict ? "1" : "0")));
    if (state != null || last != null) {
      pod.getStatus()
          .addInitContainerStatusesItem(
              new V1ContainerStatus()
                  .name(KernelCheckVerdict.INIT_CONTAINER)
                  .image("i")
                  .imageID("")
                  .ready(false)
                  .restartCount(0)
                  .state(state)
                  .lastState(last));
    }
    return pod;
  }
}
