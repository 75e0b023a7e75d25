package io.inferencecache.engine.internal;

import java.nio.ByteOrder;
import org.agrona.DirectBuffer;

/**
 * A stored run's header (layout in {@link RunLayout}), read from a copy of its bytes and checked
 * against their size before the writer patches them in place. One per patcher, reused.
 */
final class RunHeader {
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();

  int flags;
  int rows;
  int cols;
  int palette;

  /**
   * Reads the header of the {@code size} bytes in {@code view}, whose key has {@code hashLength}
   * hash bytes; false when they are not a run, or not one of exactly that size.
   */
  boolean read(final DirectBuffer view, final int size, final int hashLength) {
    if (size < RunLayout.UNIT_HEADER_BYTES
        || view.getByte(RunLayout.TAG_OFFSET) != RunLayout.RUN_TAG) {
      return false;
    }
    flags = view.getByte(RunLayout.FLAGS_OFFSET) & 0xFF;
    final boolean unit = (flags & RunLayout.FLAG_UNIT) != 0;
    if (!unit && size < RunLayout.HEADER_BYTES) {
      return false;
    }
    rows = unit ? 1 : view.getShort(RunLayout.ROWS_OFFSET, ORDER) & 0xFFFF;
    cols = unit ? 1 : view.getShort(RunLayout.COLS_OFFSET, ORDER) & 0xFFFF;
    palette = unit ? 1 : view.getShort(RunLayout.PALETTE_OFFSET, ORDER) & 0xFFFF;
    return rows >= 1
        && rows <= RunLayout.MAX_ROWS
        && RunLayout.storedBytes(view, ORDER, rows, cols, palette, flags, hashLength) == size;
  }
}
