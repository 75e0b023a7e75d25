package io.inferencecache.engine.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNullPointerException;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The version window and the version normalization of docs/behaviour.md#policy 281–286). */
class PolicySnapshotTest {

  private static PolicySnapshot snapshot(final int version, final PolicySpec... policies) {
    return new PolicySnapshot(version, List.of(policies), List.of());
  }

  private static PolicySpec only(final PolicySnapshot snapshot) {
    assertThat(snapshot.policies()).hasSize(1);
    return snapshot.policies().get(0);
  }

  @Test
  void propagationVersionIsSevenAndMinimumAcceptedIsThree() {
    assertThat(PolicySnapshot.PROPAGATION_VERSION).isEqualTo(7);
    assertThat(PolicySnapshot.MINIMUM_ACCEPTED_VERSION).isEqualTo(3);
  }

  @ParameterizedTest
  @ValueSource(ints = {3, 4, 5, 6, 7})
  void versionsThreeToSevenAreSupported(final int version) {
    assertThat(PolicySnapshot.isSupportedVersion(version)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(ints = {Integer.MIN_VALUE, -1, 0, 1, 2, 8, 99, Integer.MAX_VALUE})
  void versionsOutsideTheWindowAreRejected(final int version) {
    assertThat(PolicySnapshot.isSupportedVersion(version)).isFalse();
  }

  @Test
  void v3BodyIsNormalizedToEveryDefaultAndKeepsItsOtherKnobs() {
    final PolicySnapshot v3 =
        new PolicySnapshot(
            3,
            List.of(
                PolicySpec.builder("team-a")
                    .evictionTTLNanos(900_000_000_000L)
                    .minimumPrefixTokens(32)
                    .lookupTimeoutMs(25)
                    .eviction("lfu")
                    .build(),
                PolicySpec.builder("team-b").evictionTTLNanos(3_600_000_000_000L).build()),
            List.of(new TenantSpec("team-a", 100_000, "Fairness")));

    final PolicySnapshot normalized = v3.normalized();

    assertThat(normalized.version()).isEqualTo(3);
    assertThat(normalized.tenants()).isEqualTo(v3.tenants());
    assertThat(normalized.policies())
        .containsExactly(
            PolicySpec.builder("team-a")
                .evictionTTLNanos(900_000_000_000L)
                .minimumPrefixTokens(32)
                .minimumMatchedTokens(64)
                .routingFloorScore(0.1f)
                .lookupTimeoutMs(25)
                .affinityRouting(true)
                .eviction("lfu")
                .strategy(new StrategySpec(true, false, true))
                .build(),
            PolicySpec.builder("team-b")
                .evictionTTLNanos(3_600_000_000_000L)
                .minimumMatchedTokens(64)
                .routingFloorScore(0.1f)
                .affinityRouting(true)
                .strategy(new StrategySpec(true, false, true))
                .build());
  }

  @Test
  void v3KeepsANonZeroMatchedFloor() {
    final PolicySpec p =
        only(snapshot(3, PolicySpec.builder("a").minimumMatchedTokens(256).build()).normalized());
    assertThat(p.minimumMatchedTokens()).isEqualTo(256);
  }

  @Test
  void v4ExplicitZeroMatchedFloorIsPreservedAndRoutingFloorNormalized() {
    final PolicySpec p =
        only(
            snapshot(4, PolicySpec.builder("raw-recall").minimumMatchedTokens(0).build())
                .normalized());
    assertThat(p.minimumMatchedTokens()).isZero();
    assertThat(p.routingFloorScore()).isEqualTo(0.1f);
    assertThat(ResolvedPolicy.of(p).minimumMatchedTokens()).isZero();
    assertThat(ResolvedPolicy.of(p).routingFloorScore()).isEqualTo(0.1f);
  }

  @Test
  void v4ExplicitRoutingFloorIsKept() {
    final PolicySpec p =
        only(snapshot(4, PolicySpec.builder("a").routingFloorScore(0f).build()).normalized());
    assertThat(p.routingFloorScore()).isEqualTo(0f);
  }

  @Test
  void v5ExplicitRoutingFloorZeroIsPreserved() {
    final PolicySpec p =
        only(
            snapshot(5, PolicySpec.builder("raw-recall").routingFloorScore(0f).build())
                .normalized());
    assertThat(p.routingFloorScore()).isEqualTo(0f);
    assertThat(ResolvedPolicy.of(p).routingFloorScore()).isZero();
  }

  @Test
  void v5AbsentRoutingFloorStaysAbsentAndResolvesToDefault() {
    final PolicySpec p = only(snapshot(5, PolicySpec.builder("a").build()).normalized());
    assertThat(p.routingFloorScore()).isNull();
    assertThat(ResolvedPolicy.of(p).routingFloorScore()).isEqualTo(0.1f);
  }

  @Test
  void v5MissingStrategyAndStrategyMembersAreFilledWithDefaults() {
    final PolicySnapshot v5 =
        snapshot(
            5,
            PolicySpec.builder("none").build(),
            PolicySpec.builder("partial").strategy(new StrategySpec(null, true, null)).build());
    final List<PolicySpec> normalized = v5.normalized().policies();
    assertThat(normalized.get(0).strategy()).isEqualTo(new StrategySpec(true, false, true));
    assertThat(normalized.get(1).strategy()).isEqualTo(new StrategySpec(true, true, true));
  }

  @Test
  void v6AbsentStrategyStaysAbsentAndAffinityIsNormalized() {
    final PolicySpec p = only(snapshot(6, PolicySpec.builder("a").build()).normalized());
    assertThat(p.strategy()).isNull();
    assertThat(p.affinityRouting()).isTrue();
    assertThat(p.minimumMatchedTokens()).isZero();
    assertThat(p.routingFloorScore()).isNull();
  }

  @Test
  void v6ExplicitAffinityOptOutIsKept() {
    final PolicySpec p =
        only(snapshot(6, PolicySpec.builder("a").affinityRouting(false).build()).normalized());
    assertThat(p.affinityRouting()).isFalse();
  }

  @Test
  void explicitStrategyIsPreservedInEveryVersion() {
    final StrategySpec explicit = new StrategySpec(false, true, false);
    for (int version = 3; version <= 7; version++) {
      final PolicySpec p =
          only(snapshot(version, PolicySpec.builder("a").strategy(explicit).build()).normalized());
      assertThat(p.strategy()).as("v%d", version).isEqualTo(explicit);
      final ResolvedPolicy r = ResolvedPolicy.of(p);
      assertThat(r.enableChainMatching()).isFalse();
      assertThat(r.requireChain()).isTrue();
      assertThat(r.enableTenantHot()).isFalse();
    }
  }

  @Test
  void v7IsReturnedUnchangedWithExplicitOptOuts() {
    final PolicySnapshot v7 =
        snapshot(
            7,
            PolicySpec.builder("a").build(),
            PolicySpec.builder("b")
                .minimumMatchedTokens(0)
                .routingFloorScore(0f)
                .affinityRouting(false)
                .strategy(new StrategySpec(null, null, false))
                .build());
    assertThat(v7.normalized()).isSameAs(v7);
    final PolicySpec absent = v7.policies().get(0);
    assertThat(absent.routingFloorScore()).isNull();
    assertThat(absent.affinityRouting()).isNull();
    assertThat(absent.strategy()).isNull();
  }

  @Test
  void normalizationIsIdempotent() {
    for (int version = 3; version <= 7; version++) {
      final PolicySnapshot once =
          snapshot(version, PolicySpec.builder("a").build(), PolicySpec.builder("b").build())
              .normalized();
      assertThat(once.normalized()).as("v%d", version).isEqualTo(once);
    }
  }

  @Test
  void listsAreCopiedAndNullListsAreEmpty() {
    final List<PolicySpec> policies = new ArrayList<>(List.of(PolicySpec.builder("a").build()));
    final PolicySnapshot snapshot = new PolicySnapshot(7, policies, null);
    policies.clear();
    assertThat(snapshot.policies()).hasSize(1);
    assertThat(snapshot.tenants()).isEmpty();
    assertThat(new PolicySnapshot(7, null, null).policies()).isEmpty();
    assertThatNullPointerException()
        .isThrownBy(() -> new PolicySnapshot(7, Arrays.asList((PolicySpec) null), null));
  }

  @Test
  void emptySnapshotIsTheCurrentVersionWithNothingInIt() {
    assertThat(PolicySnapshot.EMPTY.version()).isEqualTo(7);
    assertThat(PolicySnapshot.EMPTY.policies()).isEmpty();
    assertThat(PolicySnapshot.EMPTY.tenants()).isEmpty();
  }
}
