package io.inferencecache.engine.internal;

import static io.inferencecache.engine.internal.RunLayout.CELL_BYTES;
import static io.inferencecache.engine.internal.RunLayout.CELL_GEN_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.CELL_PALETTE_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.CELL_SLOT_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_DELTA_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_SEEN_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_TIER_OFFSET;

import java.nio.ByteOrder;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import org.agrona.BufferUtil;
import org.agrona.DirectBuffer;
import org.agrona.UnsafeApi;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A reader's window on one stored run ({@link RunLayout}), read in place. {@link #visit}, the
 * lookups' read, finds the run holding a key and runs a {@link RunVisitor} on it inside Chronicle's
 * {@code getUsing}, under the entry's segment read lock ({@link RunValueReader}); {@link #open}
 * does the same through a query context and keeps the lock until {@link #close} (inspection, tests,
 * files without the engine's reader). The accessors read the entry's off-heap bytes directly. One
 * per thread (it lives in the thread's {@code LookupResult}); allocation-free.
 *
 * <p>A key is looked up as a run key first (one probe: the common case, a chain's first block); a
 * key the map does not hold is looked up in the store's {@link BlockLocations}, whose candidates
 * name a run and a row, trusted once that row of that run has the key's hash. A key with no
 * candidate is absent. A candidate that fails (another key's, or this key's read while the writer
 * moved it: a split, a trimmed tail, a run id given back) makes the reader look again, the map
 * first, a few times before it reports the key absent.
 */
public final class RunCursor implements AutoCloseable {
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();
  private static final boolean LITTLE_ENDIAN = ORDER == ByteOrder.LITTLE_ENDIAN;
  private static final int ATTEMPTS = 4;

  private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
  private final UnsafeBuffer query = new UnsafeBuffer(new byte[0]);
  private final KeyBuffer head = new KeyBuffer();
  private final BlockDirectory.Probe probe = new BlockDirectory.Probe();
  private int hopRow; // the key's row in head's run, from its directory entry
  private ExternalMapQueryContext<byte[], byte[], ?> ctx;
  private int rows;
  private int cols;
  private int hashLen;
  private int paletteAt;
  private int paletteStride;
  private boolean wideHolders;
  private int tokensAt;
  private int holdersAt;
  private int hashesAt;
  private int row;

  /**
   * Opens the run that holds {@code key}; returns false (nothing held open) if the key is not
   * stored. On true, {@link #row()} is the key's row and the caller must {@link #close()}.
   */
  public boolean open(final RunStore store, final KeyBuffer key) {
    int fp = 0; // computed once the map has said no, as in visit
    for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
      if (enter(store.map, key.store, key.length)) {
        if (openedRun(key)) {
          return true;
        }
        close();
      }
      if (fp == 0) {
        fp = store.directory.fingerprint(key);
      }
      boolean stale = false;
      for (probe.start(store.directory.table(), fp); probe.next(); ) {
        if (candidate(store, key) && openAt(store.map, head, hopRow, key)) {
          return true;
        }
        stale = true;
      }
      if (!stale) {
        return false;
      }
    }
    return false;
  }

  /**
   * Opens the run stored under {@code runKey} if its row {@code r} (at least 1) has {@code key}'s
   * hash; on true {@link #row()} is {@code r} and the caller must {@link #close()}. The writer's
   * check of a directory candidate.
   */
  boolean openAt(
      final ChronicleMap<byte[], byte[]> map,
      final KeyBuffer runKey,
      final int r,
      final KeyBuffer key) {
    if (!enter(map, runKey.store, runKey.length)) {
      return false;
    }
    hopRow = r;
    if (locatedRun(key)) {
      return true;
    }
    close();
    return false;
  }

  /**
   * Whether the probe's current entry names a later row of a run whose first key, of {@code key}'s
   * partition and length, is now in {@link #head} (and the row in {@link #hopRow}). A candidate
   * that does not (a {@code HEAD}: a run key, which the map said this key is not; a run id given
   * back or reused) or whose run lacks the key at that row may be another key's entry, or this
   * key's read while the writer moved it (a split makes a block a run key, repoints its entry in
   * place and may give the old run's id back): the caller then looks again, the map included.
   */
  private boolean candidate(final RunStore store, final KeyBuffer key) {
    final int v = probe.value();
    if (v == BlockLocations.HEAD) {
      return false;
    }
    hopRow = BlockLocations.rowOf(v);
    return store.directory.headKey(
        BlockLocations.runOf(v), KeyBuffer.partitionOf(key.bytes), key.length, head);
  }

  /** Whether the value is a run (the key is its first block): then parsed, at row 0. */
  private boolean openedRun(final KeyBuffer key) {
    if (!parsedRun(key)) {
      return false;
    }
    row = 0;
    return true;
  }

  /** Whether the value is a run: then parsed, for hashes as long as the key's. */
  private boolean parsedRun(final KeyBuffer key) {
    if (view.getByte(RunLayout.TAG_OFFSET) != RunLayout.RUN_TAG
        || view.capacity() < RunLayout.UNIT_HEADER_BYTES) {
      return false;
    }
    parse(key.length - HolderLayout.KEY_PARTITION_BYTES);
    return true;
  }

  /**
   * Whether the value (of a candidate's run key) is a run whose row {@link #hopRow} still has the
   * key's hash: then parsed, at that row. False when the writer moved the block meanwhile.
   */
  private boolean locatedRun(final KeyBuffer key) {
    if (!parsedRun(key)) {
      return false;
    }
    final int r = hopRow;
    if (r <= 0 || r >= rows || !rowEquals(r, key.bytes, HolderLayout.KEY_PARTITION_BYTES)) {
      return false;
    }
    row = r;
    return true;
  }

  // In-place visit state (visit -> Chronicle's getUsing -> RunValueReader -> inPlace).
  private RunVisitor visitor;
  private KeyBuffer visitKey;
  private boolean hop; // inPlace reads a candidate's run: head holds its key, hopRow the row
  private boolean visited;

  /**
   * Reads the run that holds {@code key} in place and runs {@code v} on it while it is open (under
   * the entry's segment read lock); returns false, without running {@code v}, if the key is not
   * stored. Finds the run as {@link #open} does. The fast read: Chronicle's {@code getUsing} path
   * ({@link RunValueReader}), or a query context for a store that cannot ({@link
   * RunStore#readsInPlace()}). Allocation-free once the key's length has been met.
   */
  public boolean visit(final RunStore store, final KeyBuffer key, final RunVisitor v) {
    if (!store.readsInPlace()) {
      if (!open(store, key)) {
        return false;
      }
      try {
        v.visit(this);
      } finally {
        close();
      }
      return true;
    }
    RunValueReader.bind(this);
    visitor = v;
    visitKey = key;
    try {
      visited = false;
      int fp = 0; // computed once the map has said no
      for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
        hop = false;
        if (store.map.getUsing(key.exact(), RunValueReader.IN_PLACE) != null && visited) {
          return true;
        }
        hop = true;
        if (fp == 0) {
          fp = store.directory.fingerprint(key);
        }
        boolean stale = false;
        for (probe.start(store.directory.table(), fp); probe.next(); ) {
          if (candidate(store, key)) {
            store.map.getUsing(head.exact(), RunValueReader.IN_PLACE);
            if (visited) {
              return true;
            }
          }
          stale = true;
        }
        if (!stale) {
          return false;
        }
      }
      return false;
    } finally {
      visitor = null;
      visitKey = null;
      hop = false;
      view.wrap(0, 0); // nothing may read the entry once its lock is released
    }
  }

  /**
   * Called by {@link RunValueReader} under the entry's lock during {@link #visit}: the value of the
   * key asked for, or of the run a directory candidate named.
   */
  void inPlace(final long address, final long size) {
    final RunVisitor v = visitor;
    if (v == null || size < 4 || size > Integer.MAX_VALUE) {
      return;
    }
    view.wrap(address, (int) size);
    final KeyBuffer key = visitKey;
    if (hop ? locatedRun(key) : openedRun(key)) {
      visited = true;
      v.visit(this);
    }
  }

  private boolean enter(
      final ChronicleMap<byte[], byte[]> map,
      final net.openhft.chronicle.bytes.BytesStore<?, byte[]> key,
      final int length) {
    ctx = map.queryContext(key, 0, length);
    final MapEntry<byte[], byte[]> e = ctx.entry();
    if (e == null) {
      close();
      return false;
    }
    final Data<byte[]> v = e.value();
    final int size = (int) v.size();
    if (size < 4) {
      close();
      return false;
    }
    view.wrap(v.bytes().addressForRead(v.offset()), size);
    return true;
  }

  private void parse(final int keyHashLen) {
    final int flags = view.getByte(RunLayout.FLAGS_OFFSET) & 0xFF;
    final boolean unit = (flags & RunLayout.FLAG_UNIT) != 0;
    rows = unit ? 1 : view.getShort(RunLayout.ROWS_OFFSET, ORDER) & 0xFFFF;
    cols = unit ? 1 : view.getShort(RunLayout.COLS_OFFSET, ORDER) & 0xFFFF;
    final int pal = unit ? 1 : view.getShort(RunLayout.PALETTE_OFFSET, ORDER) & 0xFFFF;
    cellsAt = RunLayout.cellsOffset(flags);
    hashLen = keyHashLen;
    paletteStride = RunLayout.paletteStride(flags);
    wideHolders = (flags & RunLayout.FLAG_WIDE_HOLDERS) != 0;
    hasDeltas = (flags & RunLayout.FLAG_DELTAS) != 0;
    paletteAt = RunLayout.paletteOffset(rows, cols, flags);
    tokensAt = RunLayout.tokensOffset(rows, cols, pal, flags);
    holdersAt = RunLayout.holdersOffset(rows, cols, pal, flags);
    hashesAt = RunLayout.hashesOffset(rows, cols, pal, flags);
    segmentsAt = -1;
    if ((flags & RunLayout.FLAG_SEGMENTS) != 0) {
      final int index = RunLayout.segmentIndexOffset(rows, cols, pal, flags, keyHashLen);
      if (RunLayout.storedBytes(view, ORDER, rows, cols, pal, flags, keyHashLen)
          == view.capacity()) {
        segmentIndexAt = index;
        segmentsAt = index + (cols + 1) * 2;
      }
    }
  }

  private int segmentIndexAt;
  // Offset of the segment list, or -1: the run has none (or they do not fit its size).
  private int segmentsAt;

  /** Whether the open run describes its columns by segments ({@link RunLayout#FLAG_SEGMENTS}). */
  public boolean hasSegments() {
    return segmentsAt >= 0;
  }

  /** The first segment of column {@code c} (with {@link #hasSegments()}). */
  public int firstSegment(final int c) {
    return view.getShort(segmentIndexAt + c * 2, ORDER) & 0xFFFF;
  }

  /** One past the last segment of column {@code c}. */
  public int endSegment(final int c) {
    return view.getShort(segmentIndexAt + (c + 1) * 2, ORDER) & 0xFFFF;
  }

  /** The first row of segment {@code s}. */
  public int segmentRow(final int s) {
    return view.getShort(
            segmentsAt + s * RunLayout.SEGMENT_BYTES + RunLayout.SEGMENT_ROW_OFFSET, ORDER)
        & 0xFFFF;
  }

  /** The palette reference (0 = not held) of every cell of segment {@code s}. */
  public int segmentRef(final int s) {
    return view.getShort(
            segmentsAt + s * RunLayout.SEGMENT_BYTES + RunLayout.SEGMENT_REF_OFFSET, ORDER)
        & 0xFFFF;
  }

  private boolean hasDeltas;
  private int cellsAt;

  /** Releases the run's segment read lock (idempotent). */
  @Override
  public void close() {
    final ExternalMapQueryContext<byte[], byte[], ?> c = ctx;
    if (c != null) {
      ctx = null;
      c.close();
    }
  }

  /** Blocks of the open run. */
  public int rows() {
    return rows;
  }

  /** Holders (columns) of the open run. */
  public int cols() {
    return cols;
  }

  /** The row of the key {@link #open} was given. */
  public int row() {
    return row;
  }

  /** Replica id of column {@code c} (ascending in c). */
  public int holder(final int c) {
    return wideHolders
        ? view.getInt(holdersAt + c * 4, ORDER)
        : view.getShort(holdersAt + c * 2, ORDER) & 0xFFFF;
  }

  private int cell(final int r, final int c) {
    return cellsAt + (r * cols + c) * CELL_BYTES;
  }

  /** Palette index + 1 of cell (r, c); 0 when replica c does not hold block r. */
  public int paletteRef(final int r, final int c) {
    return view.getShort(cell(r, c) + CELL_PALETTE_OFFSET, ORDER) & 0xFFFF;
  }

  /**
   * Cell (r, c) as one word, read with one access: decode it with {@link #paletteRefOf} and {@link
   * #creditWordOf}.
   */
  public long cellWord(final int r, final int c) {
    return view.getLong(cell(r, c), ORDER);
  }

  /** {@link #paletteRef} of a {@link #cellWord}. */
  public static int paletteRefOf(final long cell) {
    return LITTLE_ENDIAN ? (int) (cell >>> 48) : (int) cell & 0xFFFF;
  }

  /**
   * The LFU slot (low 32 bits) and generation (the next 16) of a {@link #cellWord}; the bits above
   * are not part of it (they may hold the palette reference).
   */
  public static long creditWordOf(final long cell) {
    return LITTLE_ENDIAN ? cell : (cell >>> 32) | ((cell >>> 16 & 0xFFFF) << 32);
  }

  /** lastSeen (epoch ns) of palette reference {@code ref} (from {@link #paletteRef}). */
  public long seen(final int ref) {
    return view.getLong(paletteAt + (ref - 1) * paletteStride + PALETTE_SEEN_OFFSET, ORDER);
  }

  /** Stored tier code of palette reference {@code ref}. */
  public int tier(final int ref) {
    return view.getByte(paletteAt + (ref - 1) * paletteStride + PALETTE_TIER_OFFSET) & 0xFF;
  }

  /** Stored token count of cell (r, c) with palette reference {@code ref}. */
  public int tokens(final int r, final int ref) {
    final int rowTokens = view.getInt(tokensAt + r * 4, ORDER);
    return hasDeltas
        ? rowTokens
            + view.getInt(paletteAt + (ref - 1) * paletteStride + PALETTE_DELTA_OFFSET, ORDER)
        : rowTokens;
  }

  /** LFU slot of cell (r, c). */
  public int slot(final int r, final int c) {
    return view.getInt(cell(r, c) + CELL_SLOT_OFFSET, ORDER);
  }

  /** LFU slot generation of cell (r, c). */
  public int gen(final int r, final int c) {
    return view.getShort(cell(r, c) + CELL_GEN_OFFSET, ORDER) & 0xFFFF;
  }

  /**
   * How many of rows {@code r, r + 1, …} (at most {@code n}; {@code r ≥ 1}) have the request's
   * hashes {@code b, b + 1, …} ({@code src[offs[i], offs[i] + lens[i])}): the stretch a lookup can
   * follow without looking at the holders. The same as calling {@link #rowEquals(int, byte[], int,
   * int)} row after row, with the bounds checked once for the stretch instead of per read.
   */
  public int matchingRows(
      final int r, final int n, final byte[] src, final int[] offs, final int[] lens, final int b) {
    final int len = hashLen;
    final int at = hashesAt + (r - 1) * len;
    if (n <= 0 || r < 1 || at + (long) n * len > view.capacity()) {
      int i = 0;
      while (i < n && rowEquals(r + i, src, offs[b + i], lens[b + i])) {
        i++;
      }
      return i;
    }
    final byte[] heap = view.byteArray(); // null: the run is off-heap (always, in a Chronicle map)
    final long base = view.addressOffset() + at;
    final int last = src.length - len;
    int i = 0;
    if (len == Long.BYTES) {
      for (; i < n; i++) {
        final int off = offs[b + i];
        if (lens[b + i] != Long.BYTES
            || off < 0
            || off > last
            || UnsafeApi.getLong(heap, base + ((long) i << 3))
                != UnsafeApi.getLong(src, BufferUtil.ARRAY_BASE_OFFSET + off)) {
          break;
        }
      }
      return i;
    }
    for (; i < n; i++) {
      final int off = offs[b + i];
      if (lens[b + i] != len
          || off < 0
          || off > last
          || !equalRaw(heap, base + (long) i * len, src, off)) {
        break;
      }
    }
    return i;
  }

  /**
   * Whether the {@link #hashLen} bytes at {@code address} (of {@code heap}, or off-heap) equal
   * {@code src[off, off + hashLen)}.
   */
  private boolean equalRaw(final byte[] heap, final long address, final byte[] src, final int off) {
    final long from = BufferUtil.ARRAY_BASE_OFFSET + off;
    int i = 0;
    for (; i + Long.BYTES <= hashLen; i += Long.BYTES) {
      if (UnsafeApi.getLong(heap, address + i) != UnsafeApi.getLong(src, from + i)) {
        return false;
      }
    }
    for (; i < hashLen; i++) {
      if (UnsafeApi.getByte(heap, address + i) != UnsafeApi.getByte(src, from + i)) {
        return false;
      }
    }
    return true;
  }

  /** Whether row {@code r} (≥ 1) has the hash {@code src[off, off + len)}. */
  public boolean rowEquals(final int r, final byte[] src, final int off, final int len) {
    if (len != hashLen) {
      return false;
    }
    if (query.byteArray() != src) {
      query.wrap(src);
    }
    return equalBytes(r, query, off);
  }

  private boolean rowEquals(final int r, final byte[] src, final int off) {
    if (query.byteArray() != src) {
      query.wrap(src);
    }
    return equalBytes(r, query, off);
  }

  /** Whether row {@code r} (≥ 1) has the hash {@code src[off, off + len)}. */
  public boolean rowEquals(final int r, final DirectBuffer src, final int off, final int len) {
    if (len != hashLen) {
      return false;
    }
    return equalBytes(r, src, off);
  }

  private boolean equalBytes(final int r, final DirectBuffer src, final int off) {
    final int at = hashesAt + (r - 1) * hashLen;
    int i = 0;
    for (; i + 8 <= hashLen; i += 8) {
      if (view.getLong(at + i) != src.getLong(off + i)) {
        return false;
      }
    }
    for (; i < hashLen; i++) {
      if (view.getByte(at + i) != src.getByte(off + i)) {
        return false;
      }
    }
    return true;
  }
}
