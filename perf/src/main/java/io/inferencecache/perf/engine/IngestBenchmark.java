package io.inferencecache.perf.engine;

import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import java.util.ArrayList;
import java.util.List;
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
 * Block upserts per second on one writer thread: each call ingests one update carrying a 64-block
 * chain (16 tokens a block), so one operation is one block upsert
 * ({@code @OperationsPerInvocation(64)}).
 *
 * <ul>
 *   <li>{@code mode=newKeys}: every block is a key never seen before, in an index sized so nothing
 *       is evicted; the chain's hashes are rewritten in place before each call (both indexes copy
 *       what they keep). With {@code newKeysMap=reused} (the default) one index serves the whole
 *       trial and is emptied after each iteration (a PREFIX_EVICTED event for every block it added,
 *       not measured), so an iteration inserts its new keys into memory an earlier iteration
 *       already touched, as a running server does once its map has been filled; the keys stay new
 *       (the chain counter never repeats). The reference takes no events and is opened anew each
 *       iteration (it has no off-heap map to fault in). With {@code newKeysMap=fresh} every
 *       iteration opens a new index, so most inserts also fault in the new map's pages: the first
 *       fill of a server's map. {@code -p newKeysPrefault=N} ingests and evicts N blocks when the
 *       reused index is opened (not measured), so the map's memory has been written before the
 *       measured inserts, as in a server that has run a while.
 *   <li>{@code mode=refresh}: re-reports a chain a replica already holds in the pinned shape of
 *       {@code refreshChains} chains (16 holders a key), so each upsert rewrites one holder record
 *       of a 16-holder key.
 *   <li>{@code mode=newHolder}: each iteration starts from {@value #GROW_CHAINS} chains held by one
 *       replica; each call reports one of them for a replica that does not hold it yet, so every
 *       upsert adds a holder to a stored key (a run's entry grows).
 * </ul>
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
public class IngestBenchmark {
  private static final int BLOCKS = 64;
  private static final int TOKENS = 16;
  private static final int POOL = 4096;

  /** Storage entries a fresh newKeys index has room for: more than one iteration can add. */
  private static final long NEW_KEYS_CAPACITY = 16_000_000L;

  /**
   * Chains a newHolder iteration starts from; each can gain 15 holders (31.5M upserts: a 2-second
   * iteration at up to ~15M upserts/s), round-robin, so a chain gains its holders one at a time.
   * (8,192 until issue 41's splice: its 3.9M upserts/s cap was reached once a holder no longer
   * re-encoded its run.)
   */
  private static final int GROW_CHAINS = 32_768;

  /**
   * Storage entries of a newHolder index: every chain held by all 16 replicas, so the global cap
   * never evicts during the measurement (before issue 41 the cap was 4 holders a key, and an
   * iteration that ran past it measured cap eviction scans, most of its time).
   */
  private static final long GROW_CAPACITY = 16L * GROW_CHAINS * BLOCKS;

  @Param({IndexUnderTest.OFFHEAP, IndexUnderTest.ONHEAP})
  public String impl;

  @Param({"newKeys", "refresh", "newHolder"})
  public String mode;

  /** newKeys: {@code reused} (one index, emptied between iterations) or {@code fresh}. */
  @Param({"reused"})
  public String newKeysMap;

  /**
   * newKeys with a reused engine index: blocks ingested and evicted again by events when the index
   * is opened, not measured (0: none), so the measured inserts go into a map whose memory has been
   * written (ChronicleWriteFloorBenchmark's {@code prefault}); a multiple of 64. The reference,
   * which takes no events, ignores it.
   */
  @Param({"0"})
  public long newKeysPrefault;

  /** Chains of the pinned-shape index that refresh runs against (781 = 800k holder-blocks). */
  @Param({"781"})
  public int refreshChains;

  private IndexUnderTest index;
  private boolean newKeys;
  private boolean newHolder;
  private boolean reuse;
  private int growCalls;

  // newKeys: one chain whose hashes are rewritten before each call.
  private final List<byte[]> hashes = new ArrayList<>(BLOCKS);
  private final int[] counts = new int[BLOCKS];
  private final String[] replicas = new String[16];
  private long chain;
  private long ingestedThisIteration;
  private long firstChainThisIteration;

  // refresh: updates of (chain, holder) pairs already in the index.
  private IngestUpdate[] pool;
  private int next;

  @Setup(Level.Trial)
  public void setUpTrial() {
    newKeys = mode.equals("newKeys");
    newHolder = mode.equals("newHolder");
    reuse =
        switch (newKeysMap) {
          case "reused" -> true;
          case "fresh" -> false;
          default ->
              throw new IllegalArgumentException(
                  "newKeysMap must be reused or fresh: " + newKeysMap);
        };
    java.util.Arrays.fill(counts, TOKENS);
    for (int b = 0; b < BLOCKS; b++) {
      hashes.add(new byte[8]);
    }
    for (int r = 0; r < replicas.length; r++) {
      replicas[r] = String.format("writer-%02d", r);
    }
    if (newKeys || newHolder) {
      return;
    }
    final SyntheticChains w = SyntheticChains.pinned(refreshChains);
    index = IndexUnderTest.build(impl, w);
    pool = new IngestUpdate[POOL];
    final SplittableRandom rnd = new SplittableRandom(7);
    for (int i = 0; i < POOL; i++) {
      final int c = rnd.nextInt(w.chains());
      final int[] holders = w.holdersOf(c);
      pool[i] = w.update(c, holders[rnd.nextInt(holders.length)]);
    }
  }

  @Setup(Level.Iteration)
  public void setUpIteration() {
    if (newHolder) {
      if (index != null) {
        index.close();
      }
      index =
          IndexUnderTest.open(
              impl,
              new IndexConfig()
                  .maxEntries(GROW_CAPACITY)
                  .averageHashBytes(8)
                  .averageHoldersPerKey(16.0));
      for (int c = 0; c < GROW_CHAINS; c++) {
        index.ingest(chainUpdate(c, 0));
      }
      growCalls = 0;
      return;
    }
    if (!newKeys) {
      return;
    }
    if (index != null && !reuse) {
      index.close();
      index = null;
    }
    if (index == null) {
      index =
          IndexUnderTest.open(
              impl,
              new IndexConfig()
                  .maxEntries(NEW_KEYS_CAPACITY)
                  .averageHashBytes(8)
                  .averageHoldersPerKey(1.0));
      if (reuse && newKeysPrefault > 0) {
        prefault();
      }
    }
    ingestedThisIteration = 0;
    firstChainThisIteration = chain;
  }

  @TearDown(Level.Iteration)
  public void checkIteration() {
    if (newHolder && growCalls > GROW_CHAINS * (replicas.length - 1)) {
      throw new IllegalStateException(
          "newHolder ran out of replicas to add (" + growCalls + " calls); raise GROW_CHAINS");
    }
    final long grown = (long) (GROW_CHAINS + growCalls) * BLOCKS;
    if (newHolder && index.totalEntries() != grown) {
      throw new IllegalStateException(
          "newHolder index evicted or dropped entries: "
              + index.totalEntries()
              + " != "
              + grown
              + "; raise GROW_CAPACITY");
    }
    if (newKeys && index.totalEntries() != ingestedThisIteration) {
      throw new IllegalStateException(
          "newKeys index evicted or dropped entries: "
              + index.totalEntries()
              + " != "
              + ingestedThisIteration
              + "; raise NEW_KEYS_CAPACITY");
    }
    if (newKeys && reuse) {
      // every block of the iteration evicted by event: the map is empty again, its memory touched
      for (long c = firstChainThisIteration; c < chain; c++) {
        final String r = replicas[(int) (c & 15)];
        for (int b = 0; b < BLOCKS; b++) {
          final byte[] h = new byte[8];
          Workload.putLongBe(h, SyntheticChains.mix64(~(c * BLOCKS + b)));
          if (!index.prefixEvicted(Workload.TENANT, Workload.MODEL, r, h)) {
            index.close();
            index = null; // the reference: opened anew for the next iteration
            return;
          }
        }
      }
      if (index.totalEntries() != 0) {
        throw new IllegalStateException(
            "newKeys index not empty after the evictions: " + index.totalEntries());
      }
    }
  }

  /**
   * Ingests and evicts {@link #newKeysPrefault} blocks of chains numbered below 0 (disjoint from
   * the measured ones); leaves the index empty.
   */
  private void prefault() {
    final long chains = newKeysPrefault / BLOCKS;
    for (long c = -1; c >= -chains; c--) {
      index.ingest(chainUpdate(c, 0));
    }
    for (long c = -1; c >= -chains; c--) {
      for (int b = 0; b < BLOCKS; b++) {
        final byte[] h = new byte[8];
        Workload.putLongBe(h, SyntheticChains.mix64(~(c * BLOCKS + b)));
        if (!index.prefixEvicted(Workload.TENANT, Workload.MODEL, replicas[0], h)) {
          return; // the reference takes no events: it is opened anew each iteration anyway
        }
      }
    }
    if (index.totalEntries() != 0) {
      throw new IllegalStateException("prefault left " + index.totalEntries() + " entries");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    if (index != null) {
      index.close();
    }
  }

  /** Chain {@code c}'s 64 blocks reported by replica {@code r} (the hashes rewritten in place). */
  private IngestUpdate chainUpdate(final long c, final int r) {
    final long base = c * BLOCKS;
    for (int b = 0; b < BLOCKS; b++) {
      Workload.putLongBe(hashes.get(b), SyntheticChains.mix64(~(base + b)));
    }
    return Workload.chainUpdate(replicas[r], hashes, counts);
  }

  @Benchmark
  @OperationsPerInvocation(BLOCKS)
  public void upsertBlocks() {
    if (newKeys) {
      final long c = chain++;
      index.ingest(chainUpdate(c, (int) (c & 15)));
      ingestedThisIteration += BLOCKS;
    } else if (newHolder) {
      final int call = growCalls++;
      index.ingest(chainUpdate(call % GROW_CHAINS, 1 + (call / GROW_CHAINS) % 15));
    } else {
      index.ingest(pool[next++ & (POOL - 1)]);
    }
  }
}
