package io.inferencecache.perf.engine;

import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Loading the wide shape of {@link WideChainLookupBenchmark} (issue 41): {@value #HOLDER_BLOCKS}
 * holder-blocks of 64-block chains, each reported in full by {@code holders} of 1,024 replicas, so
 * every shape is 15,360 reports. One invocation loads the whole shape, round-robin over the chains
 * (a chain's run gains its holders one at a time with the other chains' reports in between, as a
 * fleet's reports arrive): the first report of a chain inserts new keys, the others add a holder to
 * stored keys. The score is the time per block upsert ({@code @OperationsPerInvocation}; upserts/s
 * = 10^9 / score).
 *
 * <p>One index serves the whole trial, sized for the shape; after each iteration every holder it
 * loaded is removed again by events (not measured), so the next load inserts into memory a load
 * already touched, as in a server that has run a while; the trial's setup loads and empties the
 * shape once before the first iteration. (Until issue 41 every iteration opened a new index sized
 * for 8M entries and ran 2 seconds: the narrow shapes measured the page faults of a fresh map, and
 * the wide ones only their first rounds of holders.) Compare the shapes in one run: {@code
 * holders=1} and {@code 16} are the narrow ones.
 */
@BenchmarkMode(Mode.SingleShotTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms1g", "-Xmx8g"})
@Warmup(iterations = 2)
@Measurement(iterations = 5)
@Threads(1)
@State(Scope.Benchmark)
public class WideIngestBenchmark {
  private static final int BLOCKS = SyntheticChains.PINNED_BLOCKS;

  /** Holder-blocks of every shape (the table: 983,040 = 15,360 reports of 64 blocks). */
  static final int HOLDER_BLOCKS = 983_040;

  @Param({"1", "16", "64", "128", "256", "512"})
  public int holders;

  private SyntheticChains shape;
  private int[][] holdersOf;
  private IndexUnderTest index;
  private final List<byte[]> hashes = new ArrayList<>(BLOCKS);
  private final int[] counts = new int[BLOCKS];

  @Setup(Level.Trial)
  public void setUpTrial() {
    shape = WideChainLookupBenchmark.wide(HOLDER_BLOCKS, holders);
    if (shape.holderBlocks() != HOLDER_BLOCKS) {
      throw new IllegalArgumentException(
          holders
              + " holders do not divide "
              + HOLDER_BLOCKS
              + " holder-blocks into 64-block chains");
    }
    holdersOf = new int[shape.chains()][];
    for (int c = 0; c < shape.chains(); c++) {
      holdersOf[c] = shape.holdersOf(c);
    }
    for (int b = 0; b < BLOCKS; b++) {
      hashes.add(new byte[8]);
    }
    Arrays.fill(counts, SyntheticChains.PINNED_TOKENS_PER_BLOCK);
    index = IndexUnderTest.open(IndexUnderTest.OFFHEAP, IndexUnderTest.configFor(shape));
    load();
    evictAll(); // the map's memory touched before the first measured load
  }

  @TearDown(Level.Iteration)
  public void tearDownIteration() {
    evictAll();
  }

  @TearDown(Level.Trial)
  public void tearDownTrial() {
    index.close();
  }

  /** The whole shape, one replica's report of one chain at a time, round-robin over the chains. */
  @Benchmark
  @OperationsPerInvocation(HOLDER_BLOCKS)
  public void load() {
    final int chains = shape.chains();
    for (int round = 0; round < holders; round++) {
      for (int c = 0; c < chains; c++) {
        for (int b = 0; b < BLOCKS; b++) {
          Workload.putLongBe(hashes.get(b), shape.blockHash(c, b));
        }
        final IngestUpdate u =
            Workload.chainUpdate(shape.replicaName(holdersOf[c][round]), hashes, counts);
        index.ingest(u);
      }
    }
  }

  /**
   * Checks the index holds the whole shape, then empties it: below 64 holders by a PREFIX_EVICTED
   * per holder-block (each re-encodes a narrow run), then by an ALL_CLEARED per replica (a scan of
   * the map each, cheap once it is empty or has few runs; a PREFIX_EVICTED per holder-block would
   * re-encode a run of hundreds of columns each time); checks it is empty.
   */
  private void evictAll() {
    if (index.totalEntries() != HOLDER_BLOCKS) {
      throw new IllegalStateException(
          "index holds " + index.totalEntries() + " entries after loading " + HOLDER_BLOCKS);
    }
    if (holders < 64) {
      // narrow runs: a PREFIX_EVICTED per holder-block is cheap (one ALL_CLEARED scans every run)
      final byte[] h = new byte[8];
      for (int c = 0; c < shape.chains(); c++) {
        for (final int r : holdersOf[c]) {
          for (int b = 0; b < BLOCKS; b++) {
            Workload.putLongBe(h, shape.blockHash(c, b));
            index.prefixEvicted(Workload.TENANT, Workload.MODEL, shape.replicaName(r), h);
          }
        }
      }
    }
    final java.util.BitSet replicas = new java.util.BitSet();
    for (final int[] chainHolders : holdersOf) {
      for (final int r : chainHolders) {
        replicas.set(r);
      }
    }
    for (int r = replicas.nextSetBit(0); r >= 0; r = replicas.nextSetBit(r + 1)) {
      index.allCleared(Workload.TENANT, Workload.MODEL, shape.replicaName(r));
    }
    if (index.totalEntries() != 0) {
      throw new IllegalStateException("index holds " + index.totalEntries() + " after evicting");
    }
  }
}
