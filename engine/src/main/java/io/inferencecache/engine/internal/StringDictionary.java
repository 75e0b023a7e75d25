package io.inferencecache.engine.internal;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.agrona.DirectBuffer;

/**
 * Interns strings (tenants, models, hash schemes, adapters, replicas) to small dense ids.
 *
 * <p>Readers look up by {@link String} or by UTF-8 bytes in a {@link DirectBuffer} without
 * allocating and without locks: the table is copy-on-write and published through a volatile field.
 * Writers ({@link #intern}) are serialized by the instance monitor; new strings are rare (a new
 * tenant, model or replica), so the O(n) copy per insert is amortized to nothing.
 *
 * <p>Ids are never reused and never change, so they may be stored off-heap.
 */
public final class StringDictionary {
  /** Returned by the lookups when a string has never been interned. */
  public static final int MISSING = -1;

  private static final class Table {
    final byte[][] keys;
    final int[] ids;
    final int mask;

    Table(final int capacity) {
      keys = new byte[capacity][];
      ids = new int[capacity];
      mask = capacity - 1;
    }
  }

  private volatile Table table = new Table(64);
  private volatile String[] strings = new String[64];
  private volatile byte[][] utf8 = new byte[64][];
  private volatile int size;
  // rank[id]: the position of string id in unsigned byte order among ids 0..rank.length-1,
  // republished with every insert (a reader may still meet an id newer than its snapshot: such ids
  // compare by their bytes).
  private volatile int[] rank = new int[0];
  // The writer's present ids in unsigned byte order (ordered of them).
  private int[] order = new int[16];
  private int ordered;

  /** Returns the id of {@code s}, interning it first if needed. Thread-safe. */
  public synchronized int intern(final String s) {
    final int existing = idOf(s);
    if (existing != MISSING) {
      return existing;
    }
    return insert(s, s.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * Interns {@code s} under a given id (used when reopening a persisted index). Fails if the id or
   * the string is already bound differently.
   */
  public synchronized void restore(final int id, final String s) {
    final int existing = idOf(s);
    if (existing == id) {
      return;
    }
    if (existing != MISSING || (id < size && strings[id] != null)) {
      throw new IllegalStateException("dictionary conflict for id " + id);
    }
    placeAt(id, s, s.getBytes(StandardCharsets.UTF_8));
  }

  private int insert(final String s, final byte[] bytes) {
    final int id = size;
    placeAt(id, s, bytes);
    return id;
  }

  private void placeAt(final int id, final String s, final byte[] bytes) {
    String[] strs = strings;
    byte[][] raw = utf8;
    if (id >= strs.length) {
      final int n = Math.max(strs.length * 2, id + 1);
      strs = Arrays.copyOf(strs, n);
      raw = Arrays.copyOf(raw, n);
    } else {
      strs = strs.clone();
      raw = raw.clone();
    }
    strs[id] = s;
    raw[id] = bytes;
    utf8 = raw;
    strings = strs;

    final int newSize = Math.max(size, id + 1);
    Table t = table;
    int capacity = t.keys.length;
    while (newSize * 2 > capacity) {
      capacity <<= 1;
    }
    final Table next = new Table(capacity);
    for (int i = 0; i < t.keys.length; i++) {
      if (t.keys[i] != null) {
        put(next, t.keys[i], t.ids[i]);
      }
    }
    put(next, bytes, id);
    table = next;
    size = newSize;
    rank = placeInOrder(raw, id, bytes, newSize);
  }

  /**
   * Inserts {@code id} into the writer's byte order of the present ids and returns the ranks of
   * every id below {@code n} (absent ids after the present ones, in id order): one binary search
   * and one O(n) pass per new string, so every id is ranked as soon as it exists.
   */
  private int[] placeInOrder(final byte[][] raw, final int id, final byte[] bytes, final int n) {
    final int count = ordered;
    int lo = 0;
    int hi = count;
    while (lo < hi) {
      final int mid = (lo + hi) >>> 1;
      if (Arrays.compareUnsigned(raw[order[mid]], bytes) < 0) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    if (count == order.length) {
      order = Arrays.copyOf(order, Math.max(16, count * 2));
    }
    System.arraycopy(order, lo, order, lo + 1, count - lo);
    order[lo] = id;
    ordered = count + 1;
    final int[] r = new int[n];
    for (int i = 0; i <= count; i++) {
      r[order[i]] = i;
    }
    int next = count + 1;
    for (int i = 0; i < n; i++) {
      if (raw[i] == null) {
        r[i] = next++;
      }
    }
    return r;
  }

  private static void put(final Table t, final byte[] key, final int id) {
    int i = hash(key, 0, key.length) & t.mask;
    while (t.keys[i] != null) {
      i = (i + 1) & t.mask;
    }
    t.keys[i] = key;
    t.ids[i] = id;
  }

  /** The id of {@code s}, or {@link #MISSING}. Allocation-free and lock-free. */
  public int idOf(final String s) {
    if (s == null) {
      return MISSING;
    }
    final Table t = table;
    int i = hashUtf8(s) & t.mask;
    byte[] k;
    while ((k = t.keys[i]) != null) {
      if (equalsUtf8(k, s)) {
        return t.ids[i];
      }
      i = (i + 1) & t.mask;
    }
    return MISSING;
  }

  /** The id of the UTF-8 string in {@code buf[offset..offset+length)}, or {@link #MISSING}. */
  public int idOf(final DirectBuffer buf, final int offset, final int length) {
    final Table t = table;
    int h = 0x811C9DC5;
    for (int j = 0; j < length; j++) {
      h = (h ^ (buf.getByte(offset + j) & 0xFF)) * 0x01000193;
    }
    int i = mix(h) & t.mask;
    byte[] k;
    while ((k = t.keys[i]) != null) {
      if (k.length == length && equalsBuffer(k, buf, offset)) {
        return t.ids[i];
      }
      i = (i + 1) & t.mask;
    }
    return MISSING;
  }

  /** The string for {@code id}; ids come from this dictionary. */
  public String string(final int id) {
    return strings[id];
  }

  /** The UTF-8 bytes for {@code id} (shared; do not modify). */
  public byte[] utf8(final int id) {
    return utf8[id];
  }

  /** Number of interned strings; ids are {@code 0..size-1}. */
  public int size() {
    return size;
  }

  /**
   * The ranks snapshot: {@code ranks()[id]} orders the ids below its length as {@link #compare}
   * does (shared; do not modify). Ids at or above its length are newer: compare them by {@link
   * #compare}.
   */
  public int[] ranks() {
    return rank;
  }

  /** Unsigned byte-wise comparison of two interned strings (the spec's id ordering). */
  public int compare(final int a, final int b) {
    if (a == b) {
      return 0;
    }
    final int[] rk = rank;
    if (a < rk.length && b < rk.length) {
      return Integer.compare(rk[a], rk[b]);
    }
    final byte[][] raw = utf8;
    return Arrays.compareUnsigned(raw[a], raw[b]);
  }

  private static boolean equalsBuffer(final byte[] k, final DirectBuffer buf, final int offset) {
    for (int j = 0; j < k.length; j++) {
      if (k[j] != buf.getByte(offset + j)) {
        return false;
      }
    }
    return true;
  }

  static int hash(final byte[] b, final int offset, final int length) {
    int h = 0x811C9DC5;
    for (int j = 0; j < length; j++) {
      h = (h ^ (b[offset + j] & 0xFF)) * 0x01000193;
    }
    return mix(h);
  }

  private static int mix(final int h) {
    final int x = h * 0x9E3779B9;
    return x ^ (x >>> 16);
  }

  /** FNV-1a over the UTF-8 encoding of {@code s}, computed without encoding into an array. */
  private static int hashUtf8(final String s) {
    int h = 0x811C9DC5;
    final int n = s.length();
    for (int i = 0; i < n; i++) {
      final char c = s.charAt(i);
      if (c < 0x80) {
        h = (h ^ c) * 0x01000193;
      } else if (c < 0x800) {
        h = (h ^ (0xC0 | (c >> 6))) * 0x01000193;
        h = (h ^ (0x80 | (c & 0x3F))) * 0x01000193;
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        final int cp = Character.toCodePoint(c, s.charAt(++i));
        h = (h ^ (0xF0 | (cp >> 18))) * 0x01000193;
        h = (h ^ (0x80 | ((cp >> 12) & 0x3F))) * 0x01000193;
        h = (h ^ (0x80 | ((cp >> 6) & 0x3F))) * 0x01000193;
        h = (h ^ (0x80 | (cp & 0x3F))) * 0x01000193;
      } else {
        final int cp = Character.isSurrogate(c) ? '?' : c;
        if (cp == '?') {
          h = (h ^ '?') * 0x01000193;
        } else {
          h = (h ^ (0xE0 | (cp >> 12))) * 0x01000193;
          h = (h ^ (0x80 | ((cp >> 6) & 0x3F))) * 0x01000193;
          h = (h ^ (0x80 | (cp & 0x3F))) * 0x01000193;
        }
      }
    }
    return mix(h);
  }

  /** Compares stored UTF-8 with a String's UTF-8 encoding (as String.getBytes would produce). */
  private static boolean equalsUtf8(final byte[] k, final String s) {
    final int n = s.length();
    int p = 0;
    for (int i = 0; i < n; i++) {
      final char c = s.charAt(i);
      if (c < 0x80) {
        if (p >= k.length || k[p++] != (byte) c) {
          return false;
        }
      } else if (c < 0x800) {
        if (p + 2 > k.length
            || k[p++] != (byte) (0xC0 | (c >> 6))
            || k[p++] != (byte) (0x80 | (c & 0x3F))) {
          return false;
        }
      } else if (Character.isHighSurrogate(c)
          && i + 1 < n
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        final int cp = Character.toCodePoint(c, s.charAt(++i));
        if (p + 4 > k.length
            || k[p++] != (byte) (0xF0 | (cp >> 18))
            || k[p++] != (byte) (0x80 | ((cp >> 12) & 0x3F))
            || k[p++] != (byte) (0x80 | ((cp >> 6) & 0x3F))
            || k[p++] != (byte) (0x80 | (cp & 0x3F))) {
          return false;
        }
      } else if (Character.isSurrogate(c)) {
        if (p >= k.length || k[p++] != (byte) '?') {
          return false;
        }
      } else {
        if (p + 3 > k.length
            || k[p++] != (byte) (0xE0 | (c >> 12))
            || k[p++] != (byte) (0x80 | ((c >> 6) & 0x3F))
            || k[p++] != (byte) (0x80 | (c & 0x3F))) {
          return false;
        }
      }
    }
    return p == k.length;
  }
}
