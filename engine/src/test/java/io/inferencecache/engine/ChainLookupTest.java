package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.T0;
import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.h;
import static io.inferencecache.engine.IndexFixtures.minutes;
import static io.inferencecache.engine.IndexFixtures.specDp;
import static io.inferencecache.engine.IndexFixtures.specFreshness;
import static io.inferencecache.engine.IndexFixtures.update;
import static io.inferencecache.engine.LookupScoringTest.assertBits;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.internal.HolderLayout;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The chain walk (docs/behaviour.md#lookup-walk; checklist 51–53, 75, 104–111, 116, 117). */
class ChainLookupTest extends IndexTestSupport {
  private static final long TTL = IndexConfig.TTL_DEFAULT_NS;

  @Test
  void returnsTheLongestCommonPrefixPerReplica() {
    ingest(update("t", "m", "vllm", "a").chain(16, "b0", "b1", "b2", "x3", "x4"));
    ingest(update("t", "m", "vllm", "b").chain(16, "b0", "y1", "y2", "y3", "y4"));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2", "b3", "b4"));
    assertThat(r.outcome()).isEqualTo(Outcome.PREFIX_MATCH);
    assertThat(names(r)).containsExactly("a", "b");
    assertThat(r.matchedTokens(0)).isEqualTo(48);
    assertThat(r.matchedTokens(1)).isEqualTo(16);
    assertBits(r.score(0), (float) 48 * specDp(1, 2));
    assertBits(r.score(1), (float) 16 * specDp(2, 2));
  }

  @Test
  void fullChainMatchSumsEveryRequestBlockCount() {
    ingest(update("t", "m", "vllm", "a").chain(16, "b0", "b1", "b2", "b3", "b4"));
    route(
        new LookupRequest()
            .reset()
            .keys("t", "m", "vllm", "")
            .addBlockHash(h("b0"))
            .addBlockHash(h("b1"))
            .addBlockHash(h("b2"))
            .addBlockHash(h("b3"))
            .addBlockHash(h("b4"))
            .addBlockTokenCount(16)
            .addBlockTokenCount(16)
            .addBlockTokenCount(16)
            .addBlockTokenCount(16)
            .addBlockTokenCount(8));
    assertThat(names(r)).containsExactly("a");
    assertThat(r.matchedTokens(0)).isEqualTo(72);
    assertBits(r.score(0), 72f);
  }

  @Test
  void matchedTokensComeFromTheRequestCountsNotTheStoredOnes() {
    ingest(update("t", "m", "vllm", "a").chain(16, "b0", "b1", "b2"));
    route(chainReq("t", "m", "vllm", 10, "b0", "b1", "b2"));
    assertThat(r.matchedTokens(0)).isEqualTo(30);
    assertBits(r.score(0), 30f);
  }

  @Test
  void reportsTheColdestTierAcrossTheRun() {
    ingest(
        update("t", "m", "vllm", "a")
            .chainTier(Tier.T2, 16, "b0")
            .legacyTier("b1", 32, Tier.T1)
            .legacyTier("b2", 48, Tier.T1));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2"));
    assertThat(r.matchedTokens(0)).isEqualTo(48);
    assertThat(r.tier(0)).isEqualTo(Tier.T2);
    route(chainReq("t", "m", "vllm", 16, "b0"));
    assertThat(r.tier(0)).isEqualTo(Tier.T2);
  }

  @Test
  void worstTierPrefersTheLeastLocalAndUnspecifiedPoisons() {
    assertThat(HolderLayout.worstTier(Tier.T1, Tier.T3)).isEqualTo(Tier.T3);
    assertThat(HolderLayout.worstTier(Tier.T2, Tier.T1)).isEqualTo(Tier.T2);
    assertThat(HolderLayout.worstTier(Tier.UNSPECIFIED, Tier.T2)).isEqualTo(Tier.UNSPECIFIED);
    assertThat(HolderLayout.worstTier(Tier.T3, Tier.UNSPECIFIED)).isEqualTo(Tier.UNSPECIFIED);
    // T1 head, T3 tail: the run reports T3
    ingest(update("t", "m", "vllm", "a").chainTier(Tier.T1, 16, "b0").legacyTier("b1", 32, 3));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1"));
    assertThat(r.tier(0)).isEqualTo(Tier.T3);
    // an unknown positive tier sorts colder than T3 and reports as unspecified
    ingest(update("t", "m", "vllm", "b").chainTier(Tier.T3, 16, "c0").legacyTier("c1", 32, 9));
    route(chainReq("t", "m", "vllm", 16, "c0", "c1"));
    assertThat(r.tier(0)).isEqualTo(Tier.UNSPECIFIED);
    // a negative tier is the cold sentinel: unspecified on the way out
    ingest(update("t", "m", "vllm", "c").chainTier(-1, 16, "d0").legacyTier("d1", 32, 2));
    route(chainReq("t", "m", "vllm", 16, "d0", "d1"));
    assertThat(r.tier(0)).isEqualTo(Tier.UNSPECIFIED);
  }

  @Test
  void returnsNothingWithoutASharedFirstBlock() {
    ingest(update("t", "m", "vllm", "a").chain(16, "b0", "b1", "b2"));
    route(chainReq("t", "m", "vllm", 16, "z0", "b1", "b2"));
    assertThat(r.size()).isZero();
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
  }

  @Test
  void chainUnderOneHashSchemeIsNotMatchedUnderAnother() {
    ingest(update("t", "m", "vllm", "a").chain(16, "b0", "b1"));
    ingest(update("t", "m", "sglang", "s").legacy("zz", 1));
    route(chainReq("t", "m", "sglang", 16, "b0", "b1"));
    assertThat(r.size()).isZero();
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(plain(chainReq("t", "m", "sglang", 16, "b0", "b1")).size()).isZero();
  }

  @Test
  void runFreshnessIsTheWeakestLink() {
    ingest(update("t", "m", "vllm", "a").chain(16, "b0", "b1", "b2"));
    clock.advance(10, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "a").chain(16, "b0", "b1")); // b2 stays 10 minutes old
    clock.advance(2, TimeUnit.MINUTES);
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2"));
    final float f = specFreshness(minutes(12), TTL);
    assertThat(r.matchedTokens(0)).isEqualTo(48);
    assertBits(r.score(0), (float) 48 * f);
    assertBits(r.estimatedCacheHitProb(0), f);
    route(chainReq("t", "m", "vllm", 16, "b0", "b1"));
    assertBits(r.score(0), (float) 32 * specFreshness(minutes(2), TTL));
  }

  @Test
  void aStaleBlockEndsTheRun() {
    ingest(update("t", "m", "vllm", "a").at(T0 - minutes(31)).legacy("b1", 32));
    ingest(update("t", "m", "vllm", "a").legacy("b0", 16).legacy("b2", 48));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2"));
    assertThat(r.matchedTokens(0)).isEqualTo(16);
  }

  @Test
  void aStaleHeadBlockSeedsNoRun() {
    ingest(update("t", "m", "vllm", "a").at(T0 - minutes(30)).legacy("b0", 16));
    ingest(update("t", "m", "vllm", "a").legacy("b1", 32));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1"));
    assertThat(r.size()).isZero();
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
  }

  @Test
  void aDroppedReplicaNeverReentersTheRun() {
    ingest(update("t", "m", "vllm", "a").legacy("b0", 16).legacy("b2", 48).legacy("b3", 64));
    ingest(update("t", "m", "vllm", "b").chain(16, "b0", "b1", "b2", "b3"));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2", "b3"));
    assertThat(names(r)).containsExactly("b", "a");
    assertThat(r.matchedTokens(0)).isEqualTo(64);
    assertThat(r.matchedTokens(1)).isEqualTo(16);
  }

  @Test
  void malformedChainRequestFailsOpenWithoutFallingBackToThePrefixHash() {
    ingest(update("t", "m", "vllm", "a").chain(16, "b0", "b1").legacy("p", 64));
    final LookupRequest q =
        exactReq("t", "m", "vllm", "p", 64)
            .addBlockHash(h("b0"))
            .addBlockHash(h("b1"))
            .addBlockTokenCount(16);
    assertThat(q.chainMalformed()).isTrue();
    assertThat(route(q).size()).isZero();
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(plain(q).size()).isZero();
  }

  @Test
  void countsOnlyChainRequestFailsOpen() {
    ingest(update("t", "m", "vllm", "a").legacy("p", 64));
    final LookupRequest q = exactReq("t", "m", "vllm", "p", 64).addBlockTokenCount(16);
    assertThat(route(q).size()).isZero();
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(plain(q).size()).isZero();
  }

  @Test
  void hashesOnlyChainRequestFailsOpen() {
    ingest(update("t", "m", "vllm", "a").legacy("p", 64).legacy("b0", 16));
    final LookupRequest q = exactReq("t", "m", "vllm", "p", 64).addBlockHash(h("b0"));
    assertThat(route(q).size()).isZero();
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
  }

  @Test
  void aLegacyBlobMatchesAChainOnlyAsItsFirstBlock() {
    ingest(update("t", "m", "vllm", "a").legacy("b0", 16));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2"));
    assertThat(names(r)).containsExactly("a");
    assertThat(r.matchedTokens(0)).isEqualTo(16);
  }

  @Test
  void walksLegacyPerBlockEntriesAsAChain() {
    ingest(
        update("t", "m", "vllm", "a")
            .legacy("b0", 16)
            .legacy("b1", 32)
            .legacy("b2", 48)
            .legacy("b3", 64));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2", "b3"));
    assertThat(r.matchedTokens(0)).isEqualTo(64);
  }

  @Test
  void aLegacyEntryThatIsNotBlockZeroCannotSeedARun() {
    ingest(update("t", "m", "vllm", "a").legacy("b1", 32).legacy("b2", 48));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2"));
    assertThat(r.size()).isZero();
  }

  @Test
  void distinguishingPowerIsDepthAware() {
    ingest(update("t", "m", "vllm", "r1").chain(64, "b0", "b1", "b2", "b3"));
    ingest(update("t", "m", "vllm", "r2").chain(64, "b0", "b1"));
    ingest(update("t", "m", "vllm", "r3").chain(64, "b0"));
    route(chainReq("t", "m", "vllm", 64, "b0", "b1", "b2", "b3"));
    assertThat(names(r)).containsExactly("r1", "r2", "r3");
    assertThat(r.matchedTokens(0)).isEqualTo(256);
    assertThat(r.matchedTokens(1)).isEqualTo(128);
    assertThat(r.matchedTokens(2)).isEqualTo(64);
    assertBits(r.score(0), (float) 256 * (float) (1.0 - 1.0 / 3.0));
    assertBits(r.score(1), (float) 128 * (float) (1.0 - 2.0 / 3.0));
    assertBits(r.score(2), 0f);
  }

  @Test
  void equalDepthsShareOneDistinguishingGroup() {
    ingest(update("t", "m", "vllm", "r1").chain(16, "b0", "b1"));
    ingest(update("t", "m", "vllm", "r2").chain(16, "b0", "b1"));
    ingest(update("t", "m", "vllm", "r3").chain(16, "b0"));
    ingest(update("t", "m", "vllm", "r4").legacy("zz", 1));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1"));
    assertThat(names(r)).containsExactly("r1", "r2", "r3");
    assertBits(r.score(0), (float) 32 * specDp(2, 4));
    assertBits(r.score(1), (float) 32 * specDp(2, 4));
    assertBits(r.score(2), (float) 16 * specDp(3, 4));
  }

  @Test
  void sharedHeadBlockGivesEveryReplicaZero() {
    for (String rep : new String[] {"r1", "r2", "r3"}) {
      ingest(update("t", "m", "vllm", rep).chain(16, "b0"));
    }
    route(chainReq("t", "m", "vllm", 16, "b0", "b1"));
    assertThat(names(r)).containsExactly("r1", "r2", "r3");
    for (int i = 0; i < 3; i++) {
      assertThat(r.matchedTokens(i)).isEqualTo(16);
      assertBits(r.score(i), 0f);
    }
  }

  @Test
  void singleReplicaChainKeepsTheBaselineScore() {
    ingest(update("t", "m", "vllm", "r1").chain(16, "b0", "b1", "b2"));
    clock.advance(5, TimeUnit.MINUTES);
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2"));
    assertBits(r.score(0), (float) 48 * specFreshness(minutes(5), TTL));
  }

  @Test
  void chainPathAppliesTheSamePressureAndSloFactorsAsTheExactPath() {
    ingest(
        update("t", "m", "vllm", "r1")
            .prefix(
                new IngestPrefix(
                    h("p"),
                    48,
                    java.util.List.of(h("b0"), h("b1"), h("b2")),
                    new int[] {16, 16, 16},
                    0,
                    ""))
            .stats(0.5f, 0.25f));
    clock.advance(3, TimeUnit.MINUTES);
    final float f = specFreshness(minutes(3), TTL);
    final float expected = (float) 48 * f * (1f - 1f * 0.25f) * (1f + f * 1f);
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2").ttftMs(50));
    assertBits(r.score(0), expected);
    route(exactReq("t", "m", "vllm", "p", 48).ttftMs(50));
    assertBits(r.score(0), expected);
  }

  @Test
  void adapterOfTheRequestSelectsThePartitionWalked() {
    ingest(update("t", "m", "vllm", "a").adapter("lora-1").chain(16, "b0", "b1"));
    final LookupRequest q = chainReq("t", "m", "vllm", 16, "b0", "b1");
    assertThat(route(q).size()).isZero();
    q.adapter().set("lora-1");
    assertThat(route(q).matchedTokens(0)).isEqualTo(32);
  }

  /**
   * A 600-block chain spans three stored runs (256 rows each at most) and the walk's stretches of
   * {@link ChainWalk#STRETCH} rows: each replica's run ends exactly at its first block that is not
   * held (before, at and just after a stretch boundary, inside the second run) or not fresh (a
   * chain half refreshed, its other half aged past the TTL), whatever the other replicas hold.
   */
  @Test
  void eachReplicasRunEndsAtItsFirstMissingOrStaleBlockAcrossStretchesAndRuns() {
    policies.lfu.add("t");
    final String[] chain = new String[600];
    for (int i = 0; i < chain.length; i++) {
      chain[i] = "c" + i;
    }
    ingest(update("t", "m", "vllm", "e").chain(16, java.util.Arrays.copyOf(chain, 200)));
    clock.advance(TTL - TimeUnit.MINUTES.toNanos(1), TimeUnit.NANOSECONDS);
    ingest(update("t", "m", "vllm", "a").chain(16, chain));
    ingest(update("t", "m", "vllm", "b").chain(16, java.util.Arrays.copyOf(chain, 64)));
    ingest(update("t", "m", "vllm", "c").chain(16, java.util.Arrays.copyOf(chain, 65)));
    ingest(update("t", "m", "vllm", "d").chain(16, java.util.Arrays.copyOf(chain, 300)));
    ingest(update("t", "m", "vllm", "e").chain(16, java.util.Arrays.copyOf(chain, 100)));
    clock.advance(2, TimeUnit.MINUTES); // e's blocks 100..199 are now past the TTL

    route(chainReq("t", "m", "vllm", 16, chain));

    assertThat(names(r)).containsExactly("a", "d", "e", "c", "b");
    assertThat(r.matchedTokens(0)).isEqualTo(600 * 16);
    assertThat(r.matchedTokens(1)).isEqualTo(300 * 16);
    assertThat(r.matchedTokens(2)).isEqualTo(100 * 16);
    assertThat(r.matchedTokens(3)).isEqualTo(65 * 16);
    assertThat(r.matchedTokens(4)).isEqualTo(64 * 16);
    assertThat(r.pendingCredits()).isEqualTo(600 + 300 + 100 + 65 + 64);
  }

  @Test
  void aTenantThatIsNotLfuRecordsNoCredits() {
    ingest(update("t", "m", "vllm", "a").chain(16, "b0", "b1", "b2"));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2"));
    assertThat(r.matchedTokens(0)).isEqualTo(48);
    assertThat(r.pendingCredits()).isZero();
    route(exactReq("t", "m", "vllm", "b0", 16));
    assertThat(r.size()).isEqualTo(1);
    assertThat(r.pendingCredits()).isZero();
  }
}
