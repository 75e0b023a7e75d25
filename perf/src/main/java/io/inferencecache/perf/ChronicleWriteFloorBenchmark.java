package io.inferencecache.perf;

import java.util.SplittableRandom;
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
 * Chronicle Map's own floor under {@link IngestBenchmark}: the writer's Chronicle operations alone,
 * on a bare map configured as the engine's ({@link BareChronicleMap#engineSized}), keys of the
 * engine's shape (partition id 4 B + 8 B hash), values of the sizes the engine stores. No engine
 * code runs. Mode.Throughput, operations per second, one thread; every write is what {@code
 * RunEntries} or {@code RunRefresh} does: a query context, its update lock, {@code entry()}, then
 * the write.
 *
 * <p>Per Chronicle operation (a batch of {@value #BATCH} an invocation; keys never repeat):
 *
 * <ul>
 *   <li>{@code insertLocator}: a new key with a locator's value ({@value
 *       BareChronicleMap#LOCATOR_BYTES} B; a 24 B entry with its key and size prefixes), as a block
 *       that extends an open run claims its key;
 *   <li>{@code insertUnitRun}: a new key with a one-block, one-holder run ({@link
 *       BareChronicleMap#UNIT_RUN_BYTES} B), as a block that starts a run;
 *   <li>{@code remove}: a stored key removed (keys inserted before the invocation, not measured);
 *   <li>{@code replaceInPlace}: a pinned shape's 64 × 16 run ({@link #PINNED_RUN_BYTES} B) copied
 *       out, one palette entry patched and the value replaced with one of the same size, as {@code
 *       RunRefresh} does once per refreshed run.
 * </ul>
 *
 * <p>Per block upsert, the Chronicle operations of a whole 64-block chain as the engine does them
 * ({@code @OperationsPerInvocation} counts blocks, so these compare with IngestBenchmark's
 * upserts/s):
 *
 * <ul>
 *   <li>{@code newChain}: block 0 inserted as a unit run, blocks 1..63 claimed with locators, the
 *       64-row run stored over block 0's entry (larger: removed and inserted in one context);
 *   <li>{@code refreshChain}: the head key's location read (a read context), then {@code
 *       replaceInPlace} of its run.
 * </ul>
 *
 * <p>Fill levels match IngestBenchmark: the new-key modes run on a map sized as its {@code newKeys}
 * index ({@code entries} = 16M holder-blocks at 1 holder a key) holding {@code fill} keys (0: the
 * emptied, reused index), and keys an invocation inserts are removed after it (not measured), so
 * the fill stays constant; the refresh modes on the pinned map of {@code refreshChains} chains (64
 * blocks × 16 holders: one run and 63 locators a chain), as its {@code refresh}. {@code -p
 * prefault=16000000} first writes every page of the new-key map once (the steady state of a server
 * whose map has been filled before), which IngestBenchmark's emptied index reaches only gradually.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms1g", "-Xmx8g"})
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 3, time = 2)
@Threads(1)
public class ChronicleWriteFloorBenchmark {
  static final int BATCH = 1024;
  static final int BLOCKS = 64;
  static final int HOLDERS = 16;
  static final int CHAINS_PER_BATCH = BATCH / BLOCKS;

  /** A 64-block run held by 16 replicas, each with its own palette entry (the pinned shape). */
  static final int PINNED_RUN_BYTES = BareChronicleMap.runBytes(BLOCKS, HOLDERS, HOLDERS);

  /** A 64-block run of one holder (a new chain's run once stored). */
  static final int CHAIN_RUN_BYTES = BareChronicleMap.runBytes(BLOCKS, 1, 1);

  /** The writer: a bare map's operations, and a new chain's entries as the engine writes them. */
  abstract static class Writer extends BareChronicleMap {
    Writer() {
      super(PINNED_RUN_BYTES);
    }

    /** Inserts the Chronicle entries of new 64-block chain {@code chain}, as the engine does. */
    final void insertChain(final long chain) {
      final long base = chain * BLOCKS;
      fillKey(base);
      if (!insert(unitRunStore, BareChronicleMap.UNIT_RUN_BYTES)) {
        throw new IllegalStateException("chain " + chain + " is not new");
      }
      for (int b = 1; b < BLOCKS; b++) {
        locatorFor(base, b);
        fillKey(base + b);
        insert(locatorStore, BareChronicleMap.LOCATOR_BYTES);
      }
      fillKey(base);
      grow(CHAIN_RUN_BYTES);
    }
  }

  /**
   * The new-key map, sized as IngestBenchmark's {@code newKeys} index and holding {@code fill} keys
   * between invocations.
   */
  @State(Scope.Benchmark)
  public abstract static class KeyMap extends Writer {
    /** Holder-blocks the map is sized for (IngestBenchmark's {@code NEW_KEYS_CAPACITY}). */
    @Param({"16000000"})
    public long entries;

    /** Keys stored before the trial (0: the reused, emptied newKeys index). */
    @Param({"0"})
    public long fill;

    /**
     * Keys inserted and removed again before the trial, not measured (0: none). Chronicle takes a
     * new entry's chunks from its segment's free space searching forward from the last allocation,
     * so a map is touched page by page as keys come and go; {@code prefault} = the map's capacity
     * measures the floor in a map whose memory every page has been written once, as a running
     * server's.
     */
    @Param({"0"})
    public long prefault;

    long nextBlock;
    long firstThisInvocation;
    long prefaulted;

    @Setup(Level.Trial)
    public void open() {
      use(BareChronicleMap.engineSized(entries, 8, 1.0));
      final long touch = -prefault - 1; // block numbers below 0: disjoint from the measured keys
      for (long k = touch; k < -1; k++) {
        fillKey(k);
        if (insert(locatorStore, BareChronicleMap.LOCATOR_BYTES)) {
          prefaulted++;
        }
      }
      for (long k = touch; k < -1; k++) {
        fillKey(k);
        removeKey();
      }
      for (long k = 0; k < fill; k++) {
        fillKey(k);
        insert(locatorStore, BareChronicleMap.LOCATOR_BYTES);
      }
      nextBlock = fill;
    }

    /** Starts an invocation's keys, chain-aligned (newChain's blocks stay disjoint from others). */
    final void startBatch() {
      nextBlock = (nextBlock + BLOCKS - 1) / BLOCKS * BLOCKS;
      firstThisInvocation = nextBlock;
    }

    /** Removes the keys of blocks {@code firstThisInvocation..nextBlock-1}; checks the fill. */
    final void removeBatch() {
      for (long b = firstThisInvocation; b < nextBlock; b++) {
        fillKey(b);
        removeKey();
      }
      if (map.longSize() != fill) {
        throw new IllegalStateException("map holds " + map.longSize() + " keys, not " + fill);
      }
    }

    @TearDown(Level.Trial)
    public void closeMap() {
      close();
    }
  }

  /** {@link KeyMap}; what an invocation inserts is removed after it (not measured). */
  @State(Scope.Benchmark)
  public static class NewKeys extends KeyMap {
    @Setup(Level.Invocation)
    public void mark() {
      startBatch();
    }

    @TearDown(Level.Invocation)
    public void removeInserted() {
      removeBatch();
    }
  }

  /** {@link KeyMap}; an invocation's {@value #BATCH} keys are inserted before it (not measured). */
  @State(Scope.Benchmark)
  public static class StoredKeys extends KeyMap {
    @Setup(Level.Invocation)
    public void insertBatch() {
      startBatch();
      for (long b = firstThisInvocation; b < firstThisInvocation + BATCH; b++) {
        fillKey(b);
        insert(locatorStore, BareChronicleMap.LOCATOR_BYTES);
      }
      nextBlock = firstThisInvocation + BATCH;
    }

    @TearDown(Level.Invocation)
    public void checkRemoved() {
      removeBatch();
    }
  }

  /** The pinned map of IngestBenchmark's {@code refresh}: one run and 63 locators a chain. */
  @State(Scope.Benchmark)
  public static class HeldRuns extends Writer {
    private static final int POOL = 4096;

    /** Chains stored (IngestBenchmark's {@code refreshChains}). */
    @Param({"781"})
    public int refreshChains;

    final int seenOffset = BareChronicleMap.firstPaletteSeenOffset(HOLDERS);
    final int[] order = new int[POOL];
    int next;
    long seen;

    @Setup(Level.Trial)
    public void open() {
      use(BareChronicleMap.engineSized((long) refreshChains * BLOCKS * HOLDERS, 8, HOLDERS));
      for (int c = 0; c < refreshChains; c++) {
        final long base = (long) c * BLOCKS;
        fillKey(base);
        insertRun(PINNED_RUN_BYTES);
        for (int b = 1; b < BLOCKS; b++) {
          locatorFor(base, b);
          fillKey(base + b);
          insert(locatorStore, BareChronicleMap.LOCATOR_BYTES);
        }
      }
      final SplittableRandom rnd = new SplittableRandom(7);
      for (int i = 0; i < POOL; i++) {
        order[i] = rnd.nextInt(refreshChains);
      }
    }

    /** The head key of the next chain in the (random, IngestBenchmark-like) refresh order. */
    final void nextHead() {
      fillKey((long) order[next++ & (POOL - 1)] * BLOCKS);
    }

    @TearDown(Level.Trial)
    public void closeMap() {
      close();
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void insertLocator(final NewKeys s) {
    for (int i = 0; i < BATCH; i++) {
      s.fillKey(s.nextBlock++);
      s.insert(s.locatorStore, BareChronicleMap.LOCATOR_BYTES);
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void insertUnitRun(final NewKeys s) {
    for (int i = 0; i < BATCH; i++) {
      s.fillKey(s.nextBlock++);
      s.insert(s.unitRunStore, BareChronicleMap.UNIT_RUN_BYTES);
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void remove(final StoredKeys s) {
    for (long b = s.firstThisInvocation; b < s.firstThisInvocation + BATCH; b++) {
      s.fillKey(b);
      s.removeKey();
    }
  }

  @Benchmark
  @OperationsPerInvocation(BATCH)
  public void newChain(final NewKeys s) {
    for (int c = 0; c < CHAINS_PER_BATCH; c++) {
      s.insertChain(s.nextBlock / BLOCKS);
      s.nextBlock += BLOCKS;
    }
  }

  @Benchmark
  public int replaceInPlace(final HeldRuns s) {
    s.nextHead();
    return s.replaceInPlace(s.seenOffset, ++s.seen);
  }

  @Benchmark
  @OperationsPerInvocation(BLOCKS)
  public int refreshChain(final HeldRuns s) {
    s.nextHead();
    if (s.readLocation() < 0) {
      return -1;
    }
    return s.replaceInPlace(s.seenOffset, ++s.seen);
  }
}
