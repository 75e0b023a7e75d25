package io.inferencecache.engine.internal;

import static io.inferencecache.engine.internal.RunLayout.CELL_BYTES;
import static io.inferencecache.engine.internal.RunLayout.CELL_GEN_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.CELL_PALETTE_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.CELL_SLOT_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_DELTA_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_SEEN_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_TIER_OFFSET;

import java.nio.ByteOrder;
import java.util.Arrays;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The canonical encoding of a decoded {@link RunImage} ({@link RunLayout}): the columns with a
 * holder in the rows encoded, in replica order; the palette entries referenced, numbered by their
 * first cell (row by row); the flags the contents need; the columns' segments for runs of {@link
 * RunLayout#SEGMENTS_MIN_ROWS} rows or more. {@link RunRefresh} and {@link RunSplice} write the
 * same bytes without decoding. Writer thread only.
 */
final class RunEncoder {
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();

  // What measure() found, for encode(): the flags, used columns and palette entries.
  private int measuredFlags;
  private int measuredCols;
  private int measuredPal;

  /**
   * The encoded length of rows {@code [from, to)} of {@code m} as one run; leaves the column and
   * palette maps in the scratch arrays and the counts in the {@code measured*} fields for {@link
   * #encode}.
   */
  int measure(final RunImage m, final int from, final int to) {
    final int cols = m.cols;
    final int[] pal = m.pal;
    final int palSize = m.palSize;
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
    int flags = 0;
    for (int p = 0; p < palSize; p++) {
      if (palMap[p] >= 0 && m.palDelta[p] != 0) {
        flags |= RunLayout.FLAG_DELTAS;
        break;
      }
    }
    for (int c = 0; c < cols; c++) {
      if (colMap[c] >= 0 && (m.holders[c] < 0 || m.holders[c] > RunLayout.NARROW_HOLDER_MAX)) {
        flags |= RunLayout.FLAG_WIDE_HOLDERS;
        break;
      }
    }
    final int n = to - from;
    if (n == 1 && usedCols == 1 && usedPal == 1) {
      flags |= RunLayout.FLAG_UNIT;
    }
    int segments = 0;
    if ((flags & RunLayout.FLAG_UNIT) == 0 && n >= RunLayout.SEGMENTS_MIN_ROWS && !m.plain) {
      flags |= RunLayout.FLAG_SEGMENTS;
      for (int c = 0; c < cols; c++) {
        if (colMap[c] >= 0) {
          segments += RunSegmentCodec.encode(pal, cols, c, from, to, palMap, null, 0, 0);
        }
      }
    }
    measuredFlags = flags;
    measuredCols = usedCols;
    measuredPal = usedPal;
    final int end = RunLayout.runBytes(n, usedCols, usedPal, flags, m.hashLen);
    return (flags & RunLayout.FLAG_SEGMENTS) != 0
        ? end + RunLayout.segmentsBytes(usedCols, segments)
        : end;
  }

  /**
   * Encodes rows {@code [from, to)} of {@code m} into {@code into} (at least the length the last
   * {@link #measure} of the same rows returned).
   */
  void encode(final RunImage m, final int from, final int to, final UnsafeBuffer into) {
    final int cols = m.cols;
    final int[] pal = m.pal;
    final int palSize = m.palSize;
    final int[] colMap = colMapScratch;
    final int[] palMap = palMapScratch;
    final int flags = measuredFlags;
    final int usedCols = measuredCols;
    final int usedPal = measuredPal;
    final int n = to - from;
    final int end = RunLayout.runBytes(n, usedCols, usedPal, flags, m.hashLen);
    into.putByte(RunLayout.TAG_OFFSET, RunLayout.RUN_TAG);
    into.putByte(RunLayout.FLAGS_OFFSET, (byte) flags);
    if ((flags & RunLayout.FLAG_UNIT) == 0) {
      into.putShort(RunLayout.ROWS_OFFSET, (short) n, ORDER);
      into.putShort(RunLayout.COLS_OFFSET, (short) usedCols, ORDER);
      into.putShort(RunLayout.PALETTE_OFFSET, (short) usedPal, ORDER);
    }
    int at = RunLayout.cellsOffset(flags);
    for (int r = from; r < to; r++) {
      for (int c = 0; c < cols; c++) {
        if (colMap[c] < 0) {
          continue;
        }
        final int i = r * cols + c;
        final int p = pal[i];
        into.putInt(at + CELL_SLOT_OFFSET, p >= 0 ? m.slot[i] : 0, ORDER);
        into.putShort(at + CELL_GEN_OFFSET, (short) (p >= 0 ? m.gen[i] : 0), ORDER);
        into.putShort(at + CELL_PALETTE_OFFSET, (short) (p >= 0 ? palMap[p] + 1 : 0), ORDER);
        at += CELL_BYTES;
      }
    }
    final int[] palOrder = scratchPalOrder(usedPal);
    for (int p = 0; p < palSize; p++) {
      if (palMap[p] >= 0) {
        palOrder[palMap[p]] = p;
      }
    }
    final boolean deltas = (flags & RunLayout.FLAG_DELTAS) != 0;
    final int stride = RunLayout.paletteStride(flags);
    for (int k = 0; k < usedPal; k++, at += stride) {
      final int p = palOrder[k];
      into.putLong(at + PALETTE_SEEN_OFFSET, m.palSeen[p], ORDER);
      into.putByte(at + PALETTE_TIER_OFFSET, (byte) m.palTier[p]);
      if (deltas) {
        into.putInt(at + PALETTE_DELTA_OFFSET, m.palDelta[p], ORDER);
      }
    }
    for (int r = from; r < to; r++, at += 4) {
      into.putInt(at, m.tokens[r], ORDER);
    }
    for (int c = 0; c < cols; c++) {
      if (colMap[c] >= 0) {
        at += RunLayout.putHolder(into, at, m.holders[c], flags, ORDER);
      }
    }
    if (n > 1) {
      into.putBytes(at, m.hashes, (from + 1) * m.hashLen, (n - 1) * m.hashLen);
    }
    if ((flags & RunLayout.FLAG_SEGMENTS) != 0) {
      final int list = end + (usedCols + 1) * 2;
      int written = 0;
      for (int c = 0; c < cols; c++) {
        if (colMap[c] >= 0) {
          into.putShort(end + colMap[c] * 2, (short) written, ORDER);
          written += RunSegmentCodec.encode(pal, cols, c, from, to, palMap, into, list, written);
        }
      }
      into.putShort(end + usedCols * 2, (short) written, ORDER);
    }
  }

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
}
