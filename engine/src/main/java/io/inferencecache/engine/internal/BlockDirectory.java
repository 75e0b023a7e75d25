package io.inferencecache.engine.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import net.openhft.hashing.LongHashFunction;

/**
 * A block key's fingerprint → a 32-bit value, in one open-addressing table of 8-byte slots on the
 * heap (a single {@code long[]}: no object per entry, nothing for the collector to trace): the
 * table under {@link BlockLocations}, which finds every stored block key (engine/docs/design.md
 * §2). One writer; any number of readers, lock-free.
 *
 * <pre>
 *   0                                32                                 64
 *   +--------------------------------+----------------------------------+
 *   | fingerprint (u32, never 0)     | value (32 bits, the caller's)    |
 *   +--------------------------------+----------------------------------+
 *   0 = empty slot
 * </pre>
 *
 * <p><b>Homes from fingerprints.</b> A fingerprint's home slot is {@code fingerprint × capacity ÷
 * 2^32} (the fingerprint read as unsigned: its top {@code log2(capacity)} bits when the capacity is
 * a power of two), so the table grows from the slots alone, without reading any key back, and can
 * have any capacity: it is sized to what it must hold (at most 3/4 full), not to a power of two.
 * The price is that a fingerprint is not the key: different keys can share one, so a probe yields
 * <em>candidates</em> ({@link Probe}) that the caller checks against the key (the run's row hash)
 * before trusting one, and the writer may hold several entries of one fingerprint.
 *
 * <p><b>Memory ordering.</b> A slot is one word, written by the writer with release semantics and
 * read with acquire semantics ({@link VarHandle}), so a reader sees each slot whole: before or
 * after a write, never half of one. Removal leaves no tombstone: the entries after the removed one
 * in its cluster that may move back do (linear probing's backward shift), which a reader walking
 * the cluster at that moment could step over. So the writer counts its shifts in a sequence word
 * (odd while one is under way) and a walk that ends with no candidate left re-reads it: if a shift
 * ran meanwhile, it walks the fingerprint's cluster again (a candidate may then come twice). A
 * lookup on a table the writer has since replaced (growth) sees the old table as it was at the copy
 * and finds entries written since then missing, as it would had it run a moment earlier.
 *
 * <p>Writer methods ({@link #insert}, {@link #replace}, {@link #remove}, {@link #clear}) must be
 * called by one thread at a time; slot numbers a writer's probe returned stay valid until its next
 * {@link #insert} (which may replace the table by a larger one) or {@link #remove} (which moves
 * entries). Nothing here allocates except growth.
 */
public final class BlockDirectory {
  private static final long EMPTY = 0L;
  private static final long FINGERPRINT_MASK = 0xFFFF_FFFF_0000_0000L;
  private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
  private static final VarHandle SHIFTS;
  private static final LongHashFunction XXH3 = LongHashFunction.xx3();

  /** Walks a reader starts again after shifts before it reports no (further) candidate. */
  static final int MAX_WALKS = 64;

  /** Smallest table: {@value} slots. */
  static final int MIN_SLOTS = 16;

  /** Largest table: {@value} slots (8 GiB). */
  static final int MAX_SLOTS = 1 << 30;

  static {
    try {
      SHIFTS = MethodHandles.lookup().findVarHandle(Table.class, "shifts", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** One table: its slots and its shift sequence. */
  static final class Table {
    final long[] slots;
    final int n;
    long shifts; // odd while the writer moves entries back (SHIFTS: acquire/release)

    Table(final int capacity) {
      slots = new long[capacity];
      n = capacity;
    }

    int home(final int fingerprint) {
      return (int) (((fingerprint & 0xFFFF_FFFFL) * n) >>> 32);
    }

    int next(final int i) {
      return i + 1 == n ? 0 : i + 1;
    }

    /** Slots from {@code from} forward to {@code to}, wrapping at the end. */
    int distance(final int from, final int to) {
      return to >= from ? to - from : to - from + n;
    }
  }

  private volatile Table table;
  private int live;

  /** A table sized for {@code expected} entries without growing (at most 3/4 full). */
  public BlockDirectory(final long expected) {
    table = new Table(capacityFor(expected));
  }

  private static int capacityFor(final long expected) {
    final long slots = Math.max(MIN_SLOTS, (expected * 4 + 2) / 3 + 1);
    if (slots > MAX_SLOTS) {
      throw new IllegalArgumentException(
          "a block directory holds at most " + (MAX_SLOTS / 4L * 3) + " entries: " + expected);
    }
    return (int) slots;
  }

  /**
   * The fingerprint of the key {@code key[0..length)} (partition id and hash bytes, as stored): the
   * top 32 bits of its XXH3-64, never 0.
   */
  public static int fingerprint(final byte[] key, final int length) {
    final int fp = (int) (XXH3.hashBytes(key, 0, length) >>> 32);
    return fp == 0 ? 1 : fp;
  }

  /** Entries stored. */
  public int size() {
    return live;
  }

  /** Slots of the current table. */
  public int capacity() {
    return table.slots.length;
  }

  /**
   * Reads the home slots of {@code fingerprints[0, n)} and returns a value that depends on them
   * (any thread; it means nothing to the caller). The writer calls it for the blocks it is about to
   * look up, so that their cache misses overlap instead of each stalling one probe: the loop does
   * nothing else, so many of its loads are in flight at once.
   */
  public long touch(final int[] fingerprints, final int n) {
    final Table t = table;
    final long[] slots = t.slots;
    long sink = 0;
    for (int i = 0; i < n; i++) {
      sink ^= slots[t.home(fingerprints[i])];
    }
    return sink;
  }

  /** Bytes the table's slots take (the heap array; its header aside). */
  public long bytes() {
    return (long) table.slots.length * Long.BYTES;
  }

  // ---------------------------------------------------------------------------------------------
  // Readers (any thread)

  /**
   * A reusable walk over the entries of one fingerprint, in one table (the one current at {@link
   * #start}). One per thread; allocation-free. A candidate can come twice when the writer moved it
   * during the walk.
   *
   * <pre>{@code
   * for (probe.start(dir, fp); probe.next(); ) {
   *   if (matches(probe.value())) ...
   * }
   * }</pre>
   */
  public static final class Probe {
    private Table t;
    private int fp;
    private int slot;
    private int value;
    private int steps;
    private int walks;
    private long seq;

    /** Starts a walk over the candidates of {@code fingerprint}. */
    public Probe start(final BlockDirectory dir, final int fingerprint) {
      t = dir.table;
      fp = fingerprint;
      walks = 0;
      restart();
      return this;
    }

    private void restart() {
      seq = (long) SHIFTS.getAcquire(t);
      slot = t.home(fp) == 0 ? t.n - 1 : t.home(fp) - 1;
      steps = 0;
    }

    /**
     * Moves to the next entry of the fingerprint; false once an empty slot ends the walk with no
     * shift by the writer since it began (else the walk starts again, at most {@value #MAX_WALKS}
     * times), or once the whole table was passed.
     */
    public boolean next() {
      final Table tb = t;
      final long[] s = tb.slots;
      final int n = tb.n;
      final long want = (long) fp << 32;
      while (true) {
        int i = slot;
        while (steps++ < n) {
          i = i + 1 == n ? 0 : i + 1;
          final long w = (long) SLOT.getAcquire(s, i);
          if (w == EMPTY) {
            break;
          }
          if ((w & FINGERPRINT_MASK) == want) {
            slot = i;
            value = (int) w;
            return true;
          }
        }
        slot = i;
        final long now = (long) SHIFTS.getAcquire(tb);
        if ((seq & 1) == 0 && now == seq || ++walks >= MAX_WALKS) {
          return false;
        }
        restart();
      }
    }

    /** The value of the entry {@link #next()} moved to. */
    public int value() {
      return value;
    }

    /** The slot of the entry {@link #next()} moved to (for the writer's {@link #replace}). */
    public int slot() {
      return slot;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Writer (one thread at a time)

  /**
   * Adds an entry (another one if the fingerprint already has entries: the caller decides whether
   * the key is new) and returns its slot. Doubles the table first when the entry would take it past
   * 3/4 full.
   */
  public int insert(final int fingerprint, final int value) {
    if (fingerprint == 0) {
      throw new IllegalArgumentException("fingerprint 0 is reserved");
    }
    Table t = table;
    if ((long) (live + 1) * 4 > (long) t.slots.length * 3) {
      t = grow();
    }
    final long[] s = t.slots;
    int i = t.home(fingerprint);
    while (s[i] != EMPTY) {
      i = t.next(i);
    }
    SLOT.setRelease(s, i, word(fingerprint, value));
    live++;
    return i;
  }

  /** Sets the value of the entry in {@code slot} (from the writer's probe of this table). */
  public void replace(final int slot, final int value) {
    final long[] s = table.slots;
    final long w = s[slot];
    if (w == EMPTY) {
      throw new IllegalStateException("slot " + slot + " holds no entry");
    }
    SLOT.setRelease(s, slot, (w & FINGERPRINT_MASK) | (value & 0xFFFF_FFFFL));
  }

  /**
   * Removes the entry in {@code slot} (from the writer's probe of this table): the later entries of
   * its cluster that may move back fill the gap, inside a shift readers can see.
   */
  public void remove(final int slot) {
    final Table t = table;
    final long[] s = t.slots;
    if (s[slot] == EMPTY) {
      throw new IllegalStateException("slot " + slot + " holds no entry");
    }
    live--;
    int hole = slot;
    boolean shifting = false;
    for (int j = t.next(slot); ; j = t.next(j)) {
      final long w = s[j];
      if (w == EMPTY) {
        break;
      }
      // w may fill the hole unless its home lies after the hole (cyclically, up to j).
      if (t.distance(t.home((int) (w >>> 32)), j) >= t.distance(hole, j)) {
        if (!shifting) {
          shifting = true;
          SHIFTS.setOpaque(t, t.shifts + 1); // odd: readers that miss will walk again
          VarHandle.storeStoreFence();
        }
        SLOT.setRelease(s, hole, w);
        hole = j;
      }
    }
    SLOT.setRelease(s, hole, EMPTY);
    if (shifting) {
      SHIFTS.setRelease(t, t.shifts + 1);
    }
  }

  /** Removes every entry (a new, empty table of the same size is published). */
  public void clear() {
    table = new Table(table.n);
    live = 0;
  }

  /** A table of twice the size holding every entry, published before it is returned. */
  private Table grow() {
    final Table old = table;
    if (old.n >= MAX_SLOTS) {
      throw new IllegalStateException("block directory full: " + live + " entries");
    }
    final Table t = new Table((int) Math.min(MAX_SLOTS, 2L * old.n));
    final long[] to = t.slots;
    for (final long w : old.slots) {
      if (w == EMPTY) {
        continue;
      }
      int i = t.home((int) (w >>> 32));
      while (to[i] != EMPTY) {
        i = t.next(i);
      }
      to[i] = w;
    }
    table = t; // volatile: the copy's plain writes happen-before any reader that sees the table
    return t;
  }

  private static long word(final int fingerprint, final int value) {
    return ((long) fingerprint << 32) | (value & 0xFFFF_FFFFL);
  }
}
