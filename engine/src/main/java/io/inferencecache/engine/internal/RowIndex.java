package io.inferencecache.engine.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A {@link RunImage}'s rows by hash, so that the writer finds a row in O(1) however long the run (a
 * chain's new blocks are looked up in the open image first). Open addressing over row + 1 (0:
 * empty), at most half full; the hashes themselves stay in the image's array ({@code len} bytes a
 * row). Single-threaded, like the image.
 */
final class RowIndex {
  private static final VarHandle WORDS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private int[] slots = new int[128];

  /**
   * The index's hash of {@code key[off, off + len)}; the table takes its low bits. An 8-byte hash
   * is one word: its high half folded into its low half (the product's bits the table keeps depend
   * only on the word's lower bits, and integer hashes sent big-endian differ in their last bytes),
   * then one multiply. Other lengths: a loop over the bytes.
   */
  static int hash(final byte[] key, final int off, final int len) {
    if (len == Long.BYTES) {
      long x = (long) WORDS.get(key, off);
      x ^= x >>> 32;
      return (int) ((x * 0x9E37_79B9_7F4A_7C15L) >>> 32);
    }
    int h = 1;
    for (int i = 0; i < len; i++) {
      h = 31 * h + key[off + i];
    }
    return h ^ (h >>> 16);
  }

  /** The row of {@code hashes} whose hash equals {@code key[off, off + len)}, or -1. */
  int find(final byte[] hashes, final int len, final byte[] key, final int off) {
    final int mask = slots.length - 1;
    for (int i = hash(key, off, len) & mask; ; i = (i + 1) & mask) {
      final int e = slots[i];
      if (e == 0) {
        return -1;
      }
      final int at = (e - 1) * len;
      if (Arrays.equals(hashes, at, at + len, key, off, off + len)) {
        return e - 1;
      }
    }
  }

  /** Enters row {@code rows - 1}, the one just appended (the table grows at half full). */
  void added(final byte[] hashes, final int len, final int rows) {
    if (2 * rows > slots.length) {
      rebuild(hashes, len, rows);
    } else {
      enter(hashes, len, rows - 1);
    }
  }

  /** Indexes rows {@code [0, rows)} anew, in a table at most half full. */
  void rebuild(final byte[] hashes, final int len, final int rows) {
    int n = slots.length;
    while (n < 2 * rows) {
      n <<= 1;
    }
    if (n != slots.length) {
      slots = new int[n];
    } else {
      Arrays.fill(slots, 0);
    }
    for (int r = 0; r < rows; r++) {
      enter(hashes, len, r);
    }
  }

  /** Forgets every row. */
  void clear() {
    Arrays.fill(slots, 0);
  }

  /** The longest stretch of occupied slots (for tests of the hash's spread). */
  int longestCluster() {
    int longest = 0;
    int run = 0;
    for (int i = 0; i < 2 * slots.length; i++) { // twice round: a cluster may wrap
      run = slots[i % slots.length] != 0 ? run + 1 : 0;
      longest = Math.max(longest, Math.min(run, slots.length));
    }
    return longest;
  }

  private void enter(final byte[] hashes, final int len, final int row) {
    final int mask = slots.length - 1;
    int i = hash(hashes, row * len, len) & mask;
    while (slots[i] != 0) {
      i = (i + 1) & mask;
    }
    slots[i] = row + 1;
  }
}
