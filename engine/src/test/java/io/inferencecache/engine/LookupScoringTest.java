package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.T0;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.minutes;
import static io.inferencecache.engine.IndexFixtures.seconds;
import static io.inferencecache.engine.IndexFixtures.specDp;
import static io.inferencecache.engine.IndexFixtures.specFreshness;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Exact-path lookup and scoring (docs/behaviour.md#lookup-walk, docs/behaviour.md#scores; checklist
 * 8, 47–50, 68–70, 89–93, 112–115, docs/behaviour.md#lookup-walk and
 * docs/behaviour.md#index-model).
 */
class LookupScoringTest extends IndexTestSupport {
  private static final long TTL = IndexConfig.TTL_DEFAULT_NS;

  static void assertBits(final float actual, final float expected) {
    assertThat(Float.floatToRawIntBits(actual))
        .as("score %s (bits) vs expected %s", actual, expected)
        .isEqualTo(Float.floatToRawIntBits(expected));
  }

  /** A replica serving another key in the scope, so the scope has {@code n} replicas. */
  private void fillScope(final String... others) {
    for (String o : others) {
      ingest(update("t", "m", "vllm", o).legacy("other-" + o, 64));
    }
  }

  @Test
  void returnsNoScoresForAnUnknownPrefix() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 100));
    assertThat(plain(exactReq("t", "m", "vllm", "p2", 100)).size()).isZero();
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(route(exactReq("t", "m", "vllm", "p2", 100)).size()).isZero();
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
  }

  @Test
  void legacyExactMatchReturnsTheHolderWithTokensFreshnessAndTier() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 100));
    plain(exactReq("t", "m", "vllm", "p1", 100));
    assertThat(r.outcome()).isEqualTo(Outcome.PREFIX_MATCH);
    assertThat(names(r)).containsExactly("r1");
    assertBits(r.score(0), 100f);
    assertThat(r.matchedTokens(0)).isEqualTo(100);
    assertBits(r.estimatedCacheHitProb(0), 1f);
    assertThat(r.tier(0)).isEqualTo(Tier.T1);
  }

  @Test
  void ranksByTokensThenLetsAFreshSmallerHolderBeatAStaleLargerOne() {
    policies.ttl.put("t", minutes(60));
    ingest(update("t", "m", "vllm", "big").legacy("p", 100));
    ingest(update("t", "m", "vllm", "small").legacy("p", 50));
    fillScope("x"); // 2 of 3 replicas hold p: factor 1/3 on both
    final float dp = specDp(2, 3);
    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(names(r)).containsExactly("big", "small");
    assertBits(r.score(0), (float) 100 * 1f * 1f * 1f * dp);
    assertBits(r.score(1), (float) 50 * 1f * 1f * 1f * dp);

    clock.advance(50, java.util.concurrent.TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "small").legacy("p", 50));
    ingest(update("t", "m", "vllm", "x").legacy("other-x", 64));
    final float stale = specFreshness(minutes(50), minutes(60));
    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(names(r)).containsExactly("small", "big");
    assertBits(r.score(0), (float) 50 * 1f * 1f * 1f * dp);
    assertBits(r.score(1), (float) 100 * stale * 1f * 1f * dp);
    assertThat((float) 100 * stale).isLessThan(50f);
    assertBits(r.estimatedCacheHitProb(1), stale);
  }

  @Test
  void reingestingTheSameEntryIsIdempotent() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 100));
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 100));
    route(exactReq("t", "m", "vllm", "p1", 100));
    assertThat(r.size()).isEqualTo(1);
    assertThat(index.totalEntries()).isEqualTo(1);
    assertThat(index.totalKeys()).isEqualTo(1);
  }

  @Test
  void reingestOverwritesTokenCountTierAndLastSeen() {
    ingest(update("t", "m", "vllm", "r1").legacyTier("p1", 100, Tier.T2));
    clock.advance(10, java.util.concurrent.TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacyTier("p1", 40, Tier.T3));
    route(exactReq("t", "m", "vllm", "p1", 0));
    assertThat(r.matchedTokens(0)).isEqualTo(40);
    assertThat(r.tier(0)).isEqualTo(Tier.T3);
    assertBits(r.score(0), 40f);
  }

  @Test
  void scoresZeroWhenEveryReplicaOfTheScopeHoldsThePrefix() {
    for (String rep : List.of("r1", "r2", "r3")) {
      ingest(update("t", "m", "vllm", rep).legacy("p", 64));
    }
    route(exactReq("t", "m", "vllm", "p", 64));
    assertThat(r.outcome()).isEqualTo(Outcome.PREFIX_MATCH);
    assertThat(names(r)).containsExactly("r1", "r2", "r3");
    for (int i = 0; i < 3; i++) {
      assertBits(r.score(i), 0f);
      assertThat(r.matchedTokens(i)).isEqualTo(64);
    }
  }

  @Test
  void scoresTwoThirdsOfTheTokensWhenOneOfThreeReplicasHoldsThePrefix() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    fillScope("r2", "r3");
    route(exactReq("t", "m", "vllm", "p", 64));
    assertThat(names(r)).containsExactly("r1");
    assertBits(r.score(0), (float) 64 * 1f * 1f * 1f * (float) (1.0 - 1.0 / 3.0));
    assertThat(r.score(0)).isCloseTo(42.7f, org.assertj.core.data.Offset.offset(0.05f));
  }

  @Test
  void scoresOneThirdEquallyWhenTwoOfThreeReplicasHoldThePrefix() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r2").legacy("p", 64));
    fillScope("r3");
    route(exactReq("t", "m", "vllm", "p", 64));
    assertThat(names(r)).containsExactly("r1", "r2");
    assertBits(r.score(0), (float) 64 * (float) (1.0 - 2.0 / 3.0));
    assertBits(r.score(1), r.score(0));
  }

  @Test
  void singleReplicaScopeKeepsTheBaselineScore() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    clock.advance(10, java.util.concurrent.TimeUnit.MINUTES);
    route(exactReq("t", "m", "vllm", "p", 64));
    final float f = specFreshness(minutes(10), TTL);
    assertBits(r.score(0), (float) 64 * f);
    assertBits(r.estimatedCacheHitProb(0), f);
  }

  @Test
  void distinguishingPowerDenominatorCountsStaleButUnsweptReplicas() {
    ingest(update("t", "m", "vllm", "old").at(T0 - minutes(40)).legacy("q", 64));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    route(exactReq("t", "m", "vllm", "p", 64));
    assertBits(r.score(0), (float) 64 * specDp(1, 2));
    index.sweepExpired();
    route(exactReq("t", "m", "vllm", "p", 64));
    assertBits(r.score(0), 64f);
  }

  @Test
  void usesTheStoredTokenCountNotTheRequestsOnTheExactPath() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100));
    route(exactReq("t", "m", "vllm", "p", 7));
    assertThat(r.matchedTokens(0)).isEqualTo(100);
    assertBits(r.score(0), 100f);
  }

  @Test
  void returnsZeroTokenHoldersWithScoreZero() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 0));
    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(r.outcome()).isEqualTo(Outcome.PREFIX_MATCH);
    assertThat(names(r)).containsExactly("r1");
    assertBits(r.score(0), 0f);
    assertThat(r.matchedTokens(0)).isZero();
  }

  @Test
  void emptyPrefixHashIsAnOrdinaryLegacyKey() {
    ingest(update("t", "m", "vllm", "r1").legacy("", 32));
    route(exactReq("t", "m", "vllm", "", 0));
    assertThat(names(r)).containsExactly("r1");
    assertThat(r.matchedTokens(0)).isEqualTo(32);
  }

  @Test
  void sameBytesUnderAnotherHashSchemeDoNotMatch() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    assertThat(plain(exactReq("t", "m", "sglang", "p", 64)).size()).isZero();
    assertThat(route(exactReq("t", "m", "sglang", "p", 64)).size()).isZero();
  }

  @Test
  void identicalBytesUnderVllmAndSglangNeverCrossEngines() {
    ingest(update("t", "m", "vllm", "rv").legacy("p", 64));
    ingest(update("t", "m", "sglang", "rs").legacy("p", 48));
    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(names(r)).containsExactly("rv");
    assertBits(r.score(0), 64f); // each scheme is its own one-replica scope
    route(exactReq("t", "m", "sglang", "p", 0));
    assertThat(names(r)).containsExactly("rs");
    assertBits(r.score(0), 48f);
  }

  @Test
  void emptyHashSchemeIndexesNothingAndLooksUpNothing() {
    ingest(update("t", "m", "", "r1").legacy("p", 64));
    assertThat(index.totalKeys()).isZero();
    assertThat(index.totalEntries()).isZero();
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    assertThat(plain(exactReq("t", "m", "", "p", 64)).size()).isZero();
    assertThat(route(exactReq("t", "m", "", "p", 64)).outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void anotherTenantNeverSeesTheEntry() {
    ingest(update("a", "m", "vllm", "r1").legacy("p", 64));
    assertThat(plain(exactReq("b", "m", "vllm", "p", 64)).size()).isZero();
    route(exactReq("b", "m", "vllm", "p", 64));
    assertThat(r.size()).isZero();
    assertThat(r.outcome()).isEqualTo(Outcome.UNKNOWN_TENANT);
  }

  @Test
  void pressureAndSloFactorsCollapseToOneWithoutSignals() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100));
    clock.advance(6, java.util.concurrent.TimeUnit.MINUTES);
    final float f = specFreshness(minutes(6), TTL);
    route(exactReq("t", "m", "vllm", "p", 0));
    assertBits(r.score(0), (float) 100 * f);
    // a loose SLO (not under the tight threshold) changes nothing either
    route(exactReq("t", "m", "vllm", "p", 0).ttftMs(IndexConfig.SLO_TIGHT_TTFT_MS_DEFAULT));
    assertBits(r.score(0), (float) 100 * f);
    route(exactReq("t", "m", "vllm", "p", 0).ttftMs(5_000));
    assertBits(r.score(0), (float) 100 * f);
  }

  @Test
  void highPressureHolderYieldsToALowerPressurePeer() {
    // one tenant per case: {pressure of the 100-token holder, expected winner}
    final Object[][] cases = {
      {0.9f, "cool"}, // 100 x 0.1 = 10 < 50
      {0.2f, "hot"}, // 100 x 0.8 = 80 > 50
      {1.5f, "cool"}, // factor clamped to 0
      {0.0f, "hot"},
    };
    for (int c = 0; c < cases.length; c++) {
      final String t = "t" + c;
      final float pressure = (Float) cases[c][0];
      ingest(update(t, "m", "vllm", "hot").legacy("p", 100).stats(0.5f, pressure));
      ingest(update(t, "m", "vllm", "cool").legacy("p", 50));
      ingest(update(t, "m", "vllm", "third").legacy("q", 50));
      final float dp = specDp(2, 3);
      float pf = 1f - 1f * pressure;
      pf = pf < 0f ? 0f : Math.min(pf, 1f);
      route(exactReq(t, "m", "vllm", "p", 0));
      assertThat(names(r).get(0)).as("case %s", c).isEqualTo(cases[c][1]);
      final int hot = names(r).indexOf("hot");
      final int cool = names(r).indexOf("cool");
      assertBits(r.score(hot), (float) 100 * 1f * pf * 1f * dp);
      assertBits(r.score(cool), (float) 50 * 1f * 1f * 1f * dp);
    }
    assertThat((float) 100 * (1f - 1f * 0.9f)).isLessThan(50f);
  }

  @Test
  void pressureWeightScalesThePenalty() {
    reopen(baseConfig().pressureWeight(0.5f));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100).stats(0.5f, 0.9f));
    route(exactReq("t", "m", "vllm", "p", 0));
    assertBits(r.score(0), (float) 100 * 1f * (1f - 0.5f * 0.9f) * 1f);
  }

  @Test
  void ignoresThePressureOfStatsOlderThanTheTtl() {
    ingest(update("t", "m", "vllm", "r1").stats(0.5f, 0.9f));
    clock.advance(29, java.util.concurrent.TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100));
    route(exactReq("t", "m", "vllm", "p", 0));
    assertBits(r.score(0), (float) 100 * 1f * (1f - 1f * 0.9f) * 1f);

    clock.advance(1, java.util.concurrent.TimeUnit.MINUTES); // stats now exactly TTL old
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100));
    route(exactReq("t", "m", "vllm", "p", 0));
    assertBits(r.score(0), 100f);
  }

  @Test
  void tightTtftFlipsTheOrderTowardsTheFresherReplica() {
    ingest(update("t", "m", "vllm", "old").legacy("p", 100));
    clock.advance(60, java.util.concurrent.TimeUnit.SECONDS);
    ingest(update("t", "m", "vllm", "fresh").legacy("p", 96));
    ingest(update("t", "m", "vllm", "x").legacy("q", 1));
    final float fOld = specFreshness(seconds(60), TTL);
    final float dp = specDp(2, 3);

    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(names(r)).containsExactly("old", "fresh");
    assertBits(r.score(0), (float) 100 * fOld * 1f * (1f + fOld * 0f) * dp);
    assertBits(r.score(1), (float) 96 * 1f * 1f * (1f + 1f * 0f) * dp);

    route(exactReq("t", "m", "vllm", "p", 0).ttftMs(100)); // 0 < 100 < 200: coefficient 1
    assertThat(names(r)).containsExactly("fresh", "old");
    final float fresh = (float) 96 * 1f * 1f * (1f + 1f * 1f) * dp;
    final float old = (float) 100 * fOld * 1f * (1f + fOld * 1f) * dp;
    assertBits(r.score(0), fresh);
    assertBits(r.score(1), old);
    assertThat(fresh).isGreaterThan(old);
  }

  @Test
  void sloBiasIsDisabledWhenTheKnobsAreZero() {
    for (IndexConfig cfg : List.of(baseConfig().sloTightBias(0f), baseConfig().sloTightTtftMs(0))) {
      reopen(cfg);
      ingest(update("t", "m", "vllm", "old").legacy("p", 100));
      clock.advance(60, java.util.concurrent.TimeUnit.SECONDS);
      ingest(update("t", "m", "vllm", "fresh").legacy("p", 96));
      ingest(update("t", "m", "vllm", "x").legacy("q", 1));
      route(exactReq("t", "m", "vllm", "p", 0));
      final List<String> order = names(r);
      final float s0 = r.score(0);
      final float s1 = r.score(1);
      route(exactReq("t", "m", "vllm", "p", 0).ttftMs(100));
      assertThat(names(r)).isEqualTo(order).containsExactly("old", "fresh");
      assertBits(r.score(0), s0);
      assertBits(r.score(1), s1);
    }
  }

  @Test
  void sloBiasUsesTheConfiguredBias() {
    reopen(baseConfig().sloTightBias(0.5f).sloTightTtftMs(50));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100));
    clock.advance(3, java.util.concurrent.TimeUnit.MINUTES);
    final float f = specFreshness(minutes(3), TTL);
    route(exactReq("t", "m", "vllm", "p", 0).ttftMs(49));
    assertBits(r.score(0), (float) 100 * f * 1f * (1f + f * 0.5f));
    route(exactReq("t", "m", "vllm", "p", 0).ttftMs(50));
    assertBits(r.score(0), (float) 100 * f);
  }

  @Test
  void breaksScoreTiesByReplicaIdInUnsignedByteOrder() {
    // UTF-16 order would put the emoji (a surrogate pair) before U+FFFF, signed bytes would put
    // the non-ASCII names before "z"; unsigned UTF-8 order is z < é < U+FFFF < emoji.
    final List<String> ids = List.of("\uD83D\uDE00", "\uFFFF", "z", "\u00E9");
    for (String id : ids) {
      ingest(update("t", "m", "vllm", id).legacy("p", 64));
    }
    fillScope("a");
    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(names(r)).containsExactly("z", "\u00E9", "\uFFFF", "\uD83D\uDE00");
  }

  @Test
  void ordersByScoreDescending() {
    ingest(update("t", "m", "vllm", "a").legacy("p", 10));
    ingest(update("t", "m", "vllm", "b").legacy("p", 30));
    ingest(update("t", "m", "vllm", "c").legacy("p", 20));
    fillScope("d");
    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(names(r)).containsExactly("b", "c", "a");
  }

  @Test
  void hidesHoldersWhoseFreshnessReachedZero() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    clock.advance(10, java.util.concurrent.TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r2").legacy("p", 64));
    fillScope("r3");
    clock.advance(20, java.util.concurrent.TimeUnit.MINUTES); // r1 exactly TTL old
    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(names(r)).containsExactly("r2");
    // only the one fresh holder counts as matching: 1 of 3
    assertBits(r.score(0), (float) 64 * specFreshness(minutes(20), TTL) * specDp(1, 3));
  }

  @Test
  void lookupsNeverRefreshLastSeen() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    for (int i = 0; i < 30; i++) {
      clock.advance(1, java.util.concurrent.TimeUnit.MINUTES);
      route(exactReq("t", "m", "vllm", "p", 0));
      plain(exactReq("t", "m", "vllm", "p", 0));
    }
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).size()).isZero();
    assertThat(index.sweepExpired()).isEqualTo(1);
  }

  @Test
  void resolvesKeysGivenAsUtf8BufferViewsExactlyLikeStrings() {
    final String tenant = "t\u00E9nant-\uD83D\uDE00";
    final String model = "mod\u00E8le-\u4E2D";
    final String adapter = "lo\u0301ra";
    ingest(
        update(tenant, model, "vllm", "r\u00E9").adapter(adapter).legacy("p", 64).chain(16, "b0"));
    final byte[] bytes =
        (tenant + model + "vllm" + adapter + "p" + "b0")
            .getBytes(java.nio.charset.StandardCharsets.UTF_8);
    final org.agrona.concurrent.UnsafeBuffer buf = new org.agrona.concurrent.UnsafeBuffer(bytes);
    final int t = IndexFixtures.h(tenant).length;
    final int m = IndexFixtures.h(model).length;
    final int a = IndexFixtures.h(adapter).length;
    final LookupRequest q = new LookupRequest().reset();
    q.tenant().set(buf, 0, t);
    q.model().set(buf, t, m);
    q.hashScheme().set(buf, t + m, 4);
    q.adapter().set(buf, t + m + 4, a);
    q.exact(buf, t + m + 4 + a, 1, 64);
    assertThat(names(route(q))).containsExactly("r\u00E9");
    assertBits(r.score(0), 64f);
    q.addBlockHash(buf, t + m + 4 + a + 1, 2).addBlockTokenCount(16);
    assertThat(names(route(q))).containsExactly("r\u00E9");
    assertThat(r.matchedTokens(0)).isEqualTo(16);
    assertThat(index.idOf(q.tenant())).isEqualTo(index.idOf(tenant)).isNotNegative();
  }
}
