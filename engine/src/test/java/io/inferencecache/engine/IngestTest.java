package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.T0;
import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.h;
import static io.inferencecache.engine.IndexFixtures.minutes;
import static io.inferencecache.engine.IndexFixtures.update;
import static io.inferencecache.engine.LookupScoringTest.assertBits;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Ingest semantics (docs/behaviour.md#ingest; checklist 2, 5, 6, 70, 72–80, 92). */
class IngestTest extends IndexTestSupport {

  private static IngestPrefix chainEntry(
      final List<String> hashes, final int[] counts, final String prefixHash, final int tokens) {
    return new IngestPrefix(
        h(prefixHash), tokens, hashes.stream().map(IndexFixtures::h).toList(), counts, 0, "");
  }

  @Test
  void storesStatsUnderTheTopLevelReplicaIdWithTheirPayload() {
    ingest(
        update("t", "m", "vllm", "replica-7")
            .legacy("p", 16)
            .stats(new IngestStats(4096, 0.75f, 0.25f, 600, 1000)));
    final CacheStateView v = index.cacheState("t", "m");
    assertThat(v.replicas())
        .containsExactly(
            new CacheStateView.ReplicaStatsRow("replica-7", 4096, 0.75f, 0.25f, 600, 1000));
  }

  @Test
  void sanitizesNaNAndPositiveInfinityStatsToZero() {
    ingest(update("t", "m", "vllm", "r1").stats(Float.NaN, Float.POSITIVE_INFINITY));
    assertThat(index.cacheState("t", "m").replicas().get(0).hitRate()).isEqualTo(0f);
    assertThat(index.cacheState("t", "m").replicas().get(0).pressure()).isEqualTo(0f);
    final IndexSnapshot s = index.snapshot();
    assertThat(s.replicas().get(0).hitRate()).isEqualTo(0f);
    assertThat(s.replicas().get(0).pressure()).isEqualTo(0f);
    assertThat(s.tenants().get(0).hitRate()).isEqualTo(0f);
    assertThat(Float.isFinite(s.tenants().get(0).hitRate())).isTrue();
  }

  @Test
  void sanitizesNegativeInfinityStatsToZero() {
    ingest(update("t", "m", "vllm", "r1").stats(Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY));
    final CacheStateView.ReplicaStatsRow row = index.cacheState("t", "m").replicas().get(0);
    assertThat(row.hitRate()).isEqualTo(0f);
    assertThat(row.pressure()).isEqualTo(0f);
    // a sanitized pressure of 0 means no penalty
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100));
    assertBits(route(exactReq("t", "m", "vllm", "p", 0)).score(0), 100f);
  }

  @Test
  void statsOnlyUpdateRefreshesTheStatsRowOnly() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100));
    clock.advance(10, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").stats(0.4f, 0.5f));
    assertThat(index.totalEntries()).isEqualTo(1);
    assertThat(index.cacheState("t", "m").replicas()).hasSize(1);
    route(exactReq("t", "m", "vllm", "p", 0));
    final float f = IndexFixtures.specFreshness(minutes(10), IndexConfig.TTL_DEFAULT_NS);
    assertBits(r.score(0), (float) 100 * f * (1f - 0.5f)); // lastSeen of the prefix untouched
  }

  @Test
  void emptyHashSchemeUpdateStillStoresStats() {
    ingest(update("t", "m", "", "r1").legacy("p", 64).stats(0.3f, 0.1f));
    assertThat(index.totalKeys()).isZero();
    assertThat(index.cacheState("t", "m").replicas()).hasSize(1);
  }

  @Test
  void updatesAreAdditive() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 64));
    ingest(update("t", "m", "vllm", "r1").legacy("p2", 64));
    assertThat(names(route(exactReq("t", "m", "vllm", "p1", 0)))).containsExactly("r1");
    assertThat(index.totalEntries()).isEqualTo(2);
  }

  @Test
  void unsetTierDefaultsToT1OnTheExactPath() {
    ingest(update("t", "m", "vllm", "r1").legacyTier("p", 64, Tier.UNSPECIFIED));
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).tier(0)).isEqualTo(Tier.T1);
  }

  @Test
  void unsetTierDefaultsToT1OnTheChainPath() {
    ingest(update("t", "m", "vllm", "r1").chainTier(Tier.UNSPECIFIED, 16, "b0", "b1"));
    assertThat(route(chainReq("t", "m", "vllm", 16, "b0", "b1")).tier(0)).isEqualTo(Tier.T1);
  }

  @Test
  void carriesAnExplicitTier() {
    ingest(update("t", "m", "vllm", "r1").legacyTier("p", 64, Tier.T2));
    ingest(update("t", "m", "vllm", "r1").chainTier(Tier.T3, 16, "b0"));
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).tier(0)).isEqualTo(Tier.T2);
    assertThat(route(chainReq("t", "m", "vllm", 16, "b0")).tier(0)).isEqualTo(Tier.T3);
  }

  @Test
  void negativeAndUnknownTiersReportAsUnspecified() {
    ingest(update("t", "m", "vllm", "r1").legacyTier("neg", 64, -3).legacyTier("unk", 64, 42));
    assertThat(route(exactReq("t", "m", "vllm", "neg", 0)).tier(0)).isEqualTo(Tier.UNSPECIFIED);
    assertThat(route(exactReq("t", "m", "vllm", "unk", 0)).tier(0)).isEqualTo(Tier.UNSPECIFIED);
  }

  @Test
  void storesEachChainBlockWithTheCumulativeTokenCount() {
    ingest(update("t", "m", "vllm", "r1").chainCounts(0, new int[] {16, 16, 8}, "b0", "b1", "b2"));
    assertThat(index.totalEntries()).isEqualTo(3);
    assertThat(route(exactReq("t", "m", "vllm", "b0", 0)).matchedTokens(0)).isEqualTo(16);
    assertThat(route(exactReq("t", "m", "vllm", "b1", 0)).matchedTokens(0)).isEqualTo(32);
    assertThat(route(exactReq("t", "m", "vllm", "b2", 0)).matchedTokens(0)).isEqualTo(40);
  }

  @Test
  void cumulativeChainCountsWrapAsInt32() {
    ingest(
        update("t", "m", "vllm", "r1")
            .chainCounts(0, new int[] {Integer.MAX_VALUE, 2}, "b0", "b1"));
    assertThat(route(exactReq("t", "m", "vllm", "b1", 0)).matchedTokens(0))
        .isEqualTo(Integer.MIN_VALUE + 1);
  }

  @Test
  void dropsAChainEntryWithMismatchedLengths() {
    ingest(
        update("t", "m", "vllm", "r1")
            .prefix(chainEntry(List.of("b0", "b1"), new int[] {16}, "p", 16))
            .legacy("ok", 16));
    assertThat(index.totalKeys()).isEqualTo(1);
    assertThat(route(exactReq("t", "m", "vllm", "b0", 0)).size()).isZero();
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).size()).isZero();
  }

  @Test
  void chainIngestWithoutHashSchemeIndexesNothing() {
    ingest(update("t", "m", "", "r1").chain(16, "b0", "b1"));
    assertThat(index.totalKeys()).isZero();
    assertThat(route(chainReq("t", "m", "", 16, "b0", "b1")).size()).isZero();
  }

  @Test
  void dropsAChainEntryWithHashesButNoCounts() {
    ingest(update("t", "m", "vllm", "r1").prefix(chainEntry(List.of("b0"), new int[0], "", 0)));
    assertThat(index.totalKeys()).isZero();
  }

  @Test
  void dropsAChainEntryWithCountsButNoHashesWithoutFallingBackToLegacy() {
    ingest(update("t", "m", "vllm", "r1").prefix(chainEntry(List.of(), new int[] {16}, "p", 16)));
    assertThat(index.totalKeys()).isZero();
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).size()).isZero();
  }

  @Test
  void chainWithACoSetLegacyPrefixHashIndexesBoth() {
    ingest(
        update("t", "m", "vllm", "r1")
            .prefix(chainEntry(List.of("b0", "b1"), new int[] {16, 16}, "p", 99)));
    assertThat(index.totalEntries()).isEqualTo(3); // N + 1
    assertThat(route(chainReq("t", "m", "vllm", 16, "b0", "b1")).matchedTokens(0)).isEqualTo(32);
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).matchedTokens(0)).isEqualTo(99);
  }

  @Test
  void aPastTimestampIsTakenLiterallySoTheEntryIsBornStale() {
    ingest(update("t", "m", "vllm", "r1").at(T0 - minutes(31)).legacy("p", 64));
    assertThat(index.totalEntries()).isEqualTo(1);
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).size()).isZero();
    assertThat(index.sweepExpired()).isEqualTo(1);
  }

  @Test
  void aFutureTimestampGivesFreshnessOne() {
    ingest(update("t", "m", "vllm", "r1").at(T0 + minutes(10)).legacy("p", 64));
    clock.advance(5, TimeUnit.MINUTES);
    route(exactReq("t", "m", "vllm", "p", 0));
    assertBits(r.score(0), 64f);
    assertBits(r.estimatedCacheHitProb(0), 1f);
    clock.advance(15, TimeUnit.MINUTES); // now 10 minutes past the stamp
    assertBits(
        route(exactReq("t", "m", "vllm", "p", 0)).score(0),
        (float) 64 * IndexFixtures.specFreshness(minutes(10), IndexConfig.TTL_DEFAULT_NS));
  }

  @Test
  void aZeroTimestampMeansNow() {
    clock.advance(3, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    assertThat(index.snapshot().replicas().get(0).lastEventAtNanos()).isEqualTo(clock.now);
  }

  @Test
  void rejectsAnOversizeHashAndKeepsTheRest() {
    ingest(
        update("t", "m", "vllm", "r1")
            .legacy(new byte[257], 16, 0)
            .legacy(new byte[256], 16, 0)
            .legacy("ok", 16));
    assertThat(index.rejectedHashes()).isEqualTo(1);
    assertThat(index.totalKeys()).isEqualTo(2);
  }

  @Test
  void anotherReplicaOnTheSameKeyAddsAStorageEntryNotAKey() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r2").legacy("p", 64));
    assertThat(index.totalKeys()).isEqualTo(1);
    assertThat(index.totalEntries()).isEqualTo(2);
    assertThat(index.cacheState("t", "m").totalPrefixes()).isEqualTo(1);
  }
}
