package io.inferencecache.engine.internal;

import java.nio.ByteOrder;
import org.agrona.concurrent.UnsafeBuffer;

/** The encoding of a run's column segments ({@link RunLayout#FLAG_SEGMENTS}). Writer only. */
final class RunSegmentCodec {
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();

  private RunSegmentCodec() {}

  /**
   * The segments of column {@code c} of a decoded run ({@code pal}: palette index per cell,
   * row-major over {@code cols} columns, -1 = absent) over rows {@code [from, to)}: a new one
   * wherever the encoded palette reference ({@code palMap[p] + 1}, 0 = absent) changes. Written
   * from segment {@code first} of the list at {@code list} in {@code into} unless it is null.
   * Returns how many.
   */
  static int encode(
      final int[] pal,
      final int cols,
      final int c,
      final int from,
      final int to,
      final int[] palMap,
      final UnsafeBuffer into,
      final int list,
      final int first) {
    int count = 0;
    int prev = -1;
    for (int r = from; r < to; r++) {
      final int p = pal[r * cols + c];
      final int ref = p >= 0 ? palMap[p] + 1 : 0;
      if (ref != prev) {
        if (into != null) {
          final int at = list + (first + count) * RunLayout.SEGMENT_BYTES;
          into.putShort(at + RunLayout.SEGMENT_ROW_OFFSET, (short) (r - from), ORDER);
          into.putShort(at + RunLayout.SEGMENT_REF_OFFSET, (short) ref, ORDER);
        }
        count++;
        prev = ref;
      }
    }
    return count;
  }
}
