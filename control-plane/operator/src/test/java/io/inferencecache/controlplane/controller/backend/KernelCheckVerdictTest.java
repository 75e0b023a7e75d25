package io.inferencecache.controlplane.controller.backend;

import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.pod;
import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.running;
import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.terminated;
import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.waiting;
import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.withKernelCheck;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1Condition;
import io.kubernetes.client.openapi.models.V1ContainerState;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The EngineKernelsHealthy verdict over the kernel-check init containers of owned pods. */
class KernelCheckVerdictTest {
  private static final OffsetDateTime T0 =
      OffsetDateTime.of(2026, 12, 1, 12, 0, 0, 0, ZoneOffset.UTC);

  private static V1Pod checked(
      final String name, final V1ContainerState state, final V1ContainerState last) {
    return withKernelCheck(pod(name, "u1", "vllm"), false, state, last);
  }

  private static V1Pod strict(final String name, final V1ContainerState state) {
    return withKernelCheck(pod(name, "u1", "vllm"), true, state, null);
  }

  static Stream<Arguments> table() {
    return Stream.of(
        arguments(
            "OK, exit 0",
            List.of(checked("a", terminated(0, "OK"), null)),
            "True",
            "KernelsHealthy",
            false),
        arguments(
            "OK with detail, exit 0",
            List.of(checked("a", terminated(0, "OK: 14 kernels loaded\n"), null)),
            "True",
            "KernelsHealthy",
            false),
        arguments(
            "OK but exit 1",
            List.of(checked("a", terminated(1, "OK"), null)),
            "Unknown",
            "KernelCheckError",
            false),
        arguments(
            "exit 0, other message",
            List.of(checked("a", terminated(0, "WARN: no GPU visible"), null)),
            "Unknown",
            "KernelCheckError",
            false),
        arguments(
            "exit 0, no message",
            List.of(checked("a", terminated(0, null), null)),
            "Unknown",
            "KernelCheckError",
            false),
        arguments(
            "OKAY is not OK",
            List.of(checked("a", terminated(0, "OKAY"), null)),
            "Unknown",
            "KernelCheckError",
            false),
        arguments(
            "FAIL, report-only",
            List.of(checked("a", terminated(0, "FAIL: undefined symbol"), null)),
            "False",
            "KernelLoadFailed",
            false),
        arguments(
            "FAIL, strict",
            List.of(strict("a", terminated(1, "FAIL: undefined symbol"))),
            "False",
            "KernelLoadFailed",
            true),
        arguments(
            "FAIL in the last state of a restarting check",
            List.of(checked("a", waiting("CrashLoopBackOff"), terminated(1, "FAIL: no libcudart"))),
            "False",
            "KernelLoadFailed",
            false),
        arguments(
            "running",
            List.of(checked("a", running(), null)),
            "Unknown",
            "KernelCheckPending",
            false),
        arguments(
            "waiting, never terminated",
            List.of(checked("a", waiting("PodInitializing"), null)),
            "Unknown",
            "KernelCheckPending",
            false),
        arguments(
            "no status yet",
            List.of(checked("a", null, null)),
            "Unknown",
            "KernelCheckPending",
            false),
        arguments(
            "OK and pending: pending",
            List.of(checked("a", terminated(0, "OK"), null), checked("b", null, null)),
            "Unknown",
            "KernelCheckPending",
            false),
        arguments(
            "pending and error: error",
            List.of(checked("a", null, null), checked("b", terminated(137, ""), null)),
            "Unknown",
            "KernelCheckError",
            false),
        arguments(
            "error, strict FAIL and OK: FAIL, strict",
            List.of(
                checked("a", terminated(2, "Traceback"), null),
                strict("b", terminated(1, "FAIL: x")),
                checked("c", terminated(0, "OK"), null)),
            "False",
            "KernelLoadFailed",
            true),
        arguments(
            "a pod without the check does not count",
            List.of(pod("plain", "u1", "vllm"), checked("a", terminated(0, "OK"), null)),
            "True",
            "KernelsHealthy",
            false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void eachPodStatusGivesItsVerdict(
      final String caseName,
      final List<V1Pod> pods,
      final String status,
      final String reason,
      final boolean strictFailure) {
    final KernelCheckVerdict.Result r = KernelCheckVerdict.evaluate(pods);
    assertThat(r).isNotNull();
    assertThat(r.condition().status()).isEqualTo(status);
    assertThat(r.condition().reason()).isEqualTo(reason);
    assertThat(r.strictFailure()).isEqualTo(strictFailure);
  }

  @Test
  void messagesNameThePodAndWhatItSaid() {
    assertThat(
            KernelCheckVerdict.evaluate(
                    List.of(
                        checked("a", terminated(0, "OK"), null),
                        checked("b", terminated(1, "FAIL: undefined symbol"), null)))
                .condition()
                .message())
        .isEqualTo(
            "LMCache GPU kernels did not load, the engine runs without them: pod ns/b: FAIL:"
                + " undefined symbol");
    assertThat(
            KernelCheckVerdict.evaluate(List.of(checked("c", terminated(3, "boom"), null)))
                .condition()
                .message())
        .isEqualTo(
            "LMCache kernel check could not decide: pod ns/c ended its check with exit code 3 and"
                + " message \"boom\" (kubectl logs -c lmcache-kernel-check)");
    assertThat(KernelCheckVerdict.evaluate(List.of(checked("d", null, null))).condition().message())
        .isEqualTo("LMCache kernel check pending: pod ns/d has not finished its check");
    assertThat(
            KernelCheckVerdict.evaluate(
                    List.of(
                        checked("a", terminated(0, "OK"), null),
                        checked("b", terminated(0, "OK"), null)))
                .condition()
                .message())
        .isEqualTo("the LMCache kernel check passed on 2 engine pod(s)");
  }

  @Test
  void noPodWithTheCheckMeansNoVerdict() {
    assertThat(KernelCheckVerdict.evaluate(List.of())).isNull();
    assertThat(KernelCheckVerdict.evaluate(List.of(pod("plain", "u1", "vllm")))).isNull();
  }

  private static CacheBackend.Status ready(final String status, final String reason) {
    final CacheBackend.Status st = new CacheBackend.Status();
    st.conditions = Conditions.set(null, ReadyRules.READY, status, reason, "m", 2, T0);
    return st;
  }

  @Test
  void aStrictFailureTurnsATrueReadyIntoEngineKernelDegraded() {
    final CacheBackend.Status st = ready("True", "KVEventsObserved");
    KernelCheckVerdict.apply(st, List.of(strict("a", terminated(1, "FAIL: x"))), 2, T0);
    final V1Condition ready = Conditions.get(st.conditions, ReadyRules.READY);
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getReason()).isEqualTo("EngineKernelDegraded");
    assertThat(ready.getMessage())
        .isEqualTo(
            "kernel check is strict and failed: LMCache GPU kernels did not load, the engine runs"
                + " without them: pod ns/a: FAIL: x");
    assertThat(Conditions.reason(st.conditions, KernelCheckVerdict.TYPE))
        .isEqualTo("KernelLoadFailed");
  }

  @Test
  void aReportOnlyFailureOrANotReadyBackendKeepsReady() {
    final CacheBackend.Status reportOnly = ready("True", "HostOnlyActive");
    KernelCheckVerdict.apply(
        reportOnly, List.of(checked("a", terminated(0, "FAIL: x"), null)), 2, T0);
    assertThat(Conditions.reason(reportOnly.conditions, ReadyRules.READY))
        .isEqualTo("HostOnlyActive");
    assertThat(Conditions.is(reportOnly.conditions, KernelCheckVerdict.TYPE, "False")).isTrue();

    final CacheBackend.Status rolling = ready("False", "RolloutInProgress");
    KernelCheckVerdict.apply(rolling, List.of(strict("a", terminated(1, "FAIL: x"))), 2, T0);
    assertThat(Conditions.reason(rolling.conditions, ReadyRules.READY))
        .isEqualTo("RolloutInProgress");
  }

  @Test
  void aFailedListLeavesTheConditionAndNoPodsRemoveIt() {
    final CacheBackend.Status st = ready("True", "BackendReady");
    KernelCheckVerdict.apply(st, List.of(checked("a", terminated(0, "OK"), null)), 2, T0);
    assertThat(Conditions.reason(st.conditions, KernelCheckVerdict.TYPE))
        .isEqualTo("KernelsHealthy");
    KernelCheckVerdict.apply(st, null, 2, T0);
    assertThat(Conditions.reason(st.conditions, KernelCheckVerdict.TYPE))
        .isEqualTo("KernelsHealthy");
    KernelCheckVerdict.apply(st, List.of(pod("plain", "u1", "vllm")), 2, T0);
    assertThat(Conditions.get(st.conditions, KernelCheckVerdict.TYPE)).isNull();
    assertThat(Conditions.reason(st.conditions, ReadyRules.READY)).isEqualTo("BackendReady");
  }
}
