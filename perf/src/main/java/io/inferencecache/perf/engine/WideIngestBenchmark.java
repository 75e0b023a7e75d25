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
 * Block upserts per second while the wide shape of {@link WideChainLookupBenchmark} is loaded
 * (issue 41): 64-block chains, each reported in full by {@code holders} of 1,024 replicas. Each
 * call ingests one replica's report of one chain (one operation = one block upsert,
 * {@code @OperationsPerInvocation(64)}), round-robin over the chains, so a chain's run gains its
 * holders one at a time with the other chains' reports in between, as a fleet's reports arrive. The
 * first report of a chain inserts new keys, the others add a holder to stored keys. Every iteration
 * starts from an empty index (opened in the iteration's setup, not measured) with room for {@code
 * holderBlocks}; an iteration that would run past the shape fails (raise {@code holderBlocks}).
 * Compare the rates across {@code holders} in the same run: {@code holders=1} and {@code 16} are
 * the narrow shapes.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms1g", "-Xmx8g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 2)
@Threads(1)
@State(Scope.Benchmark)
public class WideIngestBenchmark {
  private static final int BLOCKS = SyntheticChains.PINNED_BLOCKS;

  @Param({"1", "16", "64", "128", "256", "512"})
  public int holders;

  /** Holder-blocks of the shape: more than one iteration ingests. */
  @Param({"8388608"})
  public long holderBlocks;

  private SyntheticChains shape;
  private int[][] holdersOf;
  private IndexUnderTest index;
  private final List<byte[]> hashes = new ArrayList<>(BLOCKS);
  private final int[] counts = new int[BLOCKS];
  private long call;

  @Setup(Level.Trial)
  public void setUpTrial() {
    shape = WideChainLookupBenchmark.wide(holderBlocks, holders);
    holdersOf = new int[shape.chains()][];
    for (int c = 0; c < shape.chains(); c++) {
      holdersOf[c] = shape.holdersOf(c);
    }
    for (int b = 0; b < BLOCKS; b++) {
      hashes.add(new byte[8]);
    }
    Arrays.fill(counts, SyntheticChains.PINNED_TOKENS_PER_BLOCK);
  }

  @Setup(Level.Iteration)
  public void setUpIteration() {
    index = IndexUnderTest.open(IndexUnderTest.OFFHEAP, IndexUnderTest.configFor(shape));
    call = 0;
  }

  @TearDown(Level.Iteration)
  public void tearDownIteration() {
    final long want = call * BLOCKS;
    final long got = index.totalEntries();
    index.close();
    index = null;
    if (got != want) {
      throw new IllegalStateException("index holds " + got + " entries after " + want + " upserts");
    }
  }

  @Benchmark
  @OperationsPerInvocation(BLOCKS)
  public void upsertBlocks() {
    final long i = call++;
    final int chains = shape.chains();
    final long round = i / chains;
    if (round >= holders) {
      throw new IllegalStateException(
          "the shape is loaded (" + i + " reports): raise holderBlocks above " + holderBlocks);
    }
    final int c = (int) (i % chains);
    for (int b = 0; b < BLOCKS; b++) {
      Workload.putLongBe(hashes.get(b), shape.blockHash(c, b));
    }
    final IngestUpdate u =
        Workload.chainUpdate(shape.replicaName(holdersOf[c][(int) round]), hashes, counts);
    index.ingest(u);
  }
}
