package io.inferencecache.engine.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The run encoding's narrow forms and their escapes: u16 holder ids unless one does not fit,
 * palette entries without a token delta unless a holder reported another count, locators with a u8
 * row up to the last row of a full run; what is stored reads back exactly (in place through {@link
 * RunCursor}, and decoded by the writer's scans).
 */
class RunEncodingTest {
  private static final int PARTITION = 7;

  private static byte[] hash(final int i) {
    final byte[] h = new byte[8];
    for (int b = 0; b < 8; b++) {
      h[b] = (byte) ((i * 0x9E3779B1L) >>> (b * 8));
    }
    h[0] ^= (byte) i;
    return h;
  }

  private static KeyBuffer key(final int i) {
    final KeyBuffer k = new KeyBuffer();
    assertTrue(k.set(PARTITION, hash(i), 0, 8));
    return k;
  }

  @Test
  void wideHolderIdsAndTokenDeltasReadBackExactly() {
    try (RunStore store = RunStore.inMemory("enc", 4096, 8, 2.0);
        CounterArena arena = CounterArena.inMemory(4096)) {
      store.chainStart();
      for (int b = 0; b < 4; b++) {
        final int tokens = 16 * (b + 1);
        store.upsert(key(b), 70_000, tokens, 1_000L + b, 2, arena, true);
        store.upsert(key(b), 3, b == 2 ? tokens + 5 : tokens, 2_000L, 1, arena, true);
      }
      store.flush();
      try (RunCursor c = new RunCursor()) {
        assertTrue(c.open(store, key(2)));
        assertEquals(2, c.row());
        assertEquals(4, c.rows());
        assertEquals(2, c.cols());
        assertEquals(3, c.holder(0));
        assertEquals(70_000, c.holder(1));
        final int narrow = c.paletteRef(2, 0);
        final int wide = c.paletteRef(2, 1);
        assertEquals(53, c.tokens(2, narrow));
        assertEquals(48, c.tokens(2, wide));
        assertEquals(2_000L, c.seen(narrow));
        assertEquals(1_002L, c.seen(wide));
        assertEquals(1, c.tier(narrow));
        assertEquals(2, c.tier(wide));
        assertEquals(16, c.tokens(0, c.paletteRef(0, 0)));
      }
      final List<String> seen = new ArrayList<>();
      store.forEachBlock(
          (k, len, holders) -> {
            for (int i = 0; i < holders.count(); i++) {
              seen.add(holders.replica(i) + ":" + holders.tokens(i));
            }
          });
      assertEquals(8, seen.size());
      assertTrue(seen.contains("3:53"));
      assertTrue(seen.contains("70000:48"));
    }
  }

  @Test
  void narrowRunWithoutDeltasKeepsEveryRowOfAFullRunReachable() {
    try (RunStore store = RunStore.inMemory("enc", 8192, 8, 1.0);
        CounterArena arena = CounterArena.inMemory(8192)) {
      final int rows = RunLayout.MAX_ROWS + 10;
      store.chainStart();
      for (int b = 0; b < rows; b++) {
        store.upsert(key(b), 65_535, 16 * (b + 1), 5_000L, 1, arena, true);
      }
      store.flush();
      final RunCursor c = new RunCursor();
      try {
        for (int b = 0; b < rows; b++) {
          assertTrue(c.open(store, key(b)), "block " + b);
          final int row = c.row();
          assertTrue(row < RunLayout.MAX_ROWS, "block " + b);
          assertEquals(65_535, c.holder(0));
          assertEquals(16 * (b + 1), c.tokens(row, c.paletteRef(row, 0)));
          c.close();
        }
        assertFalse(c.open(store, key(rows)));
      } finally {
        c.close();
      }
    }
  }

  @Test
  void cellWordDecodesToTheFieldsReadOneByOne() {
    try (RunStore store = RunStore.inMemory("enc", 4096, 8, 4.0);
        CounterArena arena = CounterArena.inMemory(4096)) {
      // Burn slots so that slot ids and generations are not small or equal.
      final long[] burnt = new long[300];
      for (int i = 0; i < burnt.length; i++) {
        burnt[i] = arena.allocate();
      }
      for (final long slotGen : burnt) {
        arena.release((int) (slotGen >>> 16));
      }
      store.chainStart();
      for (int b = 0; b < 6; b++) {
        for (int replica = 1; replica <= 4; replica++) {
          if (replica == 3 && b == 2) {
            continue; // an absent cell in the middle of a column
          }
          store.upsert(key(b), replica * 1_000, 16 * (b + 1), 9_000L + replica, 1, arena, true);
        }
      }
      store.chainStart();
      store.upsert(key(100), 77, 16, 5L, 1, arena, true); // a unit run: cells start at byte 2
      store.flush();
      int present = 0;
      final RunCursor c = new RunCursor();
      try {
        for (final int first : new int[] {0, 100}) {
          assertTrue(c.open(store, key(first)));
          assertEquals(first == 0 ? 4 : 1, c.cols());
          for (int r = 0; r < c.rows(); r++) {
            for (int col = 0; col < c.cols(); col++) {
              final long cell = c.cellWord(r, col);
              assertEquals(c.paletteRef(r, col), RunCursor.paletteRefOf(cell));
              if (c.paletteRef(r, col) == 0) {
                continue;
              }
              present++;
              final long credit = RunCursor.creditWordOf(cell);
              assertEquals(c.slot(r, col), (int) credit);
              assertEquals(c.gen(r, col), (int) (credit >>> 32) & 0xFFFF);
              assertTrue(c.gen(r, col) > 1 && c.slot(r, col) > 200);
            }
          }
          c.close();
        }
      } finally {
        c.close();
      }
      assertEquals(6 * 4 - 1 + 1, present);
    }
  }

  /**
   * A run of {@link RunLayout#SEGMENTS_MIN_ROWS} rows or more carries its columns' segments, and
   * they say exactly what the cells say: one segment for a replica that reported the chain at once,
   * a new one where a refresh or a removed middle block changes its cells; a shorter run has none.
   */
  @Test
  void segmentsDescribeEachColumnsCellsExactly() {
    try (RunStore store = RunStore.inMemory("enc", 8192, 8, 2.0);
        CounterArena arena = CounterArena.inMemory(8192)) {
      final int rows = 40;
      store.chainStart();
      for (int b = 0; b < rows; b++) {
        store.upsert(key(b), 1, 16 * (b + 1), 1_000L, 1, arena, true);
        store.upsert(key(b), 2, 16 * (b + 1), 1_000L, 1, arena, true);
      }
      store.flush();
      store.chainStart();
      for (int b = 0; b < 10; b++) {
        store.upsert(key(b), 2, 16 * (b + 1), 2_000L, 1, arena, true); // replica 2 refreshes 0..9
      }
      store.flush();
      assertTrue(store.removeHolder(key(25), 2, new HolderBuffer()) > 0); // and loses block 25
      store.chainStart();
      for (int b = 0; b < 4; b++) {
        store.upsert(key(1_000 + b), 1, 16 * (b + 1), 1_000L, 1, arena, true);
      }
      store.flush();
      try (RunCursor c = new RunCursor()) {
        assertTrue(c.open(store, key(0)));
        assertEquals(rows, c.rows());
        assertTrue(c.hasSegments());
        for (int col = 0; col < c.cols(); col++) {
          int s = c.firstSegment(col);
          for (int row = 0; row < rows; row++) {
            if (s + 1 < c.endSegment(col) && c.segmentRow(s + 1) == row) {
              s++;
            }
            assertEquals(c.paletteRef(row, col), c.segmentRef(s), "column " + col + " row " + row);
          }
        }
        assertEquals(1, c.endSegment(0) - c.firstSegment(0));
        assertEquals(4, c.endSegment(1) - c.firstSegment(1)); // 0..9, 10..24, 25, 26..39
      }
      try (RunCursor c = new RunCursor()) {
        assertTrue(c.open(store, key(1_000)));
        assertFalse(c.hasSegments());
      }
    }
  }

  /**
   * The stretch compare of a lookup: {@link RunCursor#matchingRows} counts exactly the rows that
   * {@link RunCursor#rowEquals} accepts one after the other, for 8-byte and 12-byte hashes, and
   * stops at a differing hash, a hash of another length and the end of the stretch.
   */
  @Test
  void matchingRowsStopsWhereRowByRowComparisonStops() {
    for (final int len : new int[] {8, 12}) {
      try (RunStore store = RunStore.inMemory("enc", 4096, len, 2.0);
          CounterArena arena = CounterArena.inMemory(4096)) {
        final int rows = 30;
        store.chainStart();
        for (int b = 0; b < rows; b++) {
          final KeyBuffer k = new KeyBuffer();
          assertTrue(k.set(PARTITION, hash(b, len), 0, len));
          store.upsert(k, 1, 16 * (b + 1), 1_000L, 1, arena, true);
        }
        store.flush();
        // The request: blocks 0..29 with a gap byte between hashes, block 17 altered, block 23
        // one byte short.
        final byte[] chain = new byte[rows * (len + 1)];
        final int[] offs = new int[rows];
        final int[] lens = new int[rows];
        for (int b = 0; b < rows; b++) {
          offs[b] = b * (len + 1) + 1;
          lens[b] = b == 23 ? len - 1 : len;
          System.arraycopy(hash(b, len), 0, chain, offs[b], lens[b]);
        }
        chain[offs[17] + len - 1] ^= 1;
        try (RunCursor c = new RunCursor()) {
          final KeyBuffer head = new KeyBuffer();
          assertTrue(head.set(PARTITION, hash(0, len), 0, len));
          assertTrue(c.open(store, head));
          assertEquals(rows, c.rows());
          assertEquals(16, c.matchingRows(1, 29, chain, offs, lens, 1), "len " + len);
          assertEquals(5, c.matchingRows(18, 12, chain, offs, lens, 18), "len " + len);
          assertEquals(6, c.matchingRows(24, 6, chain, offs, lens, 24), "len " + len);
          assertEquals(0, c.matchingRows(2, 5, chain, offs, lens, 3), "len " + len);
          for (int r = 1; r < rows; r++) {
            for (int n = 0; r + n <= rows; n++) {
              int expected = 0;
              while (expected < n
                  && c.rowEquals(r + expected, chain, offs[r + expected], lens[r + expected])) {
                expected++;
              }
              assertEquals(
                  expected,
                  c.matchingRows(r, n, chain, offs, lens, r),
                  "len " + len + " row " + r + " n " + n);
            }
          }
        }
      }
    }
  }

  private static byte[] hash(final int i, final int len) {
    final byte[] h = new byte[len];
    System.arraycopy(hash(i), 0, h, 0, Math.min(8, len));
    for (int b = 8; b < len; b++) {
      h[b] = (byte) (i * 31 + b);
    }
    return h;
  }
}
