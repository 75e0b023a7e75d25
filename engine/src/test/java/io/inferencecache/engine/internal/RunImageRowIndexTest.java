package io.inferencecache.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import java.util.function.IntFunction;
import org.agrona.collections.IntHashSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The run image's row index: every appended row is found by its hash, and a hash that is not a row
 * is not, for 8-byte hashes (one word) and other lengths (byte by byte), across the index's growth;
 * and the index's hash spreads the hashes clients really send (integers big- or little-endian, one
 * differing byte, random) over the index's slots, so a run's rows do not pile up in one cluster.
 */
@Timeout(10) // a row index that failed to grow would probe forever
class RunImageRowIndexTest {
  private static final int ROWS = RunLayout.MAX_ROWS;

  /** Key {@code i}: one non-zero byte, at a position that moves with {@code i}. */
  private static byte[] oneByte(final int i, final int len) {
    final byte[] h = new byte[len];
    h[i % len] = (byte) (i / len + 1);
    return h;
  }

  @ParameterizedTest(name = "{0}-byte hashes")
  @ValueSource(ints = {8, 4, 16, 32})
  void everyRowIsFoundByItsHashAndNoOtherHashIs(final int len) {
    final RunImage m = new RunImage();
    m.reset(7, len);
    final byte[] all = new byte[2 * ROWS * len];
    for (int i = 0; i < 2 * ROWS; i++) {
      System.arraycopy(oneByte(i, len), 0, all, i * len, len);
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

  @ParameterizedTest(name = "{0}-byte hashes")
  @ValueSource(ints = {8, 4, 16, 32})
  void theRowHashSpreadsRealisticHashFamiliesOverTheIndex(final int len) {
    final SplittableRandom rnd = new SplittableRandom(15);
    assertSpread("big-endian counters", len, i -> counter(i, len, true));
    assertSpread("little-endian counters", len, i -> counter(i, len, false));
    assertSpread("one differing byte", len, i -> oneByte(i, len));
    assertSpread(
        "random",
        len,
        i -> {
          final byte[] h = new byte[len];
          rnd.nextBytes(h);
          return h;
        });
  }

  @Test
  void bigEndianCounterHashesFormNoLongCluster() {
    final RunImage m = new RunImage();
    m.reset(7, 8);
    final byte[] all = new byte[ROWS * 8];
    for (int i = 0; i < ROWS; i++) {
      System.arraycopy(counter(i, 8, true), 0, all, i * 8, 8);
    }
    for (int r = 0; r < ROWS; r++) {
      m.appendRow(all, r * 8, 0);
    }
    m.lastRow = -1;
    for (int r = 0; r < ROWS; r++) {
      assertEquals(r, m.findRow(all, r * 8, 8));
    }
    assertThat(m.rowIndex.longestCluster())
        .as("longest run of occupied index slots")
        .isLessThan(16);
  }

  private static byte[] counter(final int i, final int len, final boolean bigEndian) {
    final byte[] h = new byte[len];
    for (int b = 0; b < Integer.BYTES && b < len; b++) {
      h[bigEndian ? len - 1 - b : b] = (byte) (i >>> (8 * b));
    }
    return h;
  }

  /** 256 hashes of a family take at least 150 of 512 slots (random hashing: about 200). */
  private static void assertSpread(
      final String family, final int len, final IntFunction<byte[]> hash) {
    final IntHashSet slots = new IntHashSet();
    for (int i = 0; i < ROWS; i++) {
      slots.add(RowIndex.hash(hash.apply(i), 0, len) & (2 * ROWS - 1));
    }
    assertThat(slots.size())
        .as("%s, %d-byte: slots of %d rows", family, len, ROWS)
        .isGreaterThan(150);
  }
}
