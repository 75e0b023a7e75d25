package io.inferencecache.controlplane.controller.backend;

import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.backend;
import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.pod;
import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.running;
import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.waiting;
import static io.inferencecache.controlplane.controller.backend.EnginePodsFixture.withStatus;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.params.provider.Arguments.arguments;

import io.inferencecache.controlplane.k8s.model.CacheBackend;
import io.kubernetes.client.openapi.models.V1ObjectMeta;
import io.kubernetes.client.openapi.models.V1Pod;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The EngineCompatibility verdict and which pods and containers it looks at. */
class EngineCompatibilityVerdictTest {
  private static final OffsetDateTime T0 =
      OffsetDateTime.of(2026, 12, 1, 12, 0, 0, 0, ZoneOffset.UTC);
  private static final String LOOP = "CrashLoopBackOff";

  static Stream<Arguments> table() {
    return Stream.of(
        arguments(
            "adapter container crash looping",
            List.of(
                withStatus(
                    pod("p0", "u1", "kvevent-subscriber", "vllm", "proxy"), "vllm", waiting(LOOP))),
            true),
        arguments(
            "the only non-subscriber container crash looping",
            List.of(
                withStatus(
                    pod("p0", "u1", "engine", "kvevent-subscriber"), "engine", waiting(LOOP))),
            true),
        arguments(
            "one healthy pod, one looping",
            List.of(
                withStatus(pod("p0", "u1", "vllm"), "vllm", running()),
                withStatus(pod("p1", "u1", "vllm"), "vllm", waiting(LOOP))),
            true),
        arguments(
            "only the subscriber loops",
            List.of(
                withStatus(
                    pod("p0", "u1", "vllm", "kvevent-subscriber"),
                    "kvevent-subscriber",
                    waiting(LOOP))),
            false),
        arguments(
            "a side container of the adapter's pod loops",
            List.of(withStatus(pod("p0", "u1", "vllm", "proxy"), "proxy", waiting(LOOP))),
            false),
        arguments(
            "no engine container to tell",
            List.of(withStatus(pod("p0", "u1", "a", "b"), "a", waiting(LOOP))),
            false),
        arguments(
            "engine waiting for another reason",
            List.of(withStatus(pod("p0", "u1", "vllm"), "vllm", waiting("ContainerCreating"))),
            false),
        arguments(
            "engine running",
            List.of(withStatus(pod("p0", "u1", "vllm"), "vllm", running())),
            false),
        arguments("no container status yet", List.of(pod("p0", "u1", "vllm")), false),
        arguments("no pods", List.of(), false));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("table")
  void crashLoopingEngineContainersAndNothingElseSetTheCondition(
      final String caseName, final List<V1Pod> pods, final boolean looping) {
    final ReadyRules.Verdict v = EngineCompatibilityVerdict.evaluate(backend(), pods);
    if (!looping) {
      assertThat(v).isNull();
      return;
    }
    assertThat(v.status()).isEqualTo("False");
    assertThat(v.reason()).isEqualTo("InjectedEngineCrashLooping");
  }

  @Test
  void theMessageNamesTheFirstPodAndCountsTheOthers() {
    assertThat(
            EngineCompatibilityVerdict.evaluate(
                    backend(), List.of(withStatus(pod("p0", "u1", "vllm"), "vllm", waiting(LOOP))))
                .message())
        .isEqualTo(
            "engine container \"vllm\" of pod ns/p0 is in CrashLoopBackOff; the injected engine"
                + " configuration may not suit this engine image (kubectl logs --previous shows"
                + " why it exits)");
    assertThat(
            EngineCompatibilityVerdict.evaluate(
                    backend(),
                    List.of(
                        withStatus(pod("p0", "u1", "vllm"), "vllm", waiting(LOOP)),
                        withStatus(pod("p1", "u1", "vllm"), "vllm", waiting(LOOP))))
                .message())
        .startsWith(
            "engine container \"vllm\" of pod ns/p0 is in CrashLoopBackOff (2 pods: [ns/p0,"
                + " ns/p1]);");
  }

  @Test
  void onlyPodsStampedWithTheBackendsNameAndUidAreOwned() {
    final V1Pod mine = pod("mine", "u1", "vllm");
    final V1Pod earlierCr = pod("earlier", "u0", "vllm");
    final V1Pod otherCr =
        pod("other", "u1", "vllm")
            .metadata(
                new V1ObjectMeta()
                    .namespace("ns")
                    .name("other")
                    .annotations(
                        Map.of(Backends.INJECTED_BY, "ns/cb2", Backends.INJECTED_BY_UID, "u1")));
    final V1Pod unstamped =
        pod("plain", "u1", "vllm").metadata(new V1ObjectMeta().namespace("ns").name("plain"));
    assertThat(OwnedEnginePods.owned(backend(), List.of(mine, earlierCr, otherCr, unstamped)))
        .containsExactly(mine);
  }

  @Test
  void aFailedListLeavesTheConditionAndARecoveryRemovesIt() {
    final CacheBackend.Status st = new CacheBackend.Status();
    final CacheBackend cr = backend();
    EngineCompatibilityVerdict.apply(
        cr, st, List.of(withStatus(pod("p0", "u1", "vllm"), "vllm", waiting(LOOP))), 2, T0);
    assertThat(Conditions.reason(st.conditions, EngineCompatibilityVerdict.TYPE))
        .isEqualTo("InjectedEngineCrashLooping");
    EngineCompatibilityVerdict.apply(cr, st, null, 2, T0);
    assertThat(Conditions.is(st.conditions, EngineCompatibilityVerdict.TYPE, "False")).isTrue();
    EngineCompatibilityVerdict.apply(
        cr, st, List.of(withStatus(pod("p0", "u1", "vllm"), "vllm", running())), 2, T0);
    assertThat(Conditions.get(st.conditions, EngineCompatibilityVerdict.TYPE)).isNull();
  }
}
