package io.inferencecache.perf.gate;

import com.sun.management.ThreadMXBean;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.perf.engine.IndexUnderTest;
import io.inferencecache.perf.engine.WideChainLookupBenchmark;
import io.inferencecache.perf.workload.SyntheticChains;
import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * The perf gate's wide-fleet figures (issue 41): 64-block chains held by 256 of 1,024 replicas
 * against the same chains' shape at 128 holders, two indexes of about the same number of
 * holder-blocks ({@value #HOLDER_BLOCKS}). {@link PerfGate#WIDE_LOOKUP}: CPU nanoseconds per
 * holder-block of a lookup at 256 holders ÷ at 128, the median of interleaved rounds (the
 * 256-holder index first in even rounds). It was about 9 before the runs of a chain stopped being
 * cut at every new column (and the order stopped being an insertion sort); at most 1.5 is the
 * target. {@link PerfGate#WIDE_ALLOC}: bytes allocated per 256-holder lookup (least of {@value
 * PerfGate#ALLOC_ATTEMPTS} measurements).
 */
final class WideLookup implements AutoCloseable {
  static final long HOLDER_BLOCKS = 491_520; // 60 chains of 128 holders, 30 of 256
  static final int LOOKUPS_PER_BATCH = 200;

  private final SyntheticChains narrow = WideChainLookupBenchmark.wide(HOLDER_BLOCKS, 128);
  private final SyntheticChains wide = WideChainLookupBenchmark.wide(HOLDER_BLOCKS, 256);
  private final CacheIndex narrowIndex = build(narrow);
  private final CacheIndex wideIndex = build(wide);
  private final LookupRequest q = new LookupRequest();
  private final LookupResult r = new LookupResult();
  private int next;

  private static CacheIndex build(final SyntheticChains w) {
    final CacheIndex index = CacheIndex.open(IndexUnderTest.configFor(w));
    w.forEachUpdate(index::ingest);
    if (index.totalEntries() != w.holderBlocks()) {
      index.close();
      throw new IllegalStateException(w.name() + ": " + w.holderBlocks() + " entries expected");
    }
    return index;
  }

  /** The median ratio, its spread and the medians of its parts (ns per holder-block). */
  record Result(double ratio, double spread, double narrowNs, double wideNs, double wideBytes) {}

  Result measure(final PerfGate.Settings s) {
    final long warmStart = PerfGate.cpuNanos();
    for (int w = 0; w < s.warmupRounds || PerfGate.cpuNanos() - warmStart < 2_000_000_000L; w++) {
      batch(narrowIndex, narrow);
      batch(wideIndex, wide);
    }
    final int n = s.rounds;
    final double[] ratio = new double[n];
    final double[] narrowNs = new double[n];
    final double[] wideNs = new double[n];
    for (int round = 0; round < n; round++) {
      final long a;
      final long b;
      if (round % 2 == 0) {
        b = batch(wideIndex, wide);
        a = batch(narrowIndex, narrow);
      } else {
        a = batch(narrowIndex, narrow);
        b = batch(wideIndex, wide);
      }
      narrowNs[round] = a / (double) LOOKUPS_PER_BATCH / (64.0 * narrow.holders());
      wideNs[round] = b / (double) LOOKUPS_PER_BATCH / (64.0 * wide.holders());
      ratio[round] = wideNs[round] / narrowNs[round];
    }
    return new Result(
        PerfGate.median(ratio),
        PerfGate.spread(ratio),
        PerfGate.median(narrowNs),
        PerfGate.median(wideNs),
        allocatedPerLookup());
  }

  /** CPU nanoseconds of {@value #LOOKUPS_PER_BATCH} lookups of whole chains of {@code w}. */
  private long batch(final CacheIndex index, final SyntheticChains w) {
    final long t0 = PerfGate.cpuNanos();
    for (int i = 0; i < LOOKUPS_PER_BATCH; i++) {
      w.fillLookup(next++ % w.chains(), q);
      index.lookupAndClassify(q, r);
      if (r.size() != w.holders()) {
        throw new IllegalStateException(w.name() + " lookup answered " + r.size() + " replicas");
      }
    }
    return PerfGate.cpuNanos() - t0;
  }

  private double allocatedPerLookup() {
    final ThreadMXBean threads = (ThreadMXBean) ManagementFactory.getThreadMXBean();
    double least = Double.MAX_VALUE;
    for (int attempt = 0; attempt < PerfGate.ALLOC_ATTEMPTS; attempt++) {
      batch(wideIndex, wide);
      final long before = threads.getCurrentThreadAllocatedBytes();
      for (int b = 0; b < 10; b++) {
        batch(wideIndex, wide);
      }
      final long bytes = threads.getCurrentThreadAllocatedBytes() - before;
      least = Math.min(least, bytes / (10.0 * LOOKUPS_PER_BATCH));
    }
    return least;
  }

  /** The ratio figure's detail line. */
  static String detail(final Result r, final int rounds) {
    return String.format(
        Locale.ROOT,
        "median of %d rounds, spread %.2fx; %.2f ns a holder-block at 256 holders, %.2f at 128"
            + " (CPU); 64-block chains of 1,024 replicas, %,d holder-blocks each",
        rounds,
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
