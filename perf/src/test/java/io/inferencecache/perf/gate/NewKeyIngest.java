package io.inferencecache.perf.gate;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.CacheIndexV1;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IndexEvent;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.perf.SyntheticChains;
import io.inferencecache.perf.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;

/**
 * The perf gate's new-key ingest figure ({@link PerfGate#INGEST_NEW_V1}): CPU nanoseconds per block
 * upsert of chains no index has seen, on the engine ÷ on {@link CacheIndexV1}, in interleaved
 * rounds (the engine first in even rounds). A round ingests the same {@value #CHAINS_PER_ROUND}
 * fresh 64-block chains into both indexes (timed), checks that each then holds every block, and
 * evicts them again by {@code PREFIX_EVICTED} events (not timed), so later rounds insert into
 * memory earlier ones touched, as in a server whose map has filled once ({@code IngestBenchmark}'s
 * {@code newKeys} with a reused map). Both indexes have the default capacity of one million
 * holder-blocks and hint 1 (one holder a key): the new keys land all over a Chronicle map of about
 * 60 MB and, for the engine, a block directory of about 11 MB.
 */
final class NewKeyIngest implements AutoCloseable {
  static final int CHAINS_PER_ROUND = 32;
  static final int BLOCKS = 64;
  static final int REPLICAS = 16;

  /**
   * Warm-up: at least this much CPU time (both indexes together) besides the settings' warm-up
   * rounds; with 2 s the engine's first medians still came out 20-40 % above its settled ones.
   */
  static final long WARMUP_CPU_NANOS = 4_000_000_000L;

  private final CacheIndex index;
  private final CacheIndexV1 v1;
  private final Consumer<IngestUpdate> engineIngest;
  private final Consumer<IngestUpdate> v1Ingest;
  private final Consumer<IndexEvent> engineEvent;
  private final Consumer<IndexEvent> v1Event;
  private final String[] replicas = new String[REPLICAS];
  private final int[] counts = new int[BLOCKS];
  private final IngestUpdate[] round = new IngestUpdate[CHAINS_PER_ROUND];
  private final List<IndexEvent> evictions = new ArrayList<>(CHAINS_PER_ROUND * BLOCKS);
  private long nextChain;

  NewKeyIngest() {
    final IndexConfig config = new IndexConfig().averageHashBytes(8).averageHoldersPerKey(1.0);
    index = CacheIndex.open(config);
    v1 = CacheIndexV1.open(config);
    engineIngest = index::ingest;
    v1Ingest = v1::ingest;
    engineEvent = index::applyEvent;
    v1Event = v1::applyEvent;
    for (int r = 0; r < REPLICAS; r++) {
      replicas[r] = "replica-" + r;
    }
    Arrays.fill(counts, 16);
  }

  /** The median ratio and the medians of its parts, over {@code s.rounds} measured rounds. */
  record Result(double ratio, double spread, double engineNsPerBlock, double v1NsPerBlock) {}

  Result measure(final PerfGate.Settings s) {
    final long warmStart = PerfGate.cpuNanos();
    for (int w = 0; w < s.warmupRounds || PerfGate.cpuNanos() - warmStart < WARMUP_CPU_NANOS; w++) {
      oneRound(w % 2 == 0);
    }
    final double[] ratio = new double[s.rounds];
    final double[] engineNs = new double[s.rounds];
    final double[] v1Ns = new double[s.rounds];
    for (int r = 0; r < s.rounds; r++) {
      final long[] t = oneRound(r % 2 == 0);
      engineNs[r] = t[0] / (double) (CHAINS_PER_ROUND * BLOCKS);
      v1Ns[r] = t[1] / (double) (CHAINS_PER_ROUND * BLOCKS);
      ratio[r] = engineNs[r] / v1Ns[r];
    }
    return new Result(
        PerfGate.median(ratio),
        PerfGate.spread(ratio),
        PerfGate.median(engineNs),
        PerfGate.median(v1Ns));
  }

  /** One round: {engine ns, v1 ns} for ingesting this round's fresh chains. */
  private long[] oneRound(final boolean engineFirst) {
    prepareRound();
    final long[] t = new long[2];
    if (engineFirst) {
      t[0] = ingest(engineIngest);
      t[1] = ingest(v1Ingest);
    } else {
      t[1] = ingest(v1Ingest);
      t[0] = ingest(engineIngest);
    }
    final long blocks = (long) CHAINS_PER_ROUND * BLOCKS;
    if (index.totalEntries() != blocks || v1.totalEntries() != blocks) {
      throw new IllegalStateException(
          "new-key round stored "
              + index.totalEntries()
              + " (v1: "
              + v1.totalEntries()
              + ") blocks, not "
              + blocks);
    }
    evictions.forEach(engineEvent);
    evictions.forEach(v1Event);
    if (index.totalEntries() != 0 || v1.totalEntries() != 0) {
      throw new IllegalStateException(
          "new-key round left "
              + index.totalEntries()
              + " (v1: "
              + v1.totalEntries()
              + ") blocks after its evictions");
    }
    return t;
  }

  /** Builds this round's updates (fresh chains, never repeated) and their evictions; not timed. */
  private void prepareRound() {
    evictions.clear();
    for (int i = 0; i < CHAINS_PER_ROUND; i++) {
      final long c = nextChain++;
      final String replica = replicas[(int) (c % REPLICAS)];
      final List<byte[]> hashes = new ArrayList<>(BLOCKS);
      for (int b = 0; b < BLOCKS; b++) {
        final byte[] h = new byte[8];
        Workload.putLongBe(h, SyntheticChains.mix64(~(c * BLOCKS + b)));
        hashes.add(h);
        evictions.add(
            new IndexEvent(
                IndexEvent.Type.PREFIX_EVICTED,
                replica,
                Workload.MODEL,
                Workload.TENANT,
                h,
                0,
                ""));
      }
      round[i] = Workload.chainUpdate(replica, hashes, counts);
    }
  }

  private long ingest(final Consumer<IngestUpdate> target) {
    final long t0 = PerfGate.cpuNanos();
    for (IngestUpdate u : round) {
      target.accept(u);
    }
    return PerfGate.cpuNanos() - t0;
  }

  /** The figure's detail line. */
  static String detail(final Result r, final int rounds) {
    return String.format(
        Locale.ROOT,
        "median of %d rounds, spread %.2fx; new-key upserts, %.0f ns a block, v1 %.0f ns (CPU);"
            + " %d fresh 64-block chains a round into default-capacity indexes, evicted between"
            + " rounds",
        rounds,
        r.spread(),
        r.engineNsPerBlock(),
        r.v1NsPerBlock(),
        CHAINS_PER_ROUND);
  }

  @Override
  public void close() {
    index.close();
    v1.close();
  }
}
