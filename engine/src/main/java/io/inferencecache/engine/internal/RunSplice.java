package io.inferencecache.engine.internal;

import static io.inferencecache.engine.internal.RunLayout.CELL_BYTES;
import static io.inferencecache.engine.internal.RunLayout.CELL_GEN_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.CELL_PALETTE_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.CELL_SLOT_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_DELTA_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_SEEN_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_TIER_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.SEGMENT_BYTES;
import static io.inferencecache.engine.internal.RunLayout.SEGMENT_REF_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.SEGMENT_ROW_OFFSET;

import java.nio.ByteOrder;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A stored run that a {@link RunImage} keeps as its encoded bytes while the writer adds one
 * replica's column to it (engine/docs/design.md §3, "A holder added"): the most common change of a
 * wide run, every replica's report of a shared prefix. The old cells are neither decoded nor
 * re-strided; the new column's cells are kept apart, and the run is stored by copying the old bytes
 * around the new column, its palette entry and its segments. The bytes are exactly what {@link
 * RunImage#encode} would write for the same image (the new palette entry numbered by its first
 * cell, the later ones moved up by one), so nothing that reads a run can tell the two apart. Any
 * other change makes the image decode the old cells first ({@link #materialize}) and take the
 * general path. Writer thread only.
 */
final class RunSplice {
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();

  /** The image holds a run as these bytes (false: its cells are decoded). */
  boolean active;

  /**
   * The bytes the run's key still has in the map ({@link #stored}): from the load until the image
   * is reset or its first piece stored.
   */
  boolean kept;

  private byte[] raw = new byte[4096];
  private final UnsafeBuffer in = new UnsafeBuffer(new byte[0]);
  private UnsafeBuffer out; // the buffer encode() writes
  private int length;
  private int flags;
  private int rows;
  private int cols;
  private int palette;
  private int hashLen;
  private int segmentIndex;

  /** The added column's index among the image's columns (-1: none added yet). */
  int at = -1;

  // The added column's cells, by row (pal -1: absent).
  private int[] addSlot = new int[64];
  private int[] addGen = new int[64];
  private int[] addPal = new int[64];

  /** Runs written by {@link #encode} (tests check that it ran). */
  long spliced;

  // What the last length() found, for encode(): the new entry's place, the column's segments.
  private int rank;
  private int addedSegments;

  /**
   * Whether a stored run of these flags can be kept as bytes: a run with segments (16 rows or more)
   * and a holder count in its header.
   */
  static boolean eligible(final int flags) {
    return (flags & RunLayout.FLAG_SEGMENTS) != 0 && (flags & RunLayout.FLAG_UNIT) == 0;
  }

  /**
   * Keeps {@code value[0, valueLen)}, a run of the given header, taking the array itself: returns
   * the array the caller has from now on, the one this held before ({@code value} itself, nothing
   * kept, if the run's length is not the one its header and segments give).
   */
  byte[] adopt(
      final byte[] value,
      final int valueLen,
      final int flags,
      final int rows,
      final int cols,
      final int palette,
      final int hashLen) {
    active = false;
    in.wrap(value, 0, valueLen);
    if (RunLayout.storedBytes(in, ORDER, rows, cols, palette, flags, hashLen) != valueLen) {
      return value;
    }
    final byte[] spare = raw;
    raw = value;
    length = valueLen;
    kept = true;
    this.flags = flags;
    this.rows = rows;
    this.cols = cols;
    this.palette = palette;
    this.hashLen = hashLen;
    this.segmentIndex = RunLayout.segmentIndexOffset(rows, cols, palette, flags, hashLen);
    at = -1;
    active = true;
    return spare;
  }

  /** The run as stored under its key (valid while {@link #kept}), {@link #storedLength} bytes. */
  byte[] stored() {
    return raw;
  }

  int storedLength() {
    return length;
  }

  /** Counts each row's holders into {@code rowCount[0, rows)} from the columns' segments. */
  void rowCounts(final int[] rowCount) {
    Arrays.fill(rowCount, 0, rows, 0);
    for (int c = 0; c < cols; c++) {
      final int end = segmentStart(c + 1);
      for (int s = segmentStart(c); s < end; s++) {
        if (segmentRef(s) == 0) {
          continue;
        }
        rowCount[segmentRow(s)]++;
        final int next = s + 1 < end ? segmentRow(s + 1) : rows;
        if (next < rows) {
          rowCount[next]--;
        }
      }
    }
    for (int r = 1; r < rows; r++) {
      rowCount[r] += rowCount[r - 1];
    }
  }

  /** Starts the added column at index {@code col} of the image's columns, empty. */
  void addColumn(final int col) {
    if (addPal.length < rows) {
      final int n = Math.max(rows, addPal.length * 2);
      addSlot = new int[n];
      addGen = new int[n];
      addPal = new int[n];
    }
    Arrays.fill(addPal, 0, rows, -1);
    at = col;
  }

  /** The stored column of the image's column {@code col} (not the added one). */
  private int stored(final int col) {
    return at >= 0 && col > at ? col - 1 : col;
  }

  /** Palette index of cell {@code (row, col)} of the image, -1 if absent. */
  int pal(final int row, final int col) {
    return col == at ? addPal[row] : storedRef(row, stored(col)) - 1;
  }

  int slot(final int row, final int col) {
    return col == at ? addSlot[row] : in.getInt(cell(row, stored(col)) + CELL_SLOT_OFFSET, ORDER);
  }

  int gen(final int row, final int col) {
    return col == at
        ? addGen[row]
        : in.getShort(cell(row, stored(col)) + CELL_GEN_OFFSET, ORDER) & 0xFFFF;
  }

  /** Sets a cell of the added column. */
  void set(final int row, final int slot, final int gen, final int pal) {
    addSlot[row] = slot;
    addGen[row] = gen;
    addPal[row] = pal;
  }

  /**
   * Decodes every cell into {@code m}'s arrays (row-major over {@code m.cols} columns, the added
   * one included) and stops holding the run as bytes.
   */
  void materialize(final RunImage m) {
    final int n = m.cols;
    for (int r = 0; r < rows; r++) {
      int src = cell(r, 0);
      for (int c = 0; c < cols; c++, src += CELL_BYTES) {
        final int dst = r * n + (at >= 0 && c >= at ? c + 1 : c);
        m.slot[dst] = in.getInt(src + CELL_SLOT_OFFSET, ORDER);
        m.gen[dst] = in.getShort(src + CELL_GEN_OFFSET, ORDER) & 0xFFFF;
        m.pal[dst] = (in.getShort(src + CELL_PALETTE_OFFSET, ORDER) & 0xFFFF) - 1;
        m.before[dst] = m.pal[dst];
      }
      if (at >= 0) {
        final int dst = r * n + at;
        m.slot[dst] = addSlot[r];
        m.gen[dst] = addGen[r];
        m.pal[dst] = addPal[r];
        m.before[dst] = -1;
      }
    }
    active = false;
  }

  /**
   * The encoded length of all of {@code m}'s rows when they can be written by {@link #encode}, or
   * -1: a column was added, its cells all name one palette entry interned since the load (the
   * image's last), which fits the stored flags, and no row was added.
   */
  int length(final RunImage m) {
    if (!active || at < 0 || m.plain || m.rows != rows || m.palSize != palette + 1) {
      return -1;
    }
    if ((flags & RunLayout.FLAG_DELTAS) == 0 && m.palDelta[palette] != 0) {
      return -1;
    }
    if ((flags & RunLayout.FLAG_WIDE_HOLDERS) == 0
        && (m.holders[at] < 0 || m.holders[at] > RunLayout.NARROW_HOLDER_MAX)) {
      return -1;
    }
    int first = -1;
    int segments = 0;
    int prev = -1;
    for (int r = 0; r < rows; r++) {
      final int p = addPal[r];
      if (p >= 0 && p != palette) {
        return -1;
      }
      if (p >= 0 && first < 0) {
        first = r;
      }
      final int ref = p >= 0 ? 1 : 0;
      if (ref != prev) {
        segments++;
        prev = ref;
      }
    }
    if (first < 0) {
      return -1;
    }
    final int total = segmentStart(cols) + segments;
    if (total > 0xFFFF) {
      return -1;
    }
    rank = rankOf(first);
    addedSegments = segments;
    return RunLayout.runBytes(rows, cols + 1, palette + 1, flags, hashLen)
        + RunLayout.segmentsBytes(cols + 1, total);
  }

  /**
   * How many stored palette entries come before the new one, which first appears at row {@code
   * first} of the added column: the entries are numbered in the order of their first cell, so the
   * ones seen before that cell are exactly those up to the largest reference seen.
   */
  private int rankOf(final int first) {
    int seen = 0;
    for (int r = 0; r < first && seen < palette; r++) {
      for (int c = 0; c < cols; c++) {
        seen = Math.max(seen, storedRef(r, c));
      }
    }
    for (int c = 0; c < at && seen < palette; c++) {
      seen = Math.max(seen, storedRef(first, c));
    }
    return seen;
  }

  /**
   * Writes the run {@link #length} measured into {@code target}, which holds at least that many
   * bytes; the image's tokens and holders are taken from {@code m}.
   */
  void encode(final RunImage m, final UnsafeBuffer target) {
    out = target;
    spliced++;
    final int n = cols + 1;
    final int newRef = rank + 1;
    final boolean renumber = rank < palette;
    out.putBytes(0, raw, 0, RunLayout.HEADER_BYTES);
    out.putShort(RunLayout.COLS_OFFSET, (short) n, ORDER);
    out.putShort(RunLayout.PALETTE_OFFSET, (short) (palette + 1), ORDER);
    // Cells: each stored row with the added cell spliced in at its column.
    final int cells = RunLayout.cellsOffset(flags);
    for (int r = 0; r < rows; r++) {
      final int src = cells + r * cols * CELL_BYTES;
      final int dst = cells + r * n * CELL_BYTES;
      out.putBytes(dst, raw, src, at * CELL_BYTES);
      final int p = addPal[r];
      final int mid = dst + at * CELL_BYTES;
      out.putInt(mid + CELL_SLOT_OFFSET, p >= 0 ? addSlot[r] : 0, ORDER);
      out.putShort(mid + CELL_GEN_OFFSET, (short) (p >= 0 ? addGen[r] : 0), ORDER);
      out.putShort(mid + CELL_PALETTE_OFFSET, (short) (p >= 0 ? newRef : 0), ORDER);
      out.putBytes(mid + CELL_BYTES, raw, src + at * CELL_BYTES, (cols - at) * CELL_BYTES);
      if (renumber) {
        renumberCells(dst, at);
        renumberCells(mid + CELL_BYTES, cols - at);
      }
    }
    // Palette: the new entry at its place among the stored ones.
    final int stride = RunLayout.paletteStride(flags);
    final int oldPal = RunLayout.paletteOffset(rows, cols, flags);
    final int newPal = RunLayout.paletteOffset(rows, n, flags);
    out.putBytes(newPal, raw, oldPal, rank * stride);
    final int entry = newPal + rank * stride;
    out.putLong(entry + PALETTE_SEEN_OFFSET, m.palSeen[palette], ORDER);
    out.putByte(entry + PALETTE_TIER_OFFSET, (byte) m.palTier[palette]);
    if ((flags & RunLayout.FLAG_DELTAS) != 0) {
      out.putInt(entry + PALETTE_DELTA_OFFSET, m.palDelta[palette], ORDER);
    }
    out.putBytes(entry + stride, raw, oldPal + rank * stride, (palette - rank) * stride);
    // Tokens and holders from the image (a row that had no holder takes the new one's count).
    int o = RunLayout.tokensOffset(rows, n, palette + 1, flags);
    for (int r = 0; r < rows; r++, o += 4) {
      out.putInt(o, m.tokens[r], ORDER);
    }
    for (int c = 0; c < n; c++) {
      o += RunLayout.putHolder(out, o, m.holders[c], flags, ORDER);
    }
    final int hashes = RunLayout.hashesOffset(rows, cols, palette, flags);
    out.putBytes(o, raw, hashes, (rows - 1) * hashLen);
    o += (rows - 1) * hashLen;
    encodeSegments(o, newRef, renumber);
  }

  /** The segment index and lists from {@code index} on, the added column's spliced in. */
  private void encodeSegments(final int index, final int newRef, final boolean renumber) {
    final int n = cols + 1;
    final int list = index + (n + 1) * 2;
    final int oldList = segmentIndex + (cols + 1) * 2;
    final int before = segmentStart(at);
    final int total = segmentStart(cols);
    for (int c = 0; c <= at; c++) {
      out.putShort(index + c * 2, (short) segmentStart(c), ORDER);
    }
    for (int c = at + 1; c <= n; c++) {
      out.putShort(index + c * 2, (short) (segmentStart(c - 1) + addedSegments), ORDER);
    }
    out.putBytes(list, raw, oldList, before * SEGMENT_BYTES);
    int s = list + before * SEGMENT_BYTES;
    int prev = -1;
    for (int r = 0; r < rows; r++) {
      final int ref = addPal[r] >= 0 ? newRef : 0;
      if (ref != prev) {
        out.putShort(s + SEGMENT_ROW_OFFSET, (short) r, ORDER);
        out.putShort(s + SEGMENT_REF_OFFSET, (short) ref, ORDER);
        s += SEGMENT_BYTES;
        prev = ref;
      }
    }
    out.putBytes(s, raw, oldList + before * SEGMENT_BYTES, (total - before) * SEGMENT_BYTES);
    if (renumber) {
      renumberSegments(list, before);
      renumberSegments(s, total - before);
    }
  }

  /** Moves up by one every palette reference above the new entry's rank in {@code count} cells. */
  private void renumberCells(final int from, final int count) {
    for (int i = 0, a = from + CELL_PALETTE_OFFSET; i < count; i++, a += CELL_BYTES) {
      final int ref = out.getShort(a, ORDER) & 0xFFFF;
      if (ref > rank) {
        out.putShort(a, (short) (ref + 1), ORDER);
      }
    }
  }

  private void renumberSegments(final int from, final int count) {
    for (int i = 0, a = from + SEGMENT_REF_OFFSET; i < count; i++, a += SEGMENT_BYTES) {
      final int ref = out.getShort(a, ORDER) & 0xFFFF;
      if (ref > rank) {
        out.putShort(a, (short) (ref + 1), ORDER);
      }
    }
  }

  private int cell(final int row, final int storedCol) {
    return RunLayout.cellsOffset(flags) + (row * cols + storedCol) * CELL_BYTES;
  }

  private int storedRef(final int row, final int storedCol) {
    return in.getShort(cell(row, storedCol) + CELL_PALETTE_OFFSET, ORDER) & 0xFFFF;
  }

  private int segmentStart(final int c) {
    return in.getShort(segmentIndex + c * 2, ORDER) & 0xFFFF;
  }

  private int segmentRow(final int s) {
    return in.getShort(
            segmentIndex + (cols + 1) * 2 + s * SEGMENT_BYTES + SEGMENT_ROW_OFFSET, ORDER)
        & 0xFFFF;
  }

  private int segmentRef(final int s) {
    return in.getShort(
            segmentIndex + (cols + 1) * 2 + s * SEGMENT_BYTES + SEGMENT_REF_OFFSET, ORDER)
        & 0xFFFF;
  }
}
