package io.inferencecache.engine.internal;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.util.function.IntPredicate;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.VanillaChronicleMap;

/**
 * The prefix index proper (layout v3, {@link RunLayout}): one Chronicle Map whose keys are the
 * first blocks of runs of consecutive blocks and whose values are the runs, off-heap, in memory or
 * in a persisted file; and a {@link BlockLocations} on the heap that finds every stored block key
 * (its run and row), rebuilt from the runs on open.
 *
 * <p><b>Readers</b> ({@link RunCursor}) hold one entry's segment read lock while they walk a run in
 * place (no copy; inside Chronicle's {@code getUsing}, {@link RunValueReader}) and release it
 * before the next probe. <b>The writer</b> (one thread at a time, the index's writer) changes runs
 * through this class, which delegates to the parts that each own one thing:
 *
 * <ul>
 *   <li>{@link RunWriter}: upserts and removals on a decoded {@link RunImage}, stored once per run;
 *   <li>{@link RunEntries}: the Chronicle operations, one entry at a time (encode, decode, locate,
 *       put, remove);
 *   <li>{@link RefusedRunRollback}: a run the map refuses is put back and its changes reported;
 *   <li>{@link RunScans}: visits of every stored block and filtered removals, segment by segment;
 *   <li>{@link RunRecovery}: the consistency pass over a reopened file;
 *   <li>{@link RunMapSizing}: the map's sizing hints and the persisted file's header check.
 * </ul>
 */
public final class RunStore implements Closeable {
  /** {@link #upsert} outcome: the key was new (so was the holder). */
  public static final int NEW_KEY = 2;

  /** {@link #upsert} outcome: the key existed, the holder is new. */
  public static final int NEW_HOLDER = 1;

  /** {@link #upsert} outcome: the holder existed and was refreshed. */
  public static final int REFRESHED = 0;

  /**
   * System property capping the bytes of one stored run (default {@link RunLayout#MAX_RUN_BYTES},
   * and never more than Chronicle's largest entry): a tuning and test knob; smaller runs split more
   * often.
   */
  public static final String MAX_RUN_BYTES_PROP_NAME = "inferencecache.engine.maxRunBytes";

  /**
   * System property: a mask (hex) applied to every block-directory fingerprint of a store created
   * after it is set. A test knob: {@code F0000000} leaves 16 fingerprints, so that nearly every
   * lookup meets colliding candidates and must check them. Default: all bits kept.
   */
  public static final String FINGERPRINT_MASK_PROP_NAME = "inferencecache.engine.fingerprintMask";

  /**
   * Hears the changes the store could not keep because the map refused to grow, once each, after
   * the map no longer holds them. Writer only.
   */
  public interface DropSink {
    /**
     * The holder {@code (key, replica)} added since the run was loaded is not stored; its LFU
     * {@code slot} is named by no stored cell; {@code keyGone}: the key has no holder left.
     */
    void dropped(byte[] key, int keyLength, int replica, int slot, boolean keyGone);

    /** The refresh of holder {@code (key, replica)} is not stored: it keeps its previous values. */
    void refreshLost(byte[] key, int keyLength, int replica);
  }

  /** Visitor of {@link #forEachBlock}: one stored block key and its holders (read only). */
  public interface BlockVisitor {
    void visit(byte[] key, int keyLength, HolderBuffer holders);
  }

  /** Which holders {@link #removeCells} removes. */
  public interface CellFilter {
    boolean drop(int partition, int replica, long lastSeen);
  }

  /** Hears each holder {@link #removeCells} removed; {@code keyGone} on a block's last holder. */
  public interface RemovalSink {
    void removed(byte[] key, int keyLength, int replica, int slot, boolean keyGone);
  }

  /** Decides, at reopen, whether a stored holder can be trusted (and claims its LFU slot). */
  public interface CellValidator {
    boolean valid(int partition, int replica, int slot, int gen);
  }

  final ChronicleMap<byte[], byte[]> map;
  final BlockLocations directory;
  private final RefusedRunRollback rollback;
  private final RunWriter writer;
  private final RunScans scans;
  private final RunRecovery recovery;
  private final RunEntries entries;

  private final boolean inPlace;

  private RunStore(final ChronicleMap<byte[], byte[]> map, final long expectedKeys) {
    this(map, new BlockLocations(expectedKeys));
  }

  private RunStore(final ChronicleMap<byte[], byte[]> map, final BlockLocations directory) {
    this.map = map;
    this.directory = directory;
    this.inPlace =
        map instanceof VanillaChronicleMap
            && ((VanillaChronicleMap<?, ?, ?>) map).valueReader instanceof RunValueReader;
    this.entries = new RunEntries(map, directory);
    this.rollback = new RefusedRunRollback(entries);
    this.writer = new RunWriter(entries, rollback, RunMapSizing.maxRunBytes(map));
    this.scans = new RunScans(entries, writer);
    this.recovery = new RunRecovery(entries, writer);
  }

  /** A store over a map already built with {@link RunMapSizing#builder} (the perf floor's). */
  static RunStore over(final ChronicleMap<byte[], byte[]> map) {
    return new RunStore(map, 1024);
  }

  /** An in-memory store whose directory gives out at most {@code maxRunIds} run ids (tests). */
  static RunStore inMemoryWithRunIds(final String name, final long entries, final int maxRunIds) {
    return new RunStore(
        RunMapSizing.builder(name, entries, 8, 1.0, false).create(),
        new BlockLocations(RunMapSizing.expectedKeys(entries, 1.0), maxRunIds));
  }

  /** An in-memory (off-heap, no file) store. */
  public static RunStore inMemory(
      final String name,
      final long entries,
      final int averageHashBytes,
      final double averageHoldersPerKey) {
    return new RunStore(
        RunMapSizing.builder(name, entries, averageHashBytes, averageHoldersPerKey, false).create(),
        RunMapSizing.expectedKeys(entries, averageHoldersPerKey));
  }

  /** A store persisted to {@code file}; {@code recover} opens it in Chronicle's recovery mode. */
  public static RunStore persisted(
      final File file,
      final long entries,
      final int averageHashBytes,
      final double averageHoldersPerKey,
      final boolean recover)
      throws IOException {
    if (file.length() > 0) {
      RunMapSizing.requireReadyHeader(file);
    }
    final ChronicleMapBuilder<byte[], byte[]> b =
        RunMapSizing.builder(
            "inference-cache-prefixes", entries, averageHashBytes, averageHoldersPerKey, true);
    return new RunStore(
        recover ? b.recoverPersistedTo(file, true) : b.createPersistedTo(file),
        RunMapSizing.expectedKeys(entries, averageHoldersPerKey));
  }

  /**
   * Whether readers read runs inside {@code getUsing} ({@link RunValueReader}): true for every map
   * this engine creates; false for a file created before that reader existed, whose header names
   * Chronicle's own reader ({@link RunCursor#visit} then opens a query context instead).
   */
  public boolean readsInPlace() {
    return inPlace;
  }

  /** Where holders the map could not take are reported. */
  public void dropSink(final DropSink sink) {
    rollback.sink(sink);
  }

  /** Chronicle entries (runs and metadata records). */
  public long entries() {
    return map.longSize();
  }

  /** Stored block keys (the directory's entries: every block of every run). */
  public long blockKeys() {
    return directory.keys();
  }

  /** Runs of more than one block (those with a run id). */
  public long multiBlockRuns() {
    return directory.runIds();
  }

  /**
   * Heap bytes of the block directory ({@link BlockLocations}: its table of 8-byte slots and the
   * run ids' first keys), allocated: part of the index's footprint besides {@link #offHeapBytes()}.
   */
  public long directoryBytes() {
    return directory.bytes();
  }

  /** Bytes of {@link #directoryBytes()} the stored keys and run ids use. */
  public long directoryUsedBytes() {
    return directory.usedBytes();
  }

  /** Off-heap bytes the map occupies (allocated: segment tiers sized from the hints). */
  public long offHeapBytes() {
    return map.offHeapMemoryUsed();
  }

  /**
   * Off-heap bytes the stored entries use: their chunks (key, value, sizes, checksum, rounding)
   * plus one hash-lookup slot each. The difference to {@link #offHeapBytes()} is free space of the
   * allocated tiers. Scans the segments' free lists; for measurements, not the hot path.
   */
  public long usedBytes() {
    long used = 0;
    for (ChronicleMap.SegmentStats st : map.segmentStats()) {
      used += st.usedBytes();
    }
    final VanillaChronicleHash<?, ?, ?, ?> h = (VanillaChronicleHash<?, ?, ?, ?>) map;
    return used + map.longSize() * h.tierHashLookupSlotSize;
  }

  /** Number of segments, for segment-at-a-time sweeps. */
  public int segments() {
    return map.segments();
  }

  // ---------------------------------------------------------------------------------------------
  // Writer (RunWriter)

  /**
   * Brings the directory slots of blocks {@code hashes[from, to)} of partition {@code partition}
   * into the cache before they are upserted one by one, so their misses overlap ({@code scratch} is
   * overwritten). Changes nothing. Writer only.
   */
  public void prefetch(
      final KeyBuffer scratch,
      final int partition,
      final java.util.List<byte[]> hashes,
      final int from,
      final int to) {
    if (writer.imageHolds(partition, hashes, from, to)) {
      return; // rows of the run being changed: found in its image, not in the directory
    }
    if (prefetchFps.length < to - from) {
      prefetchFps = new int[Math.max(to - from, 2 * prefetchFps.length)];
    }
    int n = 0;
    for (int j = from; j < to; j++) {
      final byte[] h = hashes.get(j);
      if (h != null && scratch.set(partition, h, 0, h.length)) {
        prefetchFps[n++] = directory.fingerprint(scratch);
      }
    }
    prefetchSink = directory.table().touch(prefetchFps, n);
  }

  private int[] prefetchFps = new int[64];

  // Keeps the prefetching reads from being optimized away.
  @SuppressWarnings("unused")
  private long prefetchSink;

  /** The next upsert starts a new chain: a new block is not appended to the last one's run. */
  public void chainStart() {
    writer.chainStart();
  }

  /**
   * Inserts or refreshes holder {@code replica} of {@code key}. A refresh keeps the LFU slot; a new
   * holder takes its place in {@code arena}'s budget, which the caller has made sure has room, and
   * a counter when {@code counter}. Writer only.
   *
   * @return {@link #NEW_KEY}, {@link #NEW_HOLDER} or {@link #REFRESHED}.
   */
  public int upsert(
      final KeyBuffer key,
      final int replica,
      final int tokens,
      final long lastSeen,
      final int tier,
      final CounterArena arena,
      final boolean counter) {
    return writer.upsert(key, replica, tokens, lastSeen, tier, arena, counter);
  }

  /**
   * Refreshes holder {@code replica} of a re-reported chain per run rather than per block: blocks
   * {@code hashes[from..]}, the first of which is {@code key}, as far as they follow one another in
   * the run holding {@code key} and the replica holds each with the token count {@code tokens[j]}
   * (cumulative) and one attribute entry of its own ({@link RunRefresh}). The stored result is
   * exactly what {@link #upsert} of each of those blocks (each a {@link #REFRESHED}) would store.
   * Returns how many blocks it refreshed; for 0 nothing changed and the caller upserts {@code key}.
   * Writer only; never refused (the run keeps its size).
   */
  public int refreshChain(
      final KeyBuffer key,
      final java.util.List<byte[]> hashes,
      final int from,
      final int[] tokens,
      final int replica,
      final long lastSeen,
      final int tier) {
    return writer.refreshChain(key, hashes, from, tokens, replica, lastSeen, tier);
  }

  /**
   * Removes holder {@code replica} of {@code key}, copying its record into record 0 of {@code
   * removed}. Writer only.
   *
   * @return -1 if there was no such holder, 1 if the key still has holders, 0 if the key is gone.
   */
  public int removeHolder(final KeyBuffer key, final int replica, final HolderBuffer removed) {
    return writer.removeHolder(key, replica, removed);
  }

  /** Removes every holder of {@code key}, copying them into {@code removed}; returns how many. */
  public int removeKey(final KeyBuffer key, final HolderBuffer removed) {
    return writer.removeKey(key, removed);
  }

  /** Stores the run the writer has been changing, if any. Writer only; never throws when full. */
  public void flush() {
    writer.flush();
  }

  // ---------------------------------------------------------------------------------------------
  // Metadata records

  /** Raw put of a metadata record (persisted stores). Writer only. */
  public void putRaw(final byte[] key, final byte[] value) {
    map.put(key, value);
  }

  /** Raw get of a metadata record, or null. */
  public byte[] getRaw(final byte[] key) {
    return map.get(key);
  }

  // ---------------------------------------------------------------------------------------------
  // Scans and recovery (writer only)

  /**
   * Visits every stored block key with at least one holder, its holders in replica order (a
   * read-only view in the v1 record format). Stores the writer's pending run first.
   */
  public void forEachBlock(final BlockVisitor visitor) {
    scans.forEachBlock(visitor);
  }

  /**
   * Removes, in segment {@code segment}, every holder {@code filter} selects, telling {@code sink}
   * about each. Writer only; the runs are rewritten after the segment is released.
   */
  public void removeCells(final int segment, final CellFilter filter, final RemovalSink sink) {
    scans.removeCells(segment, filter, sink);
  }

  /**
   * Gives an LFU counter from {@code arena} to every holder stored without one in a partition
   * {@code partition} selects, rewriting each such run in place (its size does not change, so the
   * map never refuses it). Stores the writer's pending run first. Writer only; returns how many
   * counters it gave.
   */
  public long assignCounters(final IntPredicate partition, final CounterArena arena) {
    return scans.assignCounters(partition, arena);
  }

  /**
   * Makes a reopened file consistent and builds the directory: every block key belongs to exactly
   * one run (a block left in two runs by a crash mid-split stays in the split-off run), layout 2's
   * locator entries are removed, holders {@code validator} rejects are dropped. O(entries),
   * allocates; open only. Returns the number of holders dropped.
   */
  public long recover(final CellValidator validator) {
    return recovery.recover(validator);
  }

  /** Runs the writer stored by copying their bytes around an added holder's column (tests). */
  long splicedRuns() {
    return writer.image().splicedRuns();
  }

  @Override
  public void close() {
    try {
      writer.flush();
      map.close();
    } finally {
      entries.close(); // native memory: freed whatever the map's close did
    }
  }
}
