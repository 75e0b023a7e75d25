package io.inferencecache.engine.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Resolution of one stored policy (docs/behaviour.md#policy) and the no-policy defaults
 * (docs/behaviour.md#policy-resolution).
 */
class ResolvedPolicyTest {

  private static ResolvedPolicy resolve(final PolicySpec.Builder builder) {
    return ResolvedPolicy.of(builder.build());
  }

  private static PolicySpec.Builder policy() {
    return PolicySpec.builder("team-a");
  }

  @Test
  void defaultsAreTheNoPolicyValues() {
    final ResolvedPolicy d = ResolvedPolicy.DEFAULTS;
    assertThat(d.explicit()).isFalse();
    assertThat(d.ttlNanos()).isEqualTo(30L * 60 * 1_000_000_000L).isEqualTo(1_800_000_000_000L);
    assertThat(d.explicitTtl()).isFalse();
    assertThat(d.minimumPrefixTokens()).isZero();
    assertThat(d.minimumMatchedTokens()).isEqualTo(64);
    assertThat(d.routingFloorScore()).isEqualTo(0.1f);
    assertThat(d.lookupTimeoutMs()).isZero();
    assertThat(d.affinityRouting()).isTrue();
    assertThat(d.eviction()).isEqualTo(EvictionAlgorithm.LRU);
    assertThat(d.enableChainMatching()).isTrue();
    assertThat(d.requireChain()).isFalse();
    assertThat(d.enableTenantHot()).isTrue();
  }

  @Test
  void emptyPolicyDisablesTheMatchedFloorButKeepsOtherDefaults() {
    final ResolvedPolicy r = resolve(policy());
    assertThat(r.explicit()).isTrue();
    assertThat(r.ttlNanos()).isEqualTo(ResolvedPolicy.TTL_NANOS_DEFAULT);
    assertThat(r.minimumPrefixTokens()).isZero();
    assertThat(r.minimumMatchedTokens()).isZero();
    assertThat(r.routingFloorScore()).isEqualTo(0.1f);
    assertThat(r.lookupTimeoutMs()).isZero();
    assertThat(r.affinityRouting()).isTrue();
    assertThat(r.eviction()).isEqualTo(EvictionAlgorithm.LRU);
    assertThat(r.enableChainMatching()).isTrue();
    assertThat(r.requireChain()).isFalse();
    assertThat(r.enableTenantHot()).isTrue();
  }

  @Test
  void everyFieldAsWrittenIsCarried() {
    final ResolvedPolicy r =
        resolve(
            policy()
                .evictionTTLNanos(900_000_000_000L)
                .minimumPrefixTokens(32)
                .minimumMatchedTokens(128)
                .routingFloorScore(5f)
                .lookupTimeoutMs(25)
                .affinityRouting(false)
                .eviction("lfu")
                .strategy(new StrategySpec(false, true, false)));
    assertThat(r.ttlNanos()).isEqualTo(900_000_000_000L);
    assertThat(r.explicitTtl()).isTrue();
    assertThat(r.minimumPrefixTokens()).isEqualTo(32);
    assertThat(r.minimumMatchedTokens()).isEqualTo(128);
    assertThat(r.routingFloorScore()).isEqualTo(5f);
    assertThat(r.lookupTimeoutMs()).isEqualTo(25);
    assertThat(r.affinityRouting()).isFalse();
    assertThat(r.eviction()).isEqualTo(EvictionAlgorithm.LFU);
    assertThat(r.enableChainMatching()).isFalse();
    assertThat(r.requireChain()).isTrue();
    assertThat(r.enableTenantHot()).isFalse();
  }

  @Test
  void nonPositiveEvictionTtlFallsBackToThirtyMinutes() {
    assertThat(resolve(policy().evictionTTLNanos(0)).ttlNanos())
        .isEqualTo(ResolvedPolicy.TTL_NANOS_DEFAULT);
    final ResolvedPolicy negative = resolve(policy().evictionTTLNanos(-5));
    assertThat(negative.ttlNanos()).isEqualTo(ResolvedPolicy.TTL_NANOS_DEFAULT);
    assertThat(negative.explicitTtl()).isFalse();
  }

  @Test
  void ttlNanosOrPrefersThePolicyTtlOverTheIndexGlobal() {
    final long oneHour = 3_600_000_000_000L;
    assertThat(resolve(policy().evictionTTLNanos(300_000_000_000L)).ttlNanosOr(oneHour))
        .isEqualTo(300_000_000_000L);
    assertThat(resolve(policy()).ttlNanosOr(oneHour)).isEqualTo(oneHour);
    assertThat(ResolvedPolicy.DEFAULTS.ttlNanosOr(oneHour)).isEqualTo(oneHour);
  }

  @Test
  void negativeGatesAndTimeoutMeanOff() {
    final ResolvedPolicy r = resolve(policy().minimumPrefixTokens(-3).lookupTimeoutMs(-1));
    assertThat(r.minimumPrefixTokens()).isZero();
    assertThat(r.lookupTimeoutMs()).isZero();
  }

  @Test
  void minimumMatchedTokensNegativeClampsToZero() {
    assertThat(resolve(policy().minimumMatchedTokens(-10)).minimumMatchedTokens()).isZero();
  }

  @Test
  void routingFloorScoreResolution() {
    assertThat(resolve(policy().routingFloorScore(null)).routingFloorScore()).isEqualTo(0.1f);
    assertThat(resolve(policy().routingFloorScore(0f)).routingFloorScore()).isEqualTo(0f);
    assertThat(resolve(policy().routingFloorScore(100f)).routingFloorScore()).isEqualTo(100f);
    assertThat(resolve(policy().routingFloorScore(-1f)).routingFloorScore()).isEqualTo(0f);
    assertThat(resolve(policy().routingFloorScore(-0f)).routingFloorScore())
        .isEqualTo(0f)
        .matches(f -> Float.floatToIntBits(f) == 0, "positive zero");
    assertThat(resolve(policy().routingFloorScore(Float.NaN)).routingFloorScore()).isEqualTo(0f);
  }

  @Test
  void strategyMissingMembersTakeTheirDefaultsOneByOne() {
    assertThat(resolve(policy().strategy(new StrategySpec(null, null, null))))
        .isEqualTo(resolve(policy()));
    final ResolvedPolicy onlyRequire =
        resolve(policy().strategy(new StrategySpec(null, true, null)));
    assertThat(onlyRequire.enableChainMatching()).isTrue();
    assertThat(onlyRequire.requireChain()).isTrue();
    assertThat(onlyRequire.enableTenantHot()).isTrue();
    final ResolvedPolicy onlyHot = resolve(policy().strategy(new StrategySpec(null, null, false)));
    assertThat(onlyHot.enableChainMatching()).isTrue();
    assertThat(onlyHot.requireChain()).isFalse();
    assertThat(onlyHot.enableTenantHot()).isFalse();
  }

  @Test
  void equalSpecsResolveEqual() {
    final PolicySpec spec = policy().minimumPrefixTokens(7).eviction("LFU").build();
    assertThat(ResolvedPolicy.of(spec))
        .isEqualTo(ResolvedPolicy.of(spec))
        .hasSameHashCodeAs(ResolvedPolicy.of(spec))
        .isNotEqualTo(ResolvedPolicy.DEFAULTS);
    assertThat(ResolvedPolicy.of(spec).toString()).contains("eviction=lfu");
  }

  @Test
  void loadAwareRoutingIsOffUnlessWrittenAndEmptyMeansTheDefaults() {
    assertThat(ResolvedPolicy.DEFAULTS.loadAware()).isFalse();
    assertThat(ResolvedPolicy.DEFAULTS.rankedReplicas()).isEqualTo(1);
    assertThat(resolve(policy()).loadAware()).isFalse();
    final ResolvedPolicy on = resolve(policy().loadAwareRouting(LoadAwareSpec.DEFAULTS));
    assertThat(on.loadAware()).isTrue();
    assertThat(on.pressureTokens()).isEqualTo(ResolvedPolicy.PRESSURE_TOKENS_DEFAULT);
    assertThat(on.pressureBound()).isEqualTo(ResolvedPolicy.PRESSURE_BOUND_DEFAULT);
    assertThat(on.rankedReplicas()).isEqualTo(ResolvedPolicy.RANKED_REPLICAS_DEFAULT);
    assertThat(on.hintPressure()).isZero();
    assertThat(on).isNotEqualTo(resolve(policy()));
    assertThat(on.toString()).contains("loadAware{pressureTokens=4096");
  }

  @Test
  void loadAwareMembersAreClamped() {
    final ResolvedPolicy low =
        resolve(policy().loadAwareRouting(new LoadAwareSpec(-5, -1f, 0, Float.NaN)));
    assertThat(low.pressureTokens()).isZero();
    assertThat(low.pressureBound()).isEqualTo(ResolvedPolicy.PRESSURE_BOUND_DEFAULT);
    assertThat(low.rankedReplicas()).isEqualTo(ResolvedPolicy.RANKED_REPLICAS_DEFAULT);
    assertThat(low.hintPressure()).isZero();
    final ResolvedPolicy high =
        resolve(policy().loadAwareRouting(new LoadAwareSpec(100, 2.5f, 99, 0.125f)));
    assertThat(high.pressureTokens()).isEqualTo(100);
    assertThat(high.pressureBound()).isEqualTo(2.5f);
    assertThat(high.rankedReplicas()).isEqualTo(ResolvedPolicy.RANKED_REPLICAS_MAX);
    assertThat(high.hintPressure()).isEqualTo(0.125f);
  }

  @Test
  void theCostModelIsOffUnlessWrittenAndItsMembersAreClamped() {
    assertThat(ResolvedPolicy.DEFAULTS.costModel()).isFalse();
    assertThat(resolve(policy().loadAwareRouting(LoadAwareSpec.DEFAULTS)).costModel()).isFalse();
    final ResolvedPolicy on =
        resolve(policy().loadAwareRouting(LoadAwareSpec.costModel(CostModelSpec.DEFAULTS)));
    assertThat(on.loadAware()).isTrue();
    assertThat(on.costModel()).isTrue();
    assertThat(on.prefillTokensPerSecond())
        .isEqualTo(ResolvedPolicy.PREFILL_TOKENS_PER_SECOND_DEFAULT);
    assertThat(on.requestSeconds()).isEqualTo(ResolvedPolicy.REQUEST_SECONDS_DEFAULT);
    assertThat(on.slots()).isEqualTo(ResolvedPolicy.SLOTS_DEFAULT);
    assertThat(on.rankedReplicas()).isEqualTo(ResolvedPolicy.RANKED_REPLICAS_DEFAULT);
    assertThat(on.toString()).contains("costModel{prefillTokensPerSecond=10000.0");
    assertThat(on).isNotEqualTo(resolve(policy().loadAwareRouting(LoadAwareSpec.DEFAULTS)));
    final ResolvedPolicy bad =
        resolve(
            policy()
                .loadAwareRouting(
                    LoadAwareSpec.costModel(
                        new CostModelSpec(Float.NaN, Float.POSITIVE_INFINITY, 0))));
    assertThat(bad.prefillTokensPerSecond())
        .isEqualTo(ResolvedPolicy.PREFILL_TOKENS_PER_SECOND_DEFAULT);
    assertThat(bad.requestSeconds()).isEqualTo(ResolvedPolicy.REQUEST_SECONDS_DEFAULT);
    assertThat(bad.slots()).isEqualTo(ResolvedPolicy.SLOTS_DEFAULT);
    final PolicySpec.Builder written =
        policy()
            .loadAwareRouting(LoadAwareSpec.costModel(new CostModelSpec(20_000f, 1.5f, 1_000_000)));
    final ResolvedPolicy set = resolve(written);
    assertThat(set.prefillTokensPerSecond()).isEqualTo(20_000f);
    assertThat(set.requestSeconds()).isEqualTo(1.5f);
    assertThat(set.slots()).isEqualTo(ResolvedPolicy.SLOTS_MAX);
    assertThat(resolve(written)).isEqualTo(set).hasSameHashCodeAs(set);
  }

  @Test
  void olderBodiesKeepTheirLoadAwareField() {
    final PolicySpec spec = policy().loadAwareRouting(LoadAwareSpec.DEFAULTS).build();
    assertThat(
            new PolicySnapshot(5, List.of(spec), List.of())
                .normalized()
                .policies()
                .get(0)
                .loadAwareRouting())
        .isEqualTo(LoadAwareSpec.DEFAULTS);
  }
}
