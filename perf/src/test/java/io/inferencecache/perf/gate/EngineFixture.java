package io.inferencecache.perf.gate;

import static io.inferencecache.perf.gate.PerfGate.CHAINS;
import static io.inferencecache.perf.gate.PerfGate.LOOKUPS_PER_BATCH;
import static io.inferencecache.perf.gate.PerfGate.REFERENCE_ITERATIONS;
import static io.inferencecache.perf.gate.PerfGate.UPDATES_PER_BATCH;
import static io.inferencecache.perf.gate.PerfGate.cpuNanos;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.perf.engine.BareChronicleMap;
import io.inferencecache.perf.workload.SyntheticChains;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * The pinned-shape engine index, the bare Chronicle map of its floor ({@link BareChronicleMap},
 * sized with the same hints and holding what the engine's map holds for these chains: one entry a
 * chain, its run of 64 rows × 16 holders under its head key; the engine keeps its other blocks in
 * its heap block directory), and the pre-filled requests and updates of the timing figures.
 */
final class EngineFixture implements AutoCloseable {
  private static final int TABLE_SLOTS = 1 << 19; // 4 MiB of longs

  final SyntheticChains shape = SyntheticChains.pinned(CHAINS);
  final CacheIndex index;
  final BareChronicleMap floor;
  private final int runBytes =
      BareChronicleMap.runBytes(
          SyntheticChains.PINNED_BLOCKS,
          SyntheticChains.PINNED_HOLDERS,
          SyntheticChains.PINNED_HOLDERS);
  private final int seenOffset =
      BareChronicleMap.firstPaletteSeenOffset(SyntheticChains.PINNED_HOLDERS);
  private final Lookup engineLookup;
  private final Consumer<IngestUpdate> engineIngest;
  final LookupRequest[] requests = new LookupRequest[CHAINS];
  final int[] order = new int[LOOKUPS_PER_BATCH];
  final List<IngestUpdate> refresh = new ArrayList<>();
  final int[] refreshChain = new int[UPDATES_PER_BATCH * 4];
  private long seen;
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
    floor = new BareChronicleMap(runBytes);
    floor.use(
        BareChronicleMap.engineSized(shape.holderBlocks(), 8, SyntheticChains.PINNED_HOLDERS));
    engineLookup = index::lookupAndClassify;
    engineIngest = index::ingest;
    shape.forEachUpdate(engineIngest);
    if (index.totalEntries() != shape.holderBlocks()) {
      throw new IllegalStateException(
          "fixture holds " + index.totalEntries() + " entries, not " + shape.holderBlocks());
    }
    for (int c = 0; c < CHAINS; c++) {
      floor.fillKeyOfHash(shape.blockHash(c, 0));
      floor.insertRun(runBytes);
    }
    if (floor.map().longSize() != CHAINS) {
      throw new IllegalStateException("floor map holds " + floor.map().longSize() + " keys");
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
      refreshChain[i] = c;
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

  /**
   * Nanoseconds for the probes the same {@link PerfGate#LOOKUPS_PER_BATCH} lookups must make on the
   * bare map: one a lookup (a pinned chain is one stored run, and a lookup probes once per run it
   * passes through), of the chain's head key, its value read in place.
   */
  long probeBatch() {
    final long t0 = cpuNanos();
    long acc = 0;
    int found = 0;
    for (int i = 0; i < order.length; i++) {
      floor.fillKeyOfHash(shape.blockHash(order[i], 0));
      final long v = floor.probeInPlace();
      if (v != Long.MIN_VALUE) {
        acc += v;
        found++;
      }
    }
    final long took = cpuNanos() - t0;
    sink += acc;
    if (found != order.length) {
      throw new IllegalStateException("bare probes found " + found + " of " + order.length);
    }
    return took;
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

  /**
   * Nanoseconds for the Chronicle write the same refresh updates must make on the bare map: per
   * update, its chain's run (under the head key) copied out, patched and replaced in place with the
   * same size.
   */
  long updateBatch(final int batch) {
    final int from = (batch % 4) * UPDATES_PER_BATCH;
    final long t0 = cpuNanos();
    long acc = 0;
    for (int i = from; i < from + UPDATES_PER_BATCH; i++) {
      floor.fillKeyOfHash(shape.blockHash(refreshChain[i], 0));
      acc += floor.replaceInPlace(seenOffset, ++seen);
    }
    final long took = cpuNanos() - t0;
    if (acc < (long) UPDATES_PER_BATCH * runBytes) {
      throw new IllegalStateException("bare updates missed a run: " + acc);
    }
    sink += acc;
    return took;
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
    floor.close();
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
