package io.inferencecache.engine.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The run image's row index: every appended row is found by its hash, and a hash that is not a row
 * is not, for 8-byte hashes (one word) and other lengths (byte by byte), however alike the hashes
 * are and across the index's growth.
 */
class RunImageRowIndexTest {
  private static final int ROWS = RunLayout.MAX_ROWS;

  /**
   * Hashes that differ in one byte only, at a position that moves: the worst case for a weak mix.
   */
  private static byte[] alike(final int i, final int len) {
    final byte[] h = new byte[len];
    h[(i / 256) % len] = (byte) i;
    h[len - 1] ^= (byte) (i / 256 + 1);
    return h;
  }

  @ParameterizedTest(name = "{0}-byte hashes")
  @ValueSource(ints = {8, 4, 16, 32})
  void everyRowIsFoundByItsHashAndNoOtherHashIs(final int len) {
    final RunImage m = new RunImage();
    m.reset(7, len);
    final byte[] all = new byte[2 * ROWS * len];
    for (int i = 0; i < 2 * ROWS; i++) {
      System.arraycopy(alike(i, len), 0, all, i * len, len);
    }
    for (int r = 0; r < ROWS; r++) {
      assertEquals(r, m.appendRow(all, r * len, 16 * (r + 1)));
      m.lastRow = -1; // no shortcut through the row after the last: the index answers
      for (int q = 0; q <= r; q += 17) {
        assertEquals(q, m.findRow(all, q * len, len), "row " + q + " after " + (r + 1) + " rows");
      }
    }
    for (int r = 0; r < ROWS; r++) {
      assertEquals(r, m.findRow(all, r * len, len), "row " + r);
    }
    for (int i = ROWS; i < 2 * ROWS; i++) {
      assertEquals(-1, m.findRow(all, i * len, len), "absent hash " + i);
    }
    assertEquals(-1, m.findRow(all, 0, len - 1), "a hash of another length");
  }

  @Test
  void wordHashesThatDifferOnlyInTheirHighBytesAreDistinctRows() {
    final RunImage m = new RunImage();
    m.reset(7, 8);
    final byte[] all = new byte[ROWS * 8];
    for (int i = 0; i < ROWS; i++) {
      all[i * 8 + 7] = (byte) i; // big-endian counters: only the last byte differs
    }
    for (int r = 0; r < ROWS; r++) {
      m.appendRow(all, r * 8, 0);
    }
    m.lastRow = -1;
    for (int r = 0; r < ROWS; r++) {
      assertEquals(r, m.findRow(all, r * 8, 8));
    }
  }
}
