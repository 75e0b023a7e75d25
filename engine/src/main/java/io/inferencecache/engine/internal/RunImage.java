package io.inferencecache.engine.internal;

import static io.inferencecache.engine.internal.RunLayout.CELL_BYTES;
import static io.inferencecache.engine.internal.RunLayout.CELL_GEN_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.CELL_PALETTE_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.CELL_SLOT_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_BYTES;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_DELTA_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_SEEN_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_TIER_OFFSET;

import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.function.IntFunction;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The writer's decoded, mutable copy of one run ({@link RunLayout}): the writer loads a run once,
 * applies every change an ingest, an eviction or a sweep makes to it, and stores it once. Row 0's
 * hash is the run's key; {@link #dirVal} says what the {@link BlockLocations} holds for each row's
 * key. Single-threaded (the index writer). Grows its arrays as needed and keeps them.
 */
final class RunImage {
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();

  int partition;
  int hashLen;
  int rows;
  byte[] hashes = new byte[64 * 8];
  int[] tokens = new int[64];
  int[] rowCount = new int[64];

  int cols;
  int[] holders = new int[16];
  // Cells, row-major with stride cols: slot, generation and palette index (-1: absent).
  int[] slot = new int[64 * 16];
  int[] gen = new int[64 * 16];
  int[] pal = new int[64 * 16];
  // Per cell, the palette index the map holds for it since the load (-1: none, or a holder
  // removed since, which was reported): what a refused store reverts the cell to.
  int[] before = new int[64 * 16];

  int palSize;
  long[] palSeen = new long[16];
  int[] palDelta = new int[16];
  int[] palTier = new int[16];
  private int lastPal = -1;

  /** The run's id in the {@link BlockLocations} ({@link BlockLocations#NO_RUN}: none yet). */
  int runId;

  /**
   * Per row, the value the {@link BlockLocations} holds for the row's key ({@link
   * BlockLocations#NO_ENTRY}: none yet), so that the writer finds and changes exactly that entry.
   */
  int[] dirVal = new int[64];

  /**
   * Encode without segments ({@link RunLayout#FLAG_SEGMENTS}): a rolled-back run, whose plain
   * encoding is never larger than what the map held, so its store cannot be refused.
   */
  boolean plain;

  /** The rows by hash, for {@link #findRow}. */
  final RowIndex rowIndex = new RowIndex();

  /** Whether the run's entry exists in the map (it was loaded, not created). */
  boolean stored;

  /** The row the last change touched, for appending the next block of the same chain. */
  int lastRow = -1;

  private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);

  /**
   * The run as its stored bytes while a holder's column is added to it ({@link #decodeForAdd}):
   * while it is active the cell arrays above are not filled, and the cell accessors read it.
   */
  private final RunSplice splice = new RunSplice();

  /** The general encoder (every cell decoded). */
  private final RunEncoder encoder = new RunEncoder();

  void reset(final int partition, final int hashLen) {
    this.partition = partition;
    this.hashLen = hashLen;
    rows = 0;
    cols = 0;
    palSize = 0;
    lastPal = -1;
    runId = BlockLocations.NO_RUN;
    stored = false;
    lastRow = -1;
    rowIndex.clear();
    splice.active = false;
    splice.kept = false;
  }

  /**
   * The bytes row 0's key has in the map, as this image read them ({@link #decodeForAdd}), or null
   * when it does not know them; {@link #storedRunLength} long.
   */
  byte[] storedRun() {
    return splice.kept ? splice.stored() : null;
  }

  int storedRunLength() {
    return splice.storedLength();
  }

  /** Runs this image stored by copying their bytes around an added column ({@link RunSplice}). */
  long splicedRuns() {
    return splice.spliced;
  }

  /** Row 0's key was stored anew: {@link #storedRun} no longer knows its bytes. */
  void storedRunReplaced() {
    splice.kept = false;
  }

  /** Decodes the stored run {@code value[0, valueLen)} whose map key is {@code head}. */
  void decode(final KeyBuffer head, final byte[] value, final int valueLen) {
    decode(head, value, valueLen, false);
  }

  /**
   * As {@link #decode(KeyBuffer, byte[], int)} for a run a replica it does not hold yet is about to
   * report (a declined refresh): a run with segments keeps its cells as stored bytes ({@link
   * RunSplice}), so adding the replica's column costs a copy of the run, not a decode and an encode
   * of every cell. Anything else the writer does to the image decodes them first. Takes {@code
   * value} itself when it keeps the bytes: returns the array the caller has from now on (another
   * one, or {@code value}).
   */
  byte[] decodeForAdd(final KeyBuffer head, final byte[] value, final int valueLen) {
    return decode(head, value, valueLen, true);
  }

  private byte[] decode(
      final KeyBuffer head, final byte[] value, final int valueLen, final boolean forAdd) {
    return decode(
        KeyBuffer.partitionOf(head.bytes),
        head.bytes,
        HolderLayout.KEY_PARTITION_BYTES,
        head.length - HolderLayout.KEY_PARTITION_BYTES,
        value,
        valueLen,
        forAdd);
  }

  /** Decodes a stored run whose key hash is {@code head[headOff, headOff + hashLen)}. */
  void decode(
      final int partition,
      final byte[] head,
      final int headOff,
      final int headLen,
      final byte[] value,
      final int valueLen) {
    decode(partition, head, headOff, headLen, value, valueLen, false);
  }

  private byte[] decode(
      final int partition,
      final byte[] head,
      final int headOff,
      final int headLen,
      final byte[] value,
      final int valueLen,
      final boolean forAdd) {
    view.wrap(value, 0, valueLen);
    final int flags = view.getByte(RunLayout.FLAGS_OFFSET) & 0xFF;
    final boolean unit = (flags & RunLayout.FLAG_UNIT) != 0;
    final int r = unit ? 1 : view.getShort(RunLayout.ROWS_OFFSET, ORDER) & 0xFFFF;
    final int c = unit ? 1 : view.getShort(RunLayout.COLS_OFFSET, ORDER) & 0xFFFF;
    final int p = unit ? 1 : view.getShort(RunLayout.PALETTE_OFFSET, ORDER) & 0xFFFF;
    final boolean deltas = (flags & RunLayout.FLAG_DELTAS) != 0;
    final boolean wide = (flags & RunLayout.FLAG_WIDE_HOLDERS) != 0;
    reset(partition, headLen);
    ensureRows(r);
    ensureCells(r * c);
    ensureCols(c);
    ensurePalette(p);
    rows = r;
    cols = c;
    palSize = p;
    final byte[] kept =
        forAdd && RunSplice.eligible(flags)
            ? splice.adopt(value, valueLen, flags, r, c, p, headLen)
            : value;
    final boolean bytes = kept != value;
    int at = RunLayout.cellsOffset(flags);
    if (bytes) {
      at += r * c * CELL_BYTES;
    } else {
      for (int i = 0; i < r * c; i++, at += CELL_BYTES) {
        slot[i] = view.getInt(at + CELL_SLOT_OFFSET, ORDER);
        gen[i] = view.getShort(at + CELL_GEN_OFFSET, ORDER) & 0xFFFF;
        pal[i] = (view.getShort(at + CELL_PALETTE_OFFSET, ORDER) & 0xFFFF) - 1;
        before[i] = pal[i];
      }
    }
    final int stride = RunLayout.paletteStride(flags);
    for (int i = 0; i < p; i++, at += stride) {
      palSeen[i] = view.getLong(at + PALETTE_SEEN_OFFSET, ORDER);
      palTier[i] = view.getByte(at + PALETTE_TIER_OFFSET) & 0xFF;
      palDelta[i] = deltas ? view.getInt(at + PALETTE_DELTA_OFFSET, ORDER) : 0;
    }
    for (int i = 0; i < r; i++, at += 4) {
      tokens[i] = view.getInt(at, ORDER);
    }
    for (int i = 0; i < c; i++) {
      if (wide) {
        holders[i] = view.getInt(at, ORDER);
        at += 4;
      } else {
        holders[i] = view.getShort(at, ORDER) & 0xFFFF;
        at += 2;
      }
    }
    System.arraycopy(head, headOff, hashes, 0, headLen);
    if (r > 1) {
      view.getBytes(at, hashes, headLen, (r - 1) * headLen);
    }
    if (bytes) {
      splice.rowCounts(rowCount);
    } else {
      for (int i = 0; i < r; i++) {
        int n = 0;
        for (int j = 0; j < c; j++) {
          if (pal[i * c + j] >= 0) {
            n++;
          }
        }
        rowCount[i] = n;
      }
    }
    dirVal[0] = BlockLocations.HEAD; // later rows: RunEntries binds the run's id
    Arrays.fill(dirVal, 1, r, BlockLocations.NO_ENTRY);
    stored = true;
    rowIndex.rebuild(hashes, hashLen, rows);
    return kept;
  }

  /** The row whose hash equals {@code key[off, off + len)}, or -1; tries the row after the last. */
  int findRow(final byte[] key, final int off, final int len) {
    if (len != hashLen) {
      return -1;
    }
    final int next = lastRow + 1;
    if (next > 0 && next < rows && rowEquals(next, key, off)) {
      return next;
    }
    return rowIndex.find(hashes, hashLen, key, off);
  }

  private boolean rowEquals(final int row, final byte[] key, final int off) {
    return Arrays.equals(hashes, row * hashLen, row * hashLen + hashLen, key, off, off + hashLen);
  }

  /** Appends a block row (no holders yet). */
  int appendRow(final byte[] key, final int off, final int tokensOfRow) {
    materialize();
    final int r = rows;
    ensureRows(r + 1);
    ensureCells((r + 1) * cols);
    System.arraycopy(key, off, hashes, r * hashLen, hashLen);
    tokens[r] = tokensOfRow;
    rowCount[r] = 0;
    dirVal[r] = BlockLocations.NO_ENTRY;
    Arrays.fill(pal, r * cols, (r + 1) * cols, -1);
    Arrays.fill(before, r * cols, (r + 1) * cols, -1);
    rows = r + 1;
    rowIndex.added(hashes, hashLen, rows);
    return r;
  }

  /** The column of {@code replica}, inserting it (empty) in replica order if absent. */
  int column(final int replica) {
    if (splice.active) {
      final int found = Arrays.binarySearch(holders, 0, cols, replica);
      if (found >= 0) {
        return found;
      }
      if (splice.at < 0) {
        final int at = -found - 1;
        ensureCols(cols + 1);
        System.arraycopy(holders, at, holders, at + 1, cols - at);
        holders[at] = replica;
        cols++;
        splice.addColumn(at);
        return at;
      }
      materialize();
    }
    int lo = 0;
    int hi = cols - 1;
    while (lo <= hi) {
      final int mid = (lo + hi) >>> 1;
      final int h = holders[mid];
      if (h < replica) {
        lo = mid + 1;
      } else if (h > replica) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    final int at = lo;
    final int n = cols + 1;
    ensureCols(n);
    ensureCells(rows * n);
    // Re-stride the cells from the last row backwards so nothing is overwritten before it moved
    // (each row's right part first: arraycopy moves overlapping ranges as if through a copy).
    for (int r = rows - 1; r >= 0; r--) {
      final int from = r * cols;
      final int to = r * n;
      restride(from + at, to + at + 1, cols - at);
      restride(from, to, at);
      pal[to + at] = -1;
      before[to + at] = -1;
    }
    System.arraycopy(holders, at, holders, at + 1, cols - at);
    holders[at] = replica;
    cols = n;
    return at;
  }

  private void restride(final int from, final int to, final int count) {
    System.arraycopy(slot, from, slot, to, count);
    System.arraycopy(gen, from, gen, to, count);
    System.arraycopy(pal, from, pal, to, count);
    System.arraycopy(before, from, before, to, count);
  }

  /**
   * Decodes the cells of a run held as stored bytes ({@link #decodeForAdd}) into the cell arrays,
   * the added column's included; nothing if they are decoded already.
   */
  void materialize() {
    if (splice.active) {
      ensureCells(rows * cols);
      splice.materialize(this);
    }
  }

  /** Palette index of cell {@code (row, col)}, -1 if absent. */
  int pal(final int row, final int col) {
    return splice.active ? splice.pal(row, col) : pal[row * cols + col];
  }

  /** Sets cell {@code (row, col)}'s palette index (the cell is present). */
  void setPal(final int row, final int col, final int p) {
    if (splice.active && col == splice.at) {
      splice.set(row, splice.slot(row, col), splice.gen(row, col), p);
      return;
    }
    materialize();
    pal[row * cols + col] = p;
  }

  /** Sets cell {@code (row, col)}: its LFU slot and generation, and its palette index. */
  void setCell(final int row, final int col, final int slotOf, final int genOf, final int p) {
    if (splice.active && col == splice.at) {
      splice.set(row, slotOf, genOf, p);
      return;
    }
    materialize();
    final int i = row * cols + col;
    slot[i] = slotOf;
    gen[i] = genOf;
    pal[i] = p;
  }

  /** Column of {@code replica}, or -1. */
  int findColumn(final int replica) {
    final int i = Arrays.binarySearch(holders, 0, cols, replica);
    return i < 0 ? -1 : i;
  }

  /** The palette index of {@code (seen, delta, tier)}, interning it. */
  int intern(final long seen, final int delta, final int tier) {
    final int last = lastPal;
    if (last >= 0 && palSeen[last] == seen && palDelta[last] == delta && palTier[last] == tier) {
      return last;
    }
    for (int i = palSize - 1; i >= 0; i--) {
      if (palSeen[i] == seen && palDelta[i] == delta && palTier[i] == tier) {
        lastPal = i;
        return i;
      }
    }
    ensurePalette(palSize + 1);
    palSeen[palSize] = seen;
    palDelta[palSize] = delta;
    palTier[palSize] = tier;
    lastPal = palSize;
    return palSize++;
  }

  boolean present(final int row, final int col) {
    return pal(row, col) >= 0;
  }

  long seen(final int row, final int col) {
    return palSeen[pal(row, col)];
  }

  int cellTokens(final int row, final int col) {
    return tokens[row] + palDelta[pal(row, col)];
  }

  int tier(final int row, final int col) {
    return palTier[pal(row, col)];
  }

  int slot(final int row, final int col) {
    return splice.active ? splice.slot(row, col) : slot[row * cols + col];
  }

  int gen(final int row, final int col) {
    return splice.active ? splice.gen(row, col) : gen[row * cols + col];
  }

  /** Writes row {@code row}'s map key (partition id, then the row's hash) into {@code k}. */
  void rowKey(final int row, final KeyBuffer k) {
    k.putPartition(partition);
    System.arraycopy(hashes, row * hashLen, k.bytes, HolderLayout.KEY_PARTITION_BYTES, hashLen);
    k.length = HolderLayout.KEY_PARTITION_BYTES + hashLen;
  }

  /** Copies cell {@code (row, col)} into record {@code i} of {@code dst} (the v1 record format). */
  void copyCell(final HolderBuffer dst, final int i, final int row, final int col) {
    dst.put(
        i,
        seen(row, col),
        cellTokens(row, col),
        holders[col],
        slot(row, col),
        gen(row, col),
        tier(row, col));
  }

  void clear(final int row, final int col) {
    materialize();
    final int i = row * cols + col;
    if (pal[i] >= 0) {
      pal[i] = -1;
      rowCount[row]--;
    }
    before[i] = -1;
  }

  /** {@link #revert} outcome of a cell: unchanged since the load (or removed, and reported). */
  static final int KEPT = 0;

  /** {@link #revert} outcome of a cell: a holder added since the load, now cleared. */
  static final int ADDED = 1;

  /** {@link #revert} outcome of a cell: a refreshed holder, back to its stored values. */
  static final int REFRESHED = 2;

  /**
   * Undoes the change since the load of cell {@code (row, col)} (after the map refused the run): an
   * added holder is cleared (its slot stays in {@link #slot} for the report), a refreshed one gets
   * its stored palette entry back; removals stay.
   */
  int revert(final int row, final int col) {
    materialize();
    final int i = row * cols + col;
    final int p = pal[i];
    final int b = before[i];
    if (p < 0 || p == b) {
      return KEPT;
    }
    if (b < 0) {
      pal[i] = -1;
      rowCount[row]--;
      return ADDED;
    }
    pal[i] = b;
    return REFRESHED;
  }

  /** Rows up to and including the last row that still has a holder. */
  int liveRows() {
    int r = rows;
    while (r > 0 && rowCount[r - 1] == 0) {
      r--;
    }
    return r;
  }

  /**
   * A bound on the rows one stored run may hold without exceeding {@code maxBytes}, whatever its
   * cells name: as if every cell had a palette entry and a segment of its own.
   */
  int worstRowsPerPiece(final int maxBytes) {
    final int entry = PALETTE_BYTES + RunLayout.PALETTE_DELTA_BYTES;
    final int perRow = cols * (CELL_BYTES + entry + RunLayout.SEGMENT_BYTES) + 4 + hashLen;
    final int room = maxBytes - RunLayout.HEADER_BYTES - cols * 4 - entry - (cols + 1) * 2;
    return Math.max(1, Math.min(RunLayout.MAX_ROWS, room / Math.max(1, perRow)));
  }

  /**
   * The encoded length of rows {@code [from, to)} as one run: by {@link RunSplice} when it can
   * write them, else by {@link RunEncoder}, which keeps what it found for {@link #encode}.
   */
  int measure(final int from, final int to) {
    if (splice.active) {
      final int spliced = from == 0 && to == rows ? splice.length(this) : -1;
      if (spliced >= 0) {
        return spliced;
      }
      materialize();
    }
    return encoder.measure(this, from, to);
  }

  /**
   * Encodes rows {@code [from, to)} as one run whose key is row {@code from}: only the columns with
   * a holder in the range and only the palette entries referenced are kept. Writes into the buffer
   * {@code reserve} gives for the encoded length, which it returns.
   */
  int encode(final int from, final int to, final IntFunction<UnsafeBuffer> reserve) {
    final int len = measure(from, to);
    final UnsafeBuffer into = reserve.apply(len);
    if (splice.active) {
      splice.encode(this, into);
    } else {
      encoder.encode(this, from, to, into);
    }
    return len;
  }

  private void ensureRows(final int n) {
    if (tokens.length < n) {
      final int c = Math.max(n, tokens.length * 2);
      tokens = Arrays.copyOf(tokens, c);
      rowCount = Arrays.copyOf(rowCount, c);
      dirVal = Arrays.copyOf(dirVal, c);
    }
    if (hashes.length < n * hashLen) {
      hashes = Arrays.copyOf(hashes, Math.max(n * hashLen, hashes.length * 2));
    }
  }

  private void ensureCells(final int n) {
    if (pal.length < n) {
      final int c = Math.max(n, pal.length * 2);
      slot = Arrays.copyOf(slot, c);
      gen = Arrays.copyOf(gen, c);
      pal = Arrays.copyOf(pal, c);
      before = Arrays.copyOf(before, c);
    }
  }

  private void ensureCols(final int n) {
    if (holders.length < n) {
      holders = Arrays.copyOf(holders, Math.max(n, holders.length * 2));
    }
  }

  private void ensurePalette(final int n) {
    if (palSeen.length < n) {
      final int c = Math.max(n, palSeen.length * 2);
      palSeen = Arrays.copyOf(palSeen, c);
      palDelta = Arrays.copyOf(palDelta, c);
      palTier = Arrays.copyOf(palTier, c);
    }
  }
}
