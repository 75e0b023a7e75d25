package io.inferencecache.perf.gate;

import static io.inferencecache.perf.gate.PerfGate.CHAINS;
import static io.inferencecache.perf.gate.PerfGate.LOOKUPS_PER_BATCH;
import static io.inferencecache.perf.gate.PerfGate.REFERENCE_ITERATIONS;
import static io.inferencecache.perf.gate.PerfGate.UPDATES_PER_BATCH;
import static io.inferencecache.perf.gate.PerfGate.cpuNanos;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.CacheIndexV1;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.perf.SyntheticChains;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The pinned-shape indexes (the engine and {@link CacheIndexV1}, filled alike) and the pre-filled
 * requests and updates of the timing figures.
 */
final class EngineFixture implements AutoCloseable {
  private static final int TABLE_SLOTS = 1 << 19; // 4 MiB of longs

  final SyntheticChains shape = SyntheticChains.pinned(CHAINS);
  final CacheIndex index;
  final CacheIndexV1 v1;
  private final Lookup engineLookup;
  private final Lookup v1Lookup;
  private final Consumer<IngestUpdate> engineIngest;
  private final Consumer<IngestUpdate> v1Ingest;
  final LookupRequest[] requests = new LookupRequest[CHAINS];
  final int[] order = new int[LOOKUPS_PER_BATCH];
  final List<IngestUpdate> refresh = new ArrayList<>();
  final LookupResult result = new LookupResult();
  final long[] table = new long[TABLE_SLOTS];
  long sink;
  Object objectSink;

  EngineFixture() {
    final IndexConfig config =
        new IndexConfig()
            .maxEntries(shape.holderBlocks())
            .averageHashBytes(8)
            .averageHoldersPerKey(SyntheticChains.PINNED_HOLDERS);
    index = CacheIndex.open(config);
    v1 = CacheIndexV1.open(config);
    engineLookup = index::lookupRoute;
    v1Lookup = v1::lookupRoute;
    engineIngest = index::ingest;
    v1Ingest = v1::ingest;
    shape.forEachUpdate(engineIngest);
    shape.forEachUpdate(v1Ingest);
    if (index.totalEntries() != shape.holderBlocks() || v1.totalEntries() != shape.holderBlocks()) {
      throw new IllegalStateException(
          "fixture holds "
              + index.totalEntries()
              + " (v1: "
              + v1.totalEntries()
              + ") entries, not "
              + shape.holderBlocks());
    }
    for (int c = 0; c < CHAINS; c++) {
      requests[c] = new LookupRequest();
      shape.fillLookup(c, requests[c]);
    }
    final SplittableRandom rnd = new SplittableRandom(7);
    for (int i = 0; i < order.length; i++) {
      order[i] = rnd.nextInt(CHAINS);
    }
    for (int i = 0; i < UPDATES_PER_BATCH * 4; i++) {
      final int c = rnd.nextInt(CHAINS);
      final int[] holders = shape.holdersOf(c);
      refresh.add(shape.update(c, holders[rnd.nextInt(holders.length)]));
    }
    for (int i = 0; i < table.length; i++) {
      table[i] = SyntheticChains.mix64(i);
    }
  }

  /**
   * Nanoseconds for {@link PerfGate#LOOKUPS_PER_BATCH} timed engine lookups (with the switches).
   */
  long lookupBatch(final PerfGate.Settings s) {
    return lookups(engineLookup, s.extraLookups, s.allocate);
  }

  /** Nanoseconds for the same {@link PerfGate#LOOKUPS_PER_BATCH} lookups on v1 (no switches). */
  long lookupBatchV1() {
    return lookups(v1Lookup, 0, false);
  }

  private long lookups(final Lookup target, final int extra, final boolean allocate) {
    final long t0 = cpuNanos();
    long acc = 0;
    for (int i = 0; i < order.length; i++) {
      final LookupRequest q = requests[order[i]];
      for (int e = 0; e <= extra; e++) {
        target.lookupRoute(q, result);
      }
      acc += result.size();
      if (allocate) {
        objectSink = new long[4];
      }
    }
    final long took = cpuNanos() - t0;
    sink += acc;
    if (acc != (long) order.length * SyntheticChains.PINNED_HOLDERS) {
      throw new IllegalStateException("lookups did not find every holder: " + acc);
    }
    return took;
  }

  /** Nanoseconds for {@link PerfGate#UPDATES_PER_BATCH} refresh updates (64 block upserts each). */
  long ingestBatch(final int batch) {
    return refreshes(engineIngest, batch);
  }

  /** The same refresh updates on v1. */
  long ingestBatchV1(final int batch) {
    return refreshes(v1Ingest, batch);
  }

  private long refreshes(final Consumer<IngestUpdate> target, final int batch) {
    final int from = (batch % 4) * UPDATES_PER_BATCH;
    final long t0 = cpuNanos();
    for (int i = from; i < from + UPDATES_PER_BATCH; i++) {
      target.accept(refresh.get(i));
    }
    return cpuNanos() - t0;
  }

  /** Nanoseconds for {@link PerfGate#REFERENCE_ITERATIONS} iterations of the reference loop. */
  long referenceBatch() {
    final long t0 = cpuNanos();
    sink += reference(table, REFERENCE_ITERATIONS);
    return cpuNanos() - t0;
  }

  @Override
  public void close() {
    index.close();
    v1.close();
  }

  /** One index's lookup into a reused result. */
  @FunctionalInterface
  interface Lookup {
    void lookupRoute(LookupRequest request, LookupResult result);
  }

  /** The fixed reference work: splitmix64 steps and reads at pseudo-random table slots. */
  static long reference(final long[] table, final int iterations) {
    final int mask = table.length - 1;
    long x = 0x9E3779B97F4A7C15L;
    long acc = 0;
    for (int i = 0; i < iterations; i++) {
      x = SyntheticChains.mix64(x + i);
      acc += table[(int) x & mask];
    }
    return acc;
  }
}
