package io.inferencecache.perf.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.engine.Outcome;
import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.EpochNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The baseline must answer exactly as the engine, or the benchmarks compare different work: both
 * are fed the same random updates (shared prefixes, ragged token counts, tiers, ages up to and past
 * the TTL, pressure stats, legacy keys that collide with chain blocks) and must return the same
 * replicas, in the same order, with the same matched tokens, bit-identical scores, probabilities
 * and tiers.
 */
class OnHeapReferenceIndexTest {
  private static final String T = "tenant";
  private static final String M = "model";
  private static final String S = "vllm";

  /** A clock the test moves by hand. */
  static final class ManualClock implements EpochNanoClock {
    long now = TimeUnit.SECONDS.toNanos(1_700_000_000L);

    @Override
    public long nanoTime() {
      return now;
    }

    void advanceSeconds(final long s) {
      now += TimeUnit.SECONDS.toNanos(s);
    }
  }

  private final ManualClock clock = new ManualClock();
  private final CacheIndex engine =
      CacheIndex.open(new IndexConfig().maxEntries(200_000).clock(clock));
  private final OnHeapReferenceIndex baseline =
      new OnHeapReferenceIndex(new IndexConfig().clock(clock));
  private final LookupResult result = new LookupResult();

  // Replica names chosen so byte-wise and numeric orders differ (tie-breaks are byte-wise).
  private static final String[] REPLICAS = {
    "r-9", "r-10", "r-1", "R-2", "replica-a", "replica-B", "r-\u00e9", "r-z", "r-00", "x", "y", "z"
  };

  @AfterEach
  void close() {
    engine.close();
  }

  private void ingestBoth(final IngestUpdate u) {
    engine.ingest(u);
    baseline.ingest(u);
  }

  private static byte[] hash(final long v) {
    return Workload.hashOf(v);
  }

  @Test
  void agreesWithTheEngineOnRandomChainLookups() {
    final SplittableRandom rnd = new SplittableRandom(20261129);
    // A tree of chains: each new chain shares a random prefix with an earlier one.
    final List<long[]> chains = new ArrayList<>();
    long nextHash = 1;
    for (int c = 0; c < 60; c++) {
      final int length = 1 + rnd.nextInt(40);
      final long[] chain = new long[length];
      int shared = 0;
      if (c > 0 && rnd.nextInt(4) != 0) {
        final long[] parent = chains.get(rnd.nextInt(chains.size()));
        shared = Math.min(length, 1 + rnd.nextInt(parent.length));
        System.arraycopy(parent, 0, chain, 0, shared);
      }
      for (int b = shared; b < length; b++) {
        chain[b] = nextHash++;
      }
      chains.add(chain);
    }
    // 40 minutes of reports: early ones age out of the 30-minute TTL.
    for (int i = 0; i < 600; i++) {
      clock.advanceSeconds(rnd.nextInt(8));
      final long[] chain = chains.get(rnd.nextInt(chains.size()));
      final int held = 1 + rnd.nextInt(chain.length);
      final String replica = REPLICAS[rnd.nextInt(REPLICAS.length)];
      final List<byte[]> hashes = new ArrayList<>();
      final int[] counts = new int[held];
      for (int b = 0; b < held; b++) {
        hashes.add(hash(chain[b]));
        counts[b] = 1 + rnd.nextInt(32);
      }
      final List<IngestPrefix> prefixes = new ArrayList<>();
      prefixes.add(IngestPrefix.chain(hashes, counts, rnd.nextInt(4)));
      if (rnd.nextInt(10) == 0) {
        // A legacy entry whose hash is some chain block: it extends runs at that position.
        prefixes.add(IngestPrefix.legacy(hash(chain[rnd.nextInt(chain.length)]), 16, 0));
      }
      final IngestStats stats =
          rnd.nextInt(5) == 0 ? new IngestStats(0, rnd.nextFloat(), rnd.nextFloat(), 0, 0) : null;
      ingestBoth(new IngestUpdate(replica, M, T, S, 0, "", prefixes, stats));
    }
    assertThat(baseline.totalEntries()).isEqualTo(engine.totalEntries());
    assertThat(baseline.totalKeys()).isEqualTo(engine.totalKeys());

    int hits = 0;
    final LookupRequest q = new LookupRequest();
    for (int i = 0; i < 400; i++) {
      if (i % 100 == 0) {
        clock.advanceSeconds(60);
      }
      final long[] chain = chains.get(rnd.nextInt(chains.size()));
      final int len = 1 + rnd.nextInt(chain.length);
      q.reset().keys(T, M, S, "").ttftMs(rnd.nextInt(3) == 0 ? 100 : 0);
      for (int b = 0; b < len; b++) {
        // Occasionally diverge mid-chain with a hash nobody holds.
        final long h = b > 0 && rnd.nextInt(30) == 0 ? -b - 1 : chain[b];
        q.addBlockHash(hash(h)).addBlockTokenCount(1 + rnd.nextInt(32));
      }
      assertSameAnswer(q, "chain lookup " + i + " " + Arrays.toString(chain) + " len " + len);
      if (result.size() > 0) {
        hits++;
      }
    }
    assertThat(hits).as("lookups that found holders").isGreaterThan(200);
  }

  @Test
  void agreesOnExactKeysTenantHotAndMissClassification() {
    final SplittableRandom rnd = new SplittableRandom(7);
    for (int i = 0; i < 200; i++) {
      clock.advanceSeconds(rnd.nextInt(3));
      final String replica = REPLICAS[rnd.nextInt(REPLICAS.length)];
      final IngestStats stats = new IngestStats(0, rnd.nextFloat(), rnd.nextFloat() * 0.5f, 0, 0);
      ingestBoth(
          new IngestUpdate(
              replica,
              M,
              T,
              S,
              0,
              "",
              List.of(IngestPrefix.legacy(hash(rnd.nextInt(50)), rnd.nextInt(300), 0)),
              stats));
    }
    final LookupRequest q = new LookupRequest();
    for (int i = 0; i < 100; i++) {
      q.reset().keys(T, M, S, "").exact(hash(rnd.nextInt(60)), 0).ttftMs(i % 2 == 0 ? 50 : 0);
      assertSameAnswer(q, "exact lookup " + i);
    }
    assertSameAnswer(q.reset().keys("nobody", M, S, "").exact(hash(1), 0), "unknown tenant");
    assertThat(result.outcome()).isEqualTo(Outcome.UNKNOWN_TENANT);
    assertSameAnswer(q.reset().keys(T, "other", S, "").exact(hash(1), 0), "unknown model");
    assertThat(result.outcome()).isEqualTo(Outcome.UNKNOWN_MODEL);
    assertSameAnswer(q.reset().keys(T, M, "sha256", "").exact(hash(1), 0), "unknown scheme");
    assertThat(result.outcome()).isEqualTo(Outcome.UNKNOWN_HASH_SCHEME);
    assertSameAnswer(q.reset().keys(T, M, S, "").exact(hash(999), 0), "tenant hot");
    assertThat(result.outcome()).isEqualTo(Outcome.TENANT_HOT);
  }

  @Test
  void syntheticShapesBuildTheSameIndexInBoth() {
    final SyntheticChains pinned = SyntheticChains.pinned(3);
    try (IndexUnderTest off = IndexUnderTest.build(IndexUnderTest.OFFHEAP, pinned);
        IndexUnderTest on = IndexUnderTest.build(IndexUnderTest.ONHEAP, pinned)) {
      final LookupRequest q = new LookupRequest();
      for (int c = 0; c < pinned.chains(); c++) {
        pinned.fillLookup(c, q);
        assertThat(off.lookupRoute(q)).isEqualTo(SyntheticChains.PINNED_HOLDERS);
        assertThat(on.lookupRoute(q)).isEqualTo(SyntheticChains.PINNED_HOLDERS);
        assertThat(off.topMatchedTokens()).isEqualTo(64 * 16);
        assertThat(on.topMatchedTokens()).isEqualTo(64 * 16);
      }
    }
  }

  private void assertSameAnswer(final LookupRequest q, final String what) {
    engine.lookupAndClassify(q, result);
    final OnHeapReferenceIndex.Result expected = baseline.lookupRoute(q);
    assertThat(result.outcome()).as(what + ": outcome").isEqualTo(expected.outcome());
    assertThat(result.size()).as(what + ": size").isEqualTo(expected.scores().size());
    for (int i = 0; i < result.size(); i++) {
      final OnHeapReferenceIndex.ScoredReplica s = expected.scores().get(i);
      final String at = what + ": entry " + i;
      assertThat(engine.replicaName(result.replicaId(i)))
          .as(at + " replica")
          .isEqualTo(s.replicaId());
      assertThat(result.matchedTokens(i)).as(at + " matched").isEqualTo(s.matchedTokens());
      assertThat(Float.floatToIntBits(result.score(i)))
          .as(at + " score " + result.score(i) + " vs " + s.score())
          .isEqualTo(Float.floatToIntBits(s.score()));
      assertThat(result.estimatedCacheHitProb(i))
          .as(at + " prob")
          .isEqualTo(s.estimatedCacheHitProb());
      assertThat(result.tier(i)).as(at + " tier").isEqualTo(s.tier());
    }
  }
}
