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
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The writer's decoded, mutable copy of one run ({@link RunLayout}): the writer loads a run once,
 * applies every change an ingest, an eviction or a sweep makes to it, and stores it once. Row 0's
 * hash is the run's key; {@link #locatedRows} says which rows already have a locator in the map.
 * Single-threaded (the index writer). Grows its arrays as needed and keeps them.
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

  int palSize;
  long[] palSeen = new long[16];
  int[] palDelta = new int[16];
  int[] palTier = new int[16];
  private int lastPal = -1;

  /** Rows 1..locatedRows-1 have a locator entry in the map; 1 for a run not yet stored. */
  int locatedRows;

  /** Whether the run's entry exists in the map (it was loaded, not created). */
  boolean stored;

  /** The row the last change touched, for appending the next block of the same chain. */
  int lastRow = -1;

  /** Cells added since the load, packed {@code row << 32 | col}, with whether the row was new. */
  long[] added = new long[64];

  boolean[] addedNewKey = new boolean[64];
  int addedCount;

  private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);

  void reset(final int partition, final int hashLen) {
    this.partition = partition;
    this.hashLen = hashLen;
    rows = 0;
    cols = 0;
    palSize = 0;
    lastPal = -1;
    locatedRows = 1;
    stored = false;
    lastRow = -1;
    addedCount = 0;
  }

  /** Decodes a stored run whose key hash is {@code head[headOff, headOff + hashLen)}. */
  void decode(
      final int partition,
      final byte[] head,
      final int headOff,
      final int headLen,
      final byte[] value,
      final int valueLen) {
    view.wrap(value, 0, valueLen);
    final int r = view.getShort(RunLayout.ROWS_OFFSET, ORDER) & 0xFFFF;
    final int c = view.getShort(RunLayout.COLS_OFFSET, ORDER) & 0xFFFF;
    final int p = view.getShort(RunLayout.PALETTE_OFFSET, ORDER) & 0xFFFF;
    reset(partition, headLen);
    ensureRows(r);
    ensureCells(r * c);
    ensureCols(c);
    ensurePalette(p);
    rows = r;
    cols = c;
    palSize = p;
    int at = RunLayout.HEADER_BYTES;
    for (int i = 0; i < r * c; i++, at += CELL_BYTES) {
      slot[i] = view.getInt(at + CELL_SLOT_OFFSET, ORDER);
      gen[i] = view.getShort(at + CELL_GEN_OFFSET, ORDER) & 0xFFFF;
      pal[i] = (view.getShort(at + CELL_PALETTE_OFFSET, ORDER) & 0xFFFF) - 1;
    }
    for (int i = 0; i < p; i++, at += PALETTE_BYTES) {
      palSeen[i] = view.getLong(at + PALETTE_SEEN_OFFSET, ORDER);
      palDelta[i] = view.getInt(at + PALETTE_DELTA_OFFSET, ORDER);
      palTier[i] = view.getByte(at + PALETTE_TIER_OFFSET) & 0xFF;
    }
    for (int i = 0; i < r; i++, at += 4) {
      tokens[i] = view.getInt(at, ORDER);
    }
    for (int i = 0; i < c; i++, at += 4) {
      holders[i] = view.getInt(at, ORDER);
    }
    System.arraycopy(head, headOff, hashes, 0, headLen);
    if (r > 1) {
      view.getBytes(at, hashes, headLen, (r - 1) * headLen);
    }
    for (int i = 0; i < r; i++) {
      int n = 0;
      for (int j = 0; j < c; j++) {
        if (pal[i * c + j] >= 0) {
          n++;
        }
      }
      rowCount[i] = n;
    }
    locatedRows = r;
    stored = true;
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
    for (int r = 0; r < rows; r++) {
      if (rowEquals(r, key, off)) {
        return r;
      }
    }
    return -1;
  }

  private boolean rowEquals(final int row, final byte[] key, final int off) {
    return Arrays.equals(hashes, row * hashLen, row * hashLen + hashLen, key, off, off + hashLen);
  }

  /** Appends a block row (no holders yet). */
  int appendRow(final byte[] key, final int off, final int tokensOfRow) {
    final int r = rows;
    ensureRows(r + 1);
    ensureCells((r + 1) * cols);
    System.arraycopy(key, off, hashes, r * hashLen, hashLen);
    tokens[r] = tokensOfRow;
    rowCount[r] = 0;
    Arrays.fill(pal, r * cols, (r + 1) * cols, -1);
    rows = r + 1;
    return r;
  }

  /** The column of {@code replica}, inserting it (empty) in replica order if absent. */
  int column(final int replica) {
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
    // Re-stride the cells from the last row backwards so nothing is overwritten before it moved.
    for (int r = rows - 1; r >= 0; r--) {
      final int from = r * cols;
      final int to = r * n;
      for (int c = cols - 1; c >= 0; c--) {
        final int dst = to + (c >= at ? c + 1 : c);
        slot[dst] = slot[from + c];
        gen[dst] = gen[from + c];
        pal[dst] = pal[from + c];
      }
      pal[to + at] = -1;
    }
    System.arraycopy(holders, at, holders, at + 1, cols - at);
    holders[at] = replica;
    cols = n;
    for (int i = 0; i < addedCount; i++) {
      final int c = (int) added[i];
      if (c >= at) {
        added[i] = (added[i] & 0xFFFFFFFF00000000L) | (c + 1);
      }
    }
    return at;
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

  void recordAdded(final int row, final int col, final boolean newKey) {
    if (addedCount == added.length) {
      added = Arrays.copyOf(added, addedCount * 2);
      addedNewKey = Arrays.copyOf(addedNewKey, addedCount * 2);
    }
    added[addedCount] = ((long) row << 32) | col;
    addedNewKey[addedCount] = newKey;
    addedCount++;
  }

  boolean present(final int row, final int col) {
    return pal[row * cols + col] >= 0;
  }

  long seen(final int row, final int col) {
    return palSeen[pal[row * cols + col]];
  }

  int cellTokens(final int row, final int col) {
    return tokens[row] + palDelta[pal[row * cols + col]];
  }

  int tier(final int row, final int col) {
    return palTier[pal[row * cols + col]];
  }

  int slot(final int row, final int col) {
    return slot[row * cols + col];
  }

  int gen(final int row, final int col) {
    return gen[row * cols + col];
  }

  void clear(final int row, final int col) {
    final int i = row * cols + col;
    if (pal[i] >= 0) {
      pal[i] = -1;
      rowCount[row]--;
    }
  }

  /** Rows up to and including the last row that still has a holder. */
  int liveRows() {
    int r = rows;
    while (r > 0 && rowCount[r - 1] == 0) {
      r--;
    }
    return r;
  }

  /** How many rows, from {@code from}, one stored run may hold without exceeding {@code max}. */
  int rowsPerPiece(final int maxBytes) {
    final int perRow = cols * (CELL_BYTES + PALETTE_BYTES) + 4 + hashLen;
    final int room = maxBytes - RunLayout.HEADER_BYTES - cols * 4 - PALETTE_BYTES;
    return Math.max(1, Math.min(RunLayout.MAX_ROWS, room / Math.max(1, perRow)));
  }

  /**
   * Encodes rows {@code [from, to)} into {@code out} (grown as needed; returns it) as one run whose
   * key is row {@code from}: only the columns with a holder in the range and only the palette
   * entries referenced are kept. The encoded length is left in {@link #encodedLength}.
   */
  byte[] encode(final int from, final int to, byte[] out) {
    final int[] colMap = scratchColMap(cols);
    int usedCols = 0;
    for (int c = 0; c < cols; c++) {
      colMap[c] = -1;
      for (int r = from; r < to; r++) {
        if (pal[r * cols + c] >= 0) {
          colMap[c] = usedCols++;
          break;
        }
      }
    }
    final int[] palMap = scratchPalMap(palSize);
    Arrays.fill(palMap, 0, palSize, -1);
    int usedPal = 0;
    for (int r = from; r < to; r++) {
      for (int c = 0; c < cols; c++) {
        final int p = pal[r * cols + c];
        if (p >= 0 && palMap[p] < 0) {
          palMap[p] = usedPal++;
        }
      }
    }
    final int n = to - from;
    final int len = RunLayout.runBytes(n, usedCols, usedPal, hashLen);
    if (out.length < len) {
      out = new byte[Math.max(len, out.length * 2)];
    }
    view.wrap(out, 0, len);
    view.putInt(RunLayout.TAG_OFFSET, RunLayout.RUN_TAG, ORDER);
    view.putShort(RunLayout.ROWS_OFFSET, (short) n, ORDER);
    view.putShort(RunLayout.COLS_OFFSET, (short) usedCols, ORDER);
    view.putShort(RunLayout.PALETTE_OFFSET, (short) usedPal, ORDER);
    view.putShort(RunLayout.HASH_LENGTH_OFFSET, (short) hashLen, ORDER);
    view.putInt(12, 0, ORDER);
    int at = RunLayout.HEADER_BYTES;
    for (int r = from; r < to; r++) {
      for (int c = 0; c < cols; c++) {
        if (colMap[c] < 0) {
          continue;
        }
        final int i = r * cols + c;
        final int p = pal[i];
        view.putInt(at + CELL_SLOT_OFFSET, p >= 0 ? slot[i] : 0, ORDER);
        view.putShort(at + CELL_GEN_OFFSET, (short) (p >= 0 ? gen[i] : 0), ORDER);
        view.putShort(at + CELL_PALETTE_OFFSET, (short) (p >= 0 ? palMap[p] + 1 : 0), ORDER);
        at += CELL_BYTES;
      }
    }
    final int[] palOrder = scratchPalOrder(usedPal);
    for (int p = 0; p < palSize; p++) {
      if (palMap[p] >= 0) {
        palOrder[palMap[p]] = p;
      }
    }
    for (int k = 0; k < usedPal; k++, at += PALETTE_BYTES) {
      final int p = palOrder[k];
      view.putLong(at + PALETTE_SEEN_OFFSET, palSeen[p], ORDER);
      view.putInt(at + PALETTE_DELTA_OFFSET, palDelta[p], ORDER);
      view.putByte(at + PALETTE_TIER_OFFSET, (byte) palTier[p]);
      view.putByte(at + PALETTE_TIER_OFFSET + 1, (byte) 0);
      view.putShort(at + PALETTE_TIER_OFFSET + 2, (short) 0, ORDER);
    }
    for (int r = from; r < to; r++, at += 4) {
      view.putInt(at, tokens[r], ORDER);
    }
    for (int c = 0; c < cols; c++) {
      if (colMap[c] >= 0) {
        view.putInt(at, holders[c], ORDER);
        at += 4;
      }
    }
    if (n > 1) {
      view.putBytes(at, hashes, (from + 1) * hashLen, (n - 1) * hashLen);
    }
    encodedLength = len;
    return out;
  }

  int encodedLength;
  private int[] colMapScratch = new int[16];
  private int[] palMapScratch = new int[16];
  private int[] palOrderScratch = new int[16];

  private int[] scratchColMap(final int n) {
    if (colMapScratch.length < n) {
      colMapScratch = new int[Math.max(n, colMapScratch.length * 2)];
    }
    return colMapScratch;
  }

  private int[] scratchPalMap(final int n) {
    if (palMapScratch.length < n) {
      palMapScratch = new int[Math.max(n, palMapScratch.length * 2)];
    }
    return palMapScratch;
  }

  private int[] scratchPalOrder(final int n) {
    if (palOrderScratch.length < n) {
      palOrderScratch = new int[Math.max(n, palOrderScratch.length * 2)];
    }
    return palOrderScratch;
  }

  private void ensureRows(final int n) {
    if (tokens.length < n) {
      final int c = Math.max(n, tokens.length * 2);
      tokens = Arrays.copyOf(tokens, c);
      rowCount = Arrays.copyOf(rowCount, c);
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
