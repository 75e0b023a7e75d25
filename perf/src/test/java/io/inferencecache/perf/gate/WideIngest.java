package io.inferencecache.perf.gate;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.perf.engine.WideChainLookupBenchmark;
import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The perf gate's wide-fleet ingest figure (issue 41), {@link PerfGate#WIDE_INGEST}: CPU
 * nanoseconds per block upsert of loading 64-block chains held by 256 of 1,024 replicas ÷ of
 * loading the same number of holder-blocks ({@value #HOLDER_BLOCKS}) in chains held by 16, the
 * median of interleaved rounds. Each load reports every chain once per holder, round-robin over the
 * chains (so every report after a chain's first adds a holder to a stored run, which is stored
 * again), as {@code WideIngestBenchmark} does; each round loads new chains (its own hashes) into
 * the same two indexes, sized for every round, so no round pays for emptying one. When each report
 * decoded and re-encoded its whole run the ratio was about 10; a holder spliced into the run's
 * bytes gives about 2.4.
 */
final class WideIngest implements AutoCloseable {
  static final long HOLDER_BLOCKS = 491_520; // 480 chains of 16 holders, 30 of 256
  private static final int ROUNDS = 7; // measured rounds; one more warms up

  private final SyntheticChains narrow = WideChainLookupBenchmark.wide(HOLDER_BLOCKS, 16);
  private final SyntheticChains wide = WideChainLookupBenchmark.wide(HOLDER_BLOCKS, 256);
  private final CacheIndex narrowIndex = open(narrow);
  private final CacheIndex wideIndex = open(wide);
  private final String[][] narrowReplicas = replicaNames(narrow);
  private final String[][] wideReplicas = replicaNames(wide);
  private final List<byte[]> hashes = new ArrayList<>();
  private final int[] counts = new int[SyntheticChains.PINNED_BLOCKS];

  WideIngest() {
    for (int b = 0; b < SyntheticChains.PINNED_BLOCKS; b++) {
      hashes.add(new byte[8]);
    }
    Arrays.fill(counts, SyntheticChains.PINNED_TOKENS_PER_BLOCK);
  }

  /** Per chain, the names of its holders (built before the timed loads). */
  private static String[][] replicaNames(final SyntheticChains w) {
    final String[][] names = new String[w.chains()][];
    for (int c = 0; c < w.chains(); c++) {
      final int[] holders = w.holdersOf(c);
      names[c] = new String[holders.length];
      for (int h = 0; h < holders.length; h++) {
        names[c][h] = w.replicaName(holders[h]);
      }
    }
    return names;
  }

  private static CacheIndex open(final SyntheticChains w) {
    return CacheIndex.open(
        new IndexConfig()
            .maxEntries(HOLDER_BLOCKS * (ROUNDS + 1))
            .averageHashBytes(8)
            .averageHoldersPerKey(w.holders()));
  }

  /** The median ratio, its spread and the medians of its parts (CPU ns per upsert). */
  record Result(double ratio, double spread, double narrowNs, double wideNs) {}

  Result measure() {
    load(narrowIndex, narrow, narrowReplicas, 0);
    load(wideIndex, wide, wideReplicas, 0);
    final double[] ratio = new double[ROUNDS];
    final double[] narrowNs = new double[ROUNDS];
    final double[] wideNs = new double[ROUNDS];
    for (int round = 1; round <= ROUNDS; round++) {
      final long a;
      final long b;
      if (round % 2 == 0) {
        b = load(wideIndex, wide, wideReplicas, round);
        a = load(narrowIndex, narrow, narrowReplicas, round);
      } else {
        a = load(narrowIndex, narrow, narrowReplicas, round);
        b = load(wideIndex, wide, wideReplicas, round);
      }
      narrowNs[round - 1] = a / (double) HOLDER_BLOCKS;
      wideNs[round - 1] = b / (double) HOLDER_BLOCKS;
      ratio[round - 1] = wideNs[round - 1] / narrowNs[round - 1];
    }
    return new Result(
        PerfGate.median(ratio),
        PerfGate.spread(ratio),
        PerfGate.median(narrowNs),
        PerfGate.median(wideNs));
  }

  /**
   * CPU nanoseconds of loading {@code w}'s chains, their hashes salted by {@code round}, into
   * {@code index}; checks that the index then holds every round's holder-blocks so far.
   */
  private long load(
      final CacheIndex index, final SyntheticChains w, final String[][] names, final int round) {
    final long salt = (round + 1L) * 0x9E3779B97F4A7C15L;
    final long t0 = PerfGate.cpuNanos();
    for (int h = 0; h < w.holders(); h++) {
      for (int c = 0; c < w.chains(); c++) {
        for (int b = 0; b < SyntheticChains.PINNED_BLOCKS; b++) {
          Workload.putLongBe(hashes.get(b), SyntheticChains.mix64(w.blockHash(c, b) ^ salt));
        }
        index.ingest(Workload.chainUpdate(names[c][h], hashes, counts));
      }
    }
    final long cpu = PerfGate.cpuNanos() - t0;
    if (index.totalEntries() != HOLDER_BLOCKS * (round + 1)) {
      throw new IllegalStateException(
          w.name() + ": " + index.totalEntries() + " entries after round " + round);
    }
    return cpu;
  }

  /** The ratio figure's detail line. */
  static String detail(final Result r) {
    return String.format(
        Locale.ROOT,
        "median of %d rounds, spread %.2fx; %.0f ns an upsert at 256 holders, %.0f at 16 (CPU);"
            + " 64-block chains of 1,024 replicas, %,d holder-blocks each, round-robin reports",
        ROUNDS,
        r.spread(),
        r.wideNs(),
        r.narrowNs(),
        HOLDER_BLOCKS);
  }

  @Override
  public void close() {
    narrowIndex.close();
    wideIndex.close();
  }
}
