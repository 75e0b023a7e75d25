package io.inferencecache.engine.internal;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;

/**
 * The prefix index proper (layout v2, {@link RunLayout}): one Chronicle Map whose keys are the
 * stored block hashes and whose values are runs (a key that starts a run) or locators (a key inside
 * a run). Off-heap, in memory or in a persisted file.
 *
 * <p><b>Readers</b> ({@link RunCursor}) hold one entry's segment read lock while they walk a run in
 * place (no copy) and release it before the next probe. <b>The writer</b> (one thread at a time,
 * the index's writer) works on a decoded {@link RunImage} of the run it is changing: changes to the
 * same run (a whole chain's upserts, several evictions) are applied to the image and stored once,
 * when the writer moves to another run or calls {@link #flush()}. A store writes a split-off tail
 * before its locators and truncates the original last, so a concurrent reader always finds every
 * block that exists before and after the change (possibly in both places, with identical content).
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

  final ChronicleMap<byte[], byte[]> map;
  private final int maxRunBytes;
  private DropSink dropSink =
      new DropSink() {
        @Override
        public void dropped(
            final byte[] key,
            final int keyLength,
            final int replica,
            final int slot,
            final boolean keyGone) {}

        @Override
        public void refreshLost(final byte[] key, final int keyLength, final int replica) {}
      };

  private final RunImage img = new RunImage();
  private boolean open;
  private final KeyBuffer wk = new KeyBuffer();
  private final KeyBuffer loc = new KeyBuffer();
  private int locRow;
  private byte[] out = new byte[4096];
  private BytesStore<?, byte[]> outStore = BytesStore.wrap(out);
  private byte[] in = new byte[4096];
  private final byte[] locValue =
      new byte[RunLayout.LOCATOR_HASH_OFFSET + HolderLayout.MAX_HASH_BYTES];
  private final BytesStore<?, byte[]> locStore = BytesStore.wrap(locValue);

  private RunStore(final ChronicleMap<byte[], byte[]> map) {
    this.map = map;
    final VanillaChronicleHash<?, ?, ?, ?> h = (VanillaChronicleHash<?, ?, ?, ?>) map;
    final long maxEntry = h.chunkSize * (long) h.maxChunksPerEntry;
    final int limit = Integer.getInteger(MAX_RUN_BYTES_PROP_NAME, RunLayout.MAX_RUN_BYTES);
    this.maxRunBytes = (int) Math.max(512, Math.min(limit, maxEntry - 2 * 300 - 64));
  }

  /**
   * Rows of an average run, for sizing only: a chain ingested at once is one run, branch points and
   * short reports (one-block keys, Mooncake's unique tails) make shorter ones.
   */
  static final int SIZING_RUN_ROWS = 4;

  /**
   * Chronicle's allocation unit. Entries are a key, a locator (2 B + hash) or a run; 8 B chunks
   * waste at most 7 B an entry (a locator of an 8-byte hash is exactly 3 chunks).
   */
  static final int CHUNK_BYTES = 8;

  static ChronicleMapBuilder<byte[], byte[]> builder(
      final String name,
      final long entries,
      final int averageHashBytes,
      final double averageHoldersPerKey,
      final boolean checksums) {
    final double holders = Math.max(1.0, averageHoldersPerKey);
    final long keys = Math.max((long) Math.ceil(entries / holders), 1024);
    return ChronicleMapBuilder.of(byte[].class, byte[].class)
        .name(name)
        .entries(keys)
        .averageKeySize(HolderLayout.KEY_PARTITION_BYTES + averageHashBytes)
        .averageValueSize(averageValueBytes(holders, averageHashBytes))
        .actualChunkSize(CHUNK_BYTES)
        .maxBloatFactor(4.0)
        .checksumEntries(checksums);
  }

  /**
   * Value bytes per stored block key, averaged over runs and locators: the block's cells, row
   * tokens, hash (rows 1..) and locator, plus its share of a run's header, palette entry and holder
   * ids, for runs of {@link #SIZING_RUN_ROWS} rows.
   */
  static double averageValueBytes(final double holders, final int hashBytes) {
    final double r = SIZING_RUN_ROWS;
    final double perRun =
        RunLayout.HEADER_BYTES + RunLayout.PALETTE_BYTES + 2 * holders; // u16 holder ids
    final double laterRows = (r - 1) / r * (hashBytes + RunLayout.LOCATOR_HASH_OFFSET + hashBytes);
    return RunLayout.CELL_BYTES * holders + 4 + laterRows + perRun / r;
  }

  /** An in-memory (off-heap, no file) store. */
  public static RunStore inMemory(
      final String name,
      final long entries,
      final int averageHashBytes,
      final double averageHoldersPerKey) {
    return new RunStore(
        builder(name, entries, averageHashBytes, averageHoldersPerKey, false).create());
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
      requireReadyHeader(file);
    }
    final ChronicleMapBuilder<byte[], byte[]> b =
        builder("inference-cache-prefixes", entries, averageHashBytes, averageHoldersPerKey, true);
    return new RunStore(recover ? b.recoverPersistedTo(file, true) : b.createPersistedTo(file));
  }

  /**
   * Fails at once on a file whose Chronicle header is not marked ready (Chronicle would wait about
   * a minute for another process to finish writing it; this file has a single owner).
   */
  private static void requireReadyHeader(final File file) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file, "r")) {
      if (raf.length() < 12) {
        throw new IOException("index file " + file + " is too short for a header");
      }
      raf.seek(8);
      if (Integer.reverseBytes(raf.readInt()) <= 0) {
        throw new IOException("index file " + file + " has no completed header");
      }
    }
  }

  /** Where holders the map could not take are reported. */
  public void dropSink(final DropSink sink) {
    this.dropSink = sink;
  }

  /** Chronicle entries (runs, locators and metadata records). */
  public long entries() {
    return map.longSize();
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
  // Writer: upserts and removals through the run image

  /** The next upsert starts a new chain: a new block is not appended to the last one's run. */
  public void chainStart() {
    img.lastRow = -1;
  }

  /**
   * Inserts or refreshes holder {@code replica} of {@code key}. A refresh keeps the LFU slot; a new
   * holder takes one from {@code arena}, which the caller has made sure has one free. Writer only.
   *
   * @return {@link #NEW_KEY}, {@link #NEW_HOLDER} or {@link #REFRESHED}.
   */
  public int upsert(
      final KeyBuffer key,
      final int replica,
      final int tokens,
      final long lastSeen,
      final int tier,
      final CounterArena arena) {
    final int row = locateForWrite(key, true);
    try {
      final RunImage m = img;
      final int col = m.column(replica);
      m.lastRow = row;
      final int i = row * m.cols + col;
      if (m.pal[i] >= 0) {
        m.pal[i] = m.intern(lastSeen, tokens - m.tokens[row], tier);
        return REFRESHED;
      }
      final boolean newKey = m.rowCount[row] == 0;
      if (newKey) {
        m.tokens[row] = tokens;
      }
      final long sg = arena.allocate();
      m.slot[i] = (int) (sg >>> 16);
      m.gen[i] = (int) sg & 0xFFFF;
      m.pal[i] = m.intern(lastSeen, tokens - m.tokens[row], tier);
      m.rowCount[row]++;
      return newKey ? NEW_KEY : NEW_HOLDER;
    } finally {
      if (headInsert != null) {
        finishHeadInsert();
      }
    }
  }

  /**
   * The query context (update lock held) in which the probe found a new run's first key absent: the
   * run is inserted in that same context once its first cell is set, so a key that starts a run
   * costs one Chronicle operation, like a key appended to a run (its locator's claim).
   */
  private ExternalMapQueryContext<byte[], byte[], ?> headInsert;

  /** The open image equals what is stored (nothing changed since it was inserted). */
  private boolean clean;

  private void finishHeadInsert() {
    final ExternalMapQueryContext<byte[], byte[], ?> c = headInsert;
    headInsert = null;
    try {
      final RunImage m = img;
      final byte[] o = m.encode(0, m.rows, out);
      if (o != out) {
        out = o;
        outStore = BytesStore.wrap(o);
      }
      c.absentEntry().doInsert(c.wrapValueBytesAsData(outStore, 0, m.encodedLength));
      m.stored = true;
      m.locatedRows = m.rows;
      clean = true;
    } catch (IllegalStateException full) {
      // The map refused to grow: the run stays unstored; flush() retries and reports the drop.
    } finally {
      c.close();
    }
  }

  /**
   * Removes holder {@code replica} of {@code key}, copying its record into record 0 of {@code
   * removed}. Writer only.
   *
   * @return -1 if there was no such holder, 1 if the key still has holders, 0 if the key is gone.
   */
  public int removeHolder(final KeyBuffer key, final int replica, final HolderBuffer removed) {
    final int row = locateForWrite(key, false);
    if (row < 0) {
      return -1;
    }
    final RunImage m = img;
    final int col = m.findColumn(replica);
    if (col < 0 || !m.present(row, col)) {
      return -1;
    }
    removed.ensureBytes(HolderLayout.RECORD_BYTES);
    putRecord(removed, 0, m, row, col);
    removed.count = 1;
    m.clear(row, col);
    m.lastRow = row;
    return m.rowCount[row] == 0 ? 0 : 1;
  }

  /** Removes every holder of {@code key}, copying them into {@code removed}; returns how many. */
  public int removeKey(final KeyBuffer key, final HolderBuffer removed) {
    removed.count = 0;
    final int row = locateForWrite(key, false);
    if (row < 0) {
      return 0;
    }
    final RunImage m = img;
    int n = 0;
    removed.ensureBytes(m.rowCount[row] * HolderLayout.RECORD_BYTES);
    for (int c = 0; c < m.cols; c++) {
      if (m.present(row, c)) {
        putRecord(removed, n++, m, row, c);
        m.clear(row, c);
      }
    }
    removed.count = n;
    m.lastRow = row;
    return n;
  }

  private static void putRecord(
      final HolderBuffer dst, final int i, final RunImage m, final int row, final int col) {
    dst.put(
        i,
        m.seen(row, col),
        m.cellTokens(row, col),
        m.holders[col],
        m.slot(row, col),
        m.gen(row, col),
        m.tier(row, col));
  }

  /** Stores the run the writer has been changing, if any. Writer only; never throws when full. */
  public void flush() {
    if (!open) {
      return;
    }
    open = false;
    if (clean) {
      clean = false;
      return;
    }
    final RunImage m = img;
    final int located = m.locatedRows;
    try {
      writeImage(m);
    } catch (IllegalStateException full) {
      refusedStore(m, located);
    }
  }

  // Cells a refused store reverted, packed row << 32 | col << 2 | outcome (RunImage.ADDED, ...).
  private long[] reverted = new long[64];

  /**
   * The map refused a piece of the run (possibly after a split-off tail was stored): every cell
   * changed since the load goes back to what the map held before, the map is made to hold exactly
   * that (the run key's entry, which shrinks or keeps its size, and every other row's key back to
   * its locator), and only then is each reverted change reported, once. Removals since the load are
   * kept (they were reported).
   */
  private void refusedStore(final RunImage m, final int located) {
    int n = 0;
    for (int r = 0; r < m.rows; r++) {
      for (int c = 0; c < m.cols; c++) {
        final int outcome = m.revert(r, c);
        if (outcome != RunImage.KEPT) {
          if (n == reverted.length) {
            reverted = java.util.Arrays.copyOf(reverted, n * 2);
          }
          reverted[n++] = ((long) r << 32) | ((long) c << 2) | outcome;
        }
      }
    }
    try {
      restoreStored(m, located);
    } catch (IllegalStateException unexpected) {
      // Not reached: every write above replaces an existing entry with one no larger.
    }
    int keyGoneRow = -1;
    for (int k = 0; k < n; k++) {
      final int row = (int) (reverted[k] >>> 32);
      final int col = (int) (reverted[k] & 0xFFFFFFFFL) >>> 2;
      rowKey(m, row, wk);
      if ((reverted[k] & 3) == RunImage.ADDED) {
        final boolean keyGone = m.rowCount[row] == 0 && row != keyGoneRow;
        if (keyGone) {
          keyGoneRow = row;
        }
        dropSink.dropped(wk.bytes, wk.length, m.holders[col], m.slot(row, col), keyGone);
      } else {
        dropSink.refreshLost(wk.bytes, wk.length, m.holders[col]);
      }
    }
  }

  /**
   * Writes a reverted image back as one run (the content the map held at the load, less the
   * removals since: never larger than the stored entry, so replaced in place), every later row's
   * key as its locator (a refused split may have stored a tail's run or locators), and removes the
   * locators of rows that no longer exist ({@code located}: rows with a locator entry).
   */
  private void restoreStored(final RunImage m, final int located) {
    final int live = m.liveRows();
    if (live > 0) {
      putRun(m, 0, live);
    } else if (m.stored) {
      rowKey(m, 0, wk);
      removeEntry(wk);
    }
    for (int r = 1; r < live; r++) {
      putLocator(m, r, 0);
    }
    for (int r = Math.max(live, 1); r < located; r++) {
      rowKey(m, r, wk);
      removeEntry(wk);
    }
    m.stored = live > 0;
    m.locatedRows = Math.max(live, 1);
  }

  /**
   * Positions the image on the run holding {@code key} and returns its row; with {@code create},
   * adds an absent key (appended to the run of the chain's previous block when that block ends its
   * run, else as a new run); without, returns -1 for an absent key.
   */
  private int locateForWrite(final KeyBuffer key, final boolean create) {
    final int p = KeyBuffer.partitionOf(key.bytes);
    final int len = key.length - HolderLayout.KEY_PARTITION_BYTES;
    final RunImage m = img;
    if (open && m.partition == p) {
      final int r = m.findRow(key.bytes, HolderLayout.KEY_PARTITION_BYTES, len);
      if (r >= 0) {
        clean = false;
        return r;
      }
    }
    final boolean canAppend =
        create
            && open
            && m.partition == p
            && m.hashLen == len
            && m.lastRow >= 0
            && m.lastRow == m.rows - 1
            && m.rows < RunLayout.MAX_ROWS;
    final int where =
        create && !canAppend ? probeOrStartRun(key, p, len) : locateOrClaim(key, canAppend);
    if (where == STARTED) {
      return 0;
    }
    if (where == FOUND) {
      final int lastRow = open ? m.lastRow : -1;
      flush();
      if (load(loc)) {
        if (locRow < m.rows
            && m.findRow(key.bytes, HolderLayout.KEY_PARTITION_BYTES, len) == locRow) {
          clean = false;
          return locRow;
        }
        m.lastRow = lastRow;
      }
      // A locator that does not lead to its block: drop it and treat the key as absent.
      removeEntry(key);
      return create ? startRun(key, p, len) : -1;
    }
    if (!create) {
      return -1;
    }
    if (where == CLAIMED) {
      final int r = m.appendRow(key.bytes, HolderLayout.KEY_PARTITION_BYTES, 0);
      m.locatedRows = m.rows;
      clean = false;
      return r;
    }
    return startRun(key, p, len);
  }

  private int startRun(final KeyBuffer key, final int p, final int len) {
    flush();
    img.reset(p, len);
    open = true;
    clean = false;
    return img.appendRow(key.bytes, HolderLayout.KEY_PARTITION_BYTES, 0);
  }

  private static final int ABSENT = 0;
  private static final int FOUND = 1;
  private static final int CLAIMED = 2;
  private static final int STARTED = 3;

  /**
   * For a key that cannot extend the open run: stores the open run, then probes the key with the
   * update lock; {@link #FOUND} (its location read, the lock released), or {@link #STARTED}: the
   * image is a new run of this one key and {@link #headInsert} keeps the context for its insert.
   */
  private int probeOrStartRun(final KeyBuffer key, final int p, final int len) {
    flush();
    final ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(key.store, 0, key.length);
    boolean keep = false;
    try {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e != null) {
        return readLocation(e, key) ? FOUND : ABSENT;
      }
      startRun(key, p, len);
      headInsert = c;
      keep = true;
      return STARTED;
    } finally {
      if (!keep) {
        c.close();
      }
    }
  }

  /**
   * One probe for a key the writer is about to change: {@link #FOUND} (its location in {@link
   * #loc}, {@link #locRow}), or {@link #ABSENT}; with {@code claim}, an absent key gets its locator
   * (the next row of the image's run) in the same probe and the answer is {@link #CLAIMED}. Until
   * the run itself is stored, readers following that locator find no such row: the key is absent.
   */
  private int locateOrClaim(final KeyBuffer key, final boolean claim) {
    if (!claim) {
      return readLocation(key) ? FOUND : ABSENT;
    }
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      c.updateLock().lock();
      if (c.entry() != null) {
        return readLocation(c.entry(), key) ? FOUND : ABSENT;
      }
      final RunImage m = img;
      locValue[RunLayout.TAG_OFFSET] = RunLayout.LOCATOR_TAG;
      locValue[RunLayout.LOCATOR_ROW_OFFSET] = (byte) m.rows;
      System.arraycopy(m.hashes, 0, locValue, RunLayout.LOCATOR_HASH_OFFSET, m.hashLen);
      c.absentEntry()
          .doInsert(c.wrapValueBytesAsData(locStore, 0, RunLayout.LOCATOR_HASH_OFFSET + m.hashLen));
      return CLAIMED;
    }
  }

  /** Reads where {@code key} is: sets {@link #loc} (the run's key) and {@link #locRow}. */
  private boolean readLocation(final KeyBuffer key) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      return e != null && readLocation(e, key);
    }
  }

  private boolean readLocation(final MapEntry<byte[], byte[]> e, final KeyBuffer key) {
    final Data<byte[]> v = e.value();
    final RandomDataInput b = v.bytes();
    final long o = v.offset();
    if (v.size() < RunLayout.LOCATOR_HASH_OFFSET) {
      return false;
    }
    final byte tag = b.readByte(o);
    if (tag == RunLayout.RUN_TAG) {
      loc.setRaw(key.bytes, key.length);
      locRow = 0;
      return true;
    }
    if (tag != RunLayout.LOCATOR_TAG || v.size() < RunLayout.LOCATOR_HASH_OFFSET) {
      return false;
    }
    locRow = b.readByte(o + RunLayout.LOCATOR_ROW_OFFSET) & 0xFF;
    final int hl = (int) v.size() - RunLayout.LOCATOR_HASH_OFFSET;
    if (hl > HolderLayout.MAX_HASH_BYTES) {
      return false;
    }
    System.arraycopy(key.bytes, 0, loc.bytes, 0, HolderLayout.KEY_PARTITION_BYTES);
    b.read(o + RunLayout.LOCATOR_HASH_OFFSET, loc.bytes, HolderLayout.KEY_PARTITION_BYTES, hl);
    loc.length = HolderLayout.KEY_PARTITION_BYTES + hl;
    return true;
  }

  /** Loads the run stored under {@code head} into the image; false if there is none. */
  private boolean load(final KeyBuffer head) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(head.store, 0, head.length)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        return false;
      }
      final Data<byte[]> v = e.value();
      final int size = (int) v.size();
      if (size < RunLayout.UNIT_HEADER_BYTES
          || v.bytes().readByte(v.offset()) != RunLayout.RUN_TAG) {
        return false;
      }
      if (in.length < size) {
        in = new byte[Math.max(size, in.length * 2)];
      }
      v.bytes().read(v.offset(), in, 0, size);
      clean = false;
      img.decode(
          KeyBuffer.partitionOf(head.bytes),
          head.bytes,
          HolderLayout.KEY_PARTITION_BYTES,
          head.length - HolderLayout.KEY_PARTITION_BYTES,
          in,
          size);
      open = true;
      return true;
    }
  }

  private void writeImage(final RunImage m) {
    final int live = m.liveRows();
    if (live == 0) {
      if (m.stored) {
        rowKey(m, 0, wk);
        removeEntry(wk);
        for (int r = 1; r < m.locatedRows; r++) {
          rowKey(m, r, wk);
          removeEntry(wk);
        }
      }
      return;
    }
    final int per = m.rowsPerPiece(maxRunBytes);
    final int first = Math.min(live, per);
    int lastStart = first;
    while (lastStart + per < live) {
      lastStart += per;
    }
    // Split-off tails first (their run entries, then their locators), the first piece last.
    for (int s = lastStart; s >= first && s < live; s -= per) {
      final int end = Math.min(live, s + per);
      putRun(m, s, end);
      for (int r = s + 1; r < end; r++) {
        putLocator(m, r, s);
      }
      if (s == first) {
        break;
      }
    }
    putRun(m, 0, first);
    for (int r = Math.max(1, m.locatedRows); r < first; r++) {
      putLocator(m, r, 0);
    }
    for (int r = Math.max(live, 1); r < m.locatedRows; r++) {
      rowKey(m, r, wk);
      removeEntry(wk);
    }
  }

  private static void rowKey(final RunImage m, final int row, final KeyBuffer k) {
    k.bytes[0] = (byte) (m.partition >>> 24);
    k.bytes[1] = (byte) (m.partition >>> 16);
    k.bytes[2] = (byte) (m.partition >>> 8);
    k.bytes[3] = (byte) m.partition;
    System.arraycopy(
        m.hashes, row * m.hashLen, k.bytes, HolderLayout.KEY_PARTITION_BYTES, m.hashLen);
    k.length = HolderLayout.KEY_PARTITION_BYTES + m.hashLen;
  }

  private void putRun(final RunImage m, final int from, final int to) {
    final byte[] o = m.encode(from, to, out);
    if (o != out) {
      out = o;
      outStore = BytesStore.wrap(o);
    }
    rowKey(m, from, wk);
    put(wk, outStore, m.encodedLength);
  }

  private void putLocator(final RunImage m, final int row, final int headRow) {
    locValue[RunLayout.TAG_OFFSET] = RunLayout.LOCATOR_TAG;
    locValue[RunLayout.LOCATOR_ROW_OFFSET] = (byte) (row - headRow);
    System.arraycopy(
        m.hashes, headRow * m.hashLen, locValue, RunLayout.LOCATOR_HASH_OFFSET, m.hashLen);
    rowKey(m, row, wk);
    put(wk, locStore, RunLayout.LOCATOR_HASH_OFFSET + m.hashLen);
  }

  /**
   * Stores {@code value} under {@code key}; throws {@link IllegalStateException} if the map has no
   * room, the entry then holding what it held before. A value no larger than the stored one is
   * replaced in place. A larger one is never passed to {@code doReplaceValue}: when Chronicle has
   * to move a growing entry and finds no room, it throws after freeing the entry's chunks, while
   * its hash-lookup slot still names them (the entry reads as before until a later insert in the
   * segment reuses the chunks: the key is then gone, or names the other key's bytes, and the
   * segment's size is one short). So the entry is removed and the new value inserted, in the same
   * context (the segment's write lock held throughout: readers see the old value or the new one);
   * if the insert is refused, the old value, copied first, is inserted back into the space its
   * removal freed.
   */
  private void put(final KeyBuffer key, final BytesStore<?, byte[]> value, final int len) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      final Data<byte[]> data = c.wrapValueBytesAsData(value, 0, len);
      if (e == null) {
        c.absentEntry().doInsert(data);
        return;
      }
      final Data<byte[]> stored = e.value();
      final int storedLen = (int) stored.size();
      if (len <= storedLen) {
        e.doReplaceValue(data);
        return;
      }
      if (prev.length < storedLen) {
        prev = new byte[Math.max(storedLen, prev.length * 2)];
        prevStore = BytesStore.wrap(prev);
      }
      stored.bytes().read(stored.offset(), prev, 0, storedLen);
      e.doRemove();
      try {
        c.absentEntry().doInsert(data);
      } catch (IllegalStateException full) {
        c.absentEntry().doInsert(c.wrapValueBytesAsData(prevStore, 0, storedLen));
        throw full;
      }
    }
  }

  // The value put() replaces while it inserts a larger one (restored if the insert is refused).
  private byte[] prev = new byte[4096];
  private BytesStore<?, byte[]> prevStore = BytesStore.wrap(prev);

  private void removeEntry(final KeyBuffer key) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e != null) {
        e.doRemove();
      }
    }
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
  // Scans (writer only)

  private final RunImage scan = new RunImage();
  private final HolderBuffer scanHolders = new HolderBuffer(64);
  private final KeyBuffer scanKey = new KeyBuffer();
  private byte[] scanIn = new byte[4096];

  /**
   * Visits every stored block key with at least one holder, its holders in replica order (a
   * read-only view in the v1 record format). Stores the writer's pending run first.
   */
  public void forEachBlock(final BlockVisitor visitor) {
    flush();
    final int n = map.segments();
    for (int s = 0; s < n; s++) {
      try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(s)) {
        c.forEachSegmentEntry(
            e -> {
              if (decodeRun(e, scan)) {
                visitRows(scan, visitor);
              }
            });
      }
    }
  }

  private boolean decodeRun(final MapEntry<byte[], byte[]> e, final RunImage into) {
    final Data<byte[]> k = e.key();
    final int klen = (int) k.size();
    if (klen < HolderLayout.KEY_PARTITION_BYTES
        || klen > HolderLayout.KEY_PARTITION_BYTES + HolderLayout.MAX_HASH_BYTES) {
      return false;
    }
    k.bytes().read(k.offset(), scanKey.bytes, 0, klen);
    scanKey.length = klen;
    if (KeyBuffer.partitionOf(scanKey.bytes) == HolderLayout.META_PARTITION) {
      return false;
    }
    final Data<byte[]> v = e.value();
    final int size = (int) v.size();
    if (size < RunLayout.UNIT_HEADER_BYTES || v.bytes().readByte(v.offset()) != RunLayout.RUN_TAG) {
      return false;
    }
    if (scanIn.length < size) {
      scanIn = new byte[Math.max(size, scanIn.length * 2)];
    }
    v.bytes().read(v.offset(), scanIn, 0, size);
    into.decode(
        KeyBuffer.partitionOf(scanKey.bytes),
        scanKey.bytes,
        HolderLayout.KEY_PARTITION_BYTES,
        klen - HolderLayout.KEY_PARTITION_BYTES,
        scanIn,
        size);
    return true;
  }

  private final KeyBuffer visitKey = new KeyBuffer();

  private void visitRows(final RunImage m, final BlockVisitor visitor) {
    for (int r = 0; r < m.rows; r++) {
      if (m.rowCount[r] == 0) {
        continue;
      }
      scanHolders.ensureBytes(m.rowCount[r] * HolderLayout.RECORD_BYTES);
      int n = 0;
      for (int c = 0; c < m.cols; c++) {
        if (m.present(r, c)) {
          putRecord(scanHolders, n++, m, r, c);
        }
      }
      scanHolders.count = n;
      rowKey(m, r, visitKey);
      visitor.visit(visitKey.bytes, visitKey.length, scanHolders);
    }
  }

  /**
   * Removes, in segment {@code segment}, every holder {@code filter} selects, telling {@code sink}
   * about each. Writer only; the runs are rewritten after the segment is released.
   */
  public void removeCells(final int segment, final CellFilter filter, final RemovalSink sink) {
    flush();
    final List<byte[]> heads = new ArrayList<>();
    try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(segment)) {
      c.forEachSegmentEntry(
          e -> {
            if (decodeRun(e, scan) && anyDropped(scan, filter)) {
              heads.add(java.util.Arrays.copyOf(scanKey.bytes, scanKey.length));
            }
          });
    }
    final RunImage m = img;
    for (byte[] head : heads) {
      wk.setRaw(head, head.length);
      loc.setRaw(head, head.length);
      if (!load(loc)) {
        continue;
      }
      for (int r = 0; r < m.rows; r++) {
        if (m.rowCount[r] == 0) {
          continue;
        }
        for (int col = 0; col < m.cols; col++) {
          if (m.present(r, col) && filter.drop(m.partition, m.holders[col], m.seen(r, col))) {
            final int slotOf = m.slot(r, col);
            m.clear(r, col);
            rowKey(m, r, visitKey);
            sink.removed(
                visitKey.bytes, visitKey.length, m.holders[col], slotOf, m.rowCount[r] == 0);
          }
        }
      }
      flush();
    }
  }

  private static boolean anyDropped(final RunImage m, final CellFilter filter) {
    for (int r = 0; r < m.rows; r++) {
      for (int col = 0; col < m.cols; col++) {
        if (m.present(r, col) && filter.drop(m.partition, m.holders[col], m.seen(r, col))) {
          return true;
        }
      }
    }
    return false;
  }

  // ---------------------------------------------------------------------------------------------
  // Recovery (writer, at open)

  /** Decides, at reopen, whether a stored holder can be trusted (and claims its LFU slot). */
  public interface CellValidator {
    boolean valid(int partition, int replica, int slot, int gen);
  }

  /**
   * Makes a reopened file consistent: every block key belongs to exactly one run (a block left in
   * two runs by a crash mid-split stays only where its locator points), every locator leads to its
   * block, holders {@code validator} rejects are dropped. O(entries), allocates; open only. Returns
   * the number of holders dropped.
   */
  public long recover(final CellValidator validator) {
    flush();
    final List<byte[]> heads = new ArrayList<>();
    final List<byte[]> locators = new ArrayList<>();
    final int n = map.segments();
    for (int s = 0; s < n; s++) {
      try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(s)) {
        c.forEachSegmentEntry(
            e -> {
              final Data<byte[]> k = e.key();
              final byte[] key = new byte[(int) k.size()];
              k.bytes().read(k.offset(), key, 0, key.length);
              if (key.length < HolderLayout.KEY_PARTITION_BYTES
                  || key.length > HolderLayout.KEY_PARTITION_BYTES + HolderLayout.MAX_HASH_BYTES) {
                e.doRemove();
                return;
              }
              if (KeyBuffer.partitionOf(key) == HolderLayout.META_PARTITION) {
                return;
              }
              final Data<byte[]> v = e.value();
              final byte tag = v.size() >= 1 ? v.bytes().readByte(v.offset()) : 0;
              if (tag == RunLayout.RUN_TAG && v.size() >= RunLayout.UNIT_HEADER_BYTES) {
                heads.add(key);
              } else if (tag == RunLayout.LOCATOR_TAG
                  && v.size() >= RunLayout.LOCATOR_HASH_OFFSET) {
                locators.add(key);
              } else {
                e.doRemove();
              }
            });
      }
    }
    long dropped = 0;
    final java.util.Set<java.nio.ByteBuffer> owned = new java.util.HashSet<>();
    final RunImage m = img;
    for (byte[] head : heads) {
      loc.setRaw(head, head.length);
      if (!load(loc)) {
        continue;
      }
      m.locatedRows = 1; // rewrite every locator of the run
      owned.add(java.nio.ByteBuffer.wrap(head));
      // A split writes its tail (a suffix of the run) as a run of its own before truncating the
      // original: a crash in between leaves the suffix in both places, with the same content. It
      // stays in the split-off run (its first block is a run key); the locators are rewritten.
      int keep = m.rows;
      for (int r = 1; r < m.rows; r++) {
        rowKey(m, r, wk);
        final java.nio.ByteBuffer keyOf =
            java.nio.ByteBuffer.wrap(java.util.Arrays.copyOf(wk.bytes, wk.length));
        if (owned.contains(keyOf) || pointsElsewhere(wk, head)) {
          keep = r;
          break;
        }
        owned.add(keyOf);
      }
      for (int r = keep; r < m.rows; r++) {
        for (int col = 0; col < m.cols; col++) {
          m.clear(r, col);
        }
      }
      for (int r = 0; r < m.rows; r++) {
        for (int col = 0; col < m.cols; col++) {
          if (m.present(r, col)
              && !validator.valid(m.partition, m.holders[col], m.slot(r, col), m.gen(r, col))) {
            m.clear(r, col);
            dropped++;
          }
        }
      }
      flush();
    }
    for (byte[] key : locators) {
      wk.setRaw(key, key.length);
      if (!owned.contains(java.nio.ByteBuffer.wrap(key))) {
        removeEntry(wk);
      }
    }
    return dropped;
  }

  /** Whether {@code key}, a later block of run {@code head}, is itself the key of a run. */
  private boolean pointsElsewhere(final KeyBuffer key, final byte[] head) {
    return readLocation(key)
        && locRow == 0
        && !java.util.Arrays.equals(loc.bytes, 0, loc.length, head, 0, head.length);
  }

  @Override
  public void close() {
    flush();
    map.close();
  }
}
