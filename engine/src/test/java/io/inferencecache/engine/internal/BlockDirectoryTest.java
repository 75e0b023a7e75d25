package io.inferencecache.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@link BlockDirectory}: candidates per fingerprint, growth, removal by shifts, lock-free readers.
 */
class BlockDirectoryTest {

  /** The candidates a fresh probe yields for {@code fp}, as a list of values in probe order. */
  private static List<Integer> candidates(final BlockDirectory d, final int fp) {
    final List<Integer> out = new ArrayList<>();
    for (BlockDirectory.Probe p = new BlockDirectory.Probe().start(d, fp); p.next(); ) {
      out.add(p.value());
    }
    return out;
  }

  /** The slot of the entry {@code (fp, value)}, or -1. */
  private static int slotOf(final BlockDirectory d, final int fp, final int value) {
    for (BlockDirectory.Probe p = new BlockDirectory.Probe().start(d, fp); p.next(); ) {
      if (p.value() == value) {
        return p.slot();
      }
    }
    return -1;
  }

  /**
   * Against a model (fingerprint → values) over a long random history in which fingerprints repeat
   * (so several entries share one, and some have the last home of any table and some the first:
   * clusters that wrap around the table's end), entries are removed (the clusters shifted back) and
   * replaced, and the table grows from its smallest size: every fingerprint yields exactly its
   * values.
   */
  @ParameterizedTest
  @ValueSource(longs = {1L, 13L}) // 16 slots, and 19: a capacity that is not a power of two
  void everyFingerprintYieldsExactlyItsEntriesThroughGrowthAndRemovals(final long expected) {
    final BlockDirectory d = new BlockDirectory(expected);
    assertThat(d.capacity()).isEqualTo(expected == 1L ? 16 : 19);
    final Map<Integer, List<Integer>> model = new HashMap<>();
    final List<long[]> entries = new ArrayList<>(); // {fp, value}
    final SplittableRandom rnd = new SplittableRandom(5);
    // 400 fingerprints: random ones, and a few with the first and the last home of any table
    final int[] pool = new int[400];
    for (int i = 0; i < pool.length; i++) {
      pool[i] = i < 10 ? 1 + i : i < 20 ? -1 - i : evenFingerprint(rnd, 0);
    }
    int nextValue = 0;
    final int initialCapacity = d.capacity();
    int maxCapacity = initialCapacity;
    for (int step = 0; step < 60_000; step++) {
      final int op = rnd.nextInt(10);
      final boolean growing = step < 30_000;
      if (entries.isEmpty() || op < (growing ? 6 : 4)) {
        final int fp = pool[rnd.nextInt(pool.length)];
        final int value = nextValue++;
        d.insert(fp, value);
        model.computeIfAbsent(fp, k -> new ArrayList<>()).add(value);
        entries.add(new long[] {fp, value});
      } else if (op < 8) {
        final long[] e = entries.remove(rnd.nextInt(entries.size()));
        final int slot = slotOf(d, (int) e[0], (int) e[1]);
        assertThat(slot).as("entry %s before its removal", e[1]).isNotNegative();
        d.remove(slot);
        model.get((int) e[0]).remove(Integer.valueOf((int) e[1]));
      } else {
        final long[] e = entries.get(rnd.nextInt(entries.size()));
        final int value = nextValue++;
        d.replace(slotOf(d, (int) e[0], (int) e[1]), value);
        final List<Integer> vs = model.get((int) e[0]);
        vs.set(vs.indexOf((int) e[1]), value);
        e[1] = value;
      }
      maxCapacity = Math.max(maxCapacity, d.capacity());
      if (step % 997 == 0 || step == 59_999) {
        assertThat(d.size()).isEqualTo(entries.size());
        for (Map.Entry<Integer, List<Integer>> m : model.entrySet()) {
          assertThat(candidates(d, m.getKey()))
              .as("fingerprint %d at step %d", m.getKey(), step)
              .containsExactlyInAnyOrderElementsOf(m.getValue());
        }
        assertThat(candidates(d, 100_000)).as("a fingerprint never inserted").isEmpty();
      }
    }
    assertThat(maxCapacity).isGreaterThan(initialCapacity * 64);
    assertThat(d.bytes()).isEqualTo((long) d.capacity() * Long.BYTES);
  }

  /** Removing and adding at a steady size never grows the table (removal leaves no tombstone). */
  @Test
  void churnAtASteadySizeDoesNotGrowTheTable() {
    final BlockDirectory d = new BlockDirectory(1_000);
    final int capacity = d.capacity();
    final SplittableRandom rnd = new SplittableRandom(8);
    final int[] fps = new int[1_000];
    for (int i = 0; i < fps.length; i++) {
      fps[i] = evenFingerprint(rnd, 0);
      d.insert(fps[i], i);
    }
    for (int round = 0; round < 100_000; round++) {
      final int i = rnd.nextInt(fps.length);
      d.remove(slotOf(d, fps[i], i));
      fps[i] = evenFingerprint(rnd, 0);
      d.insert(fps[i], i);
    }
    assertThat(d.capacity()).isEqualTo(capacity);
    assertThat(d.size()).isEqualTo(fps.length);
    for (int i = 0; i < fps.length; i++) {
      assertThat(candidates(d, fps[i])).contains(i);
    }
  }

  @Test
  void clearEmptiesTheTableAndKeepsItsSize() {
    final BlockDirectory d = new BlockDirectory(100);
    for (int i = 1; i <= 100; i++) {
      d.insert(i, i);
    }
    final int capacity = d.capacity();
    d.clear();
    assertThat(d.size()).isZero();
    assertThat(d.capacity()).isEqualTo(capacity);
    assertThat(candidates(d, 7)).isEmpty();
  }

  @Test
  void readingAheadReturnsTheHomeSlotsAndChangesNothing() {
    final BlockDirectory d = new BlockDirectory(100);
    final int[] fps = new int[100];
    for (int i = 0; i < fps.length; i++) {
      fps[i] = 0x0100_0000 * (i + 1) + 7;
      d.insert(fps[i], i);
    }
    final int capacity = d.capacity();
    final List<List<Integer>> before = new ArrayList<>();
    long expected = 0;
    for (int fp : fps) {
      before.add(candidates(d, fp));
    }
    final int[] absent = {0x7ABC_0001, 0x1234_5678, 0x0F00_0000};
    // the read-ahead folds the words it read; with nothing else in the table it is their XOR
    final BlockDirectory empty = new BlockDirectory(100);
    assertThat(empty.touch(absent, absent.length)).isZero();
    assertThat(d.touch(fps, 0)).isZero();
    for (int fp : absent) {
      expected ^= d.touch(new int[] {fp}, 1);
    }
    assertThat(d.touch(absent, absent.length)).isEqualTo(expected);
    assertThat(d.touch(fps, fps.length)).isNotZero(); // their home slots hold entries
    assertThat(d.size()).isEqualTo(fps.length);
    assertThat(d.capacity()).isEqualTo(capacity);
    for (int i = 0; i < fps.length; i++) {
      assertThat(candidates(d, fps[i])).isEqualTo(before.get(i));
    }
  }

  @Test
  void fingerprintIsDeterministicNeverZeroAndDependsOnEveryByte() {
    final byte[] key = new byte[12];
    final int fp = BlockDirectory.fingerprint(key, key.length);
    assertThat(BlockDirectory.fingerprint(key, key.length)).isEqualTo(fp);
    assertThat(fp).isNotZero();
    for (int i = 0; i < key.length; i++) {
      key[i] = 1;
      assertThat(BlockDirectory.fingerprint(key, key.length)).as("byte %d", i).isNotEqualTo(fp);
      key[i] = 0;
    }
    assertThat(BlockDirectory.fingerprint(key, 11)).as("length counts").isNotEqualTo(fp);
  }

  @Test
  void misuseIsRefusedWithAMessage() {
    final BlockDirectory d = new BlockDirectory(10);
    assertThatThrownBy(() -> d.insert(0, 1)).hasMessageContaining("fingerprint 0");
    assertThatThrownBy(() -> d.remove(3)).hasMessageContaining("holds no entry");
    assertThatThrownBy(() -> d.replace(3, 1)).hasMessageContaining("holds no entry");
    assertThatThrownBy(() -> new BlockDirectory(1L << 40)).hasMessageContaining("at most");
  }

  /**
   * A walk paused on a candidate while the writer removes an entry before it: the shift moves the
   * fingerprint's next entry into the slot the walk has passed, and the walk still yields it
   * (walking the cluster again, so the first candidate comes twice).
   */
  @Test
  void aWalkStillYieldsAnEntryTheWriterShiftedBehindIt() {
    final BlockDirectory d = new BlockDirectory(1); // 16 slots: homes are the top 4 bits
    final int other = 0x1000_0003;
    final int fp = 0x1000_0002;
    final int a = d.insert(other, 7); // home slot 1
    d.insert(fp, 1); // slot 2
    d.insert(fp, 2); // slot 3
    final BlockDirectory.Probe p = new BlockDirectory.Probe().start(d, fp);
    assertThat(p.next()).isTrue();
    assertThat(p.value()).isEqualTo(1);
    d.remove(a); // 1 -> slot 1, 2 -> slot 2: behind the walk
    final List<Integer> rest = new ArrayList<>();
    while (p.next()) {
      rest.add(p.value());
    }
    assertThat(rest).contains(2);
  }

  /**
   * While one writer inserts, removes, replaces and grows the table (with fingerprints that collide
   * with the stable entries'), readers on other threads always find every stable entry with its
   * value and never find a fingerprint nobody inserted.
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void readersAlwaysSeeStableEntriesWhileTheWriterChurnsAndGrows() throws Exception {
    churnUnderReaders(2_000, 50_000, 3_000_000, 0);
  }

  /**
   * The same with every fingerprint's home in one small region of the table: one long cluster, so
   * most removals move stable entries back past readers walking it (caught by the shift sequence:
   * without it, readers miss entries here).
   */
  @Test
  @Timeout(value = 120, unit = TimeUnit.SECONDS)
  void readersWalkingACrowdedClusterNeverMissAnEntryTheWriterShifts() throws Exception {
    churnUnderReaders(200, 2_000, 300_000, 0x5A00_0000);
  }

  /**
   * Readers probe {@code stable} entries that stay, and odd fingerprints nobody inserts, while the
   * writer churns up to {@code churnMax} more entries for {@code steps} operations. {@code region}:
   * 0 for fingerprints over the whole range, else their top 8 bits.
   */
  private static void churnUnderReaders(
      final int stable, final int churnMax, final int steps, final int region) throws Exception {
    final BlockDirectory d = new BlockDirectory(16);
    final int[] stableFp = new int[stable];
    final SplittableRandom rnd = new SplittableRandom(21);
    for (int i = 0; i < stable; i++) {
      stableFp[i] = evenFingerprint(rnd, region); // odd ones are never inserted
      d.insert(stableFp[i], -1 - i);
    }
    final AtomicBoolean done = new AtomicBoolean();
    final AtomicLong wrong = new AtomicLong();
    final AtomicLong reads = new AtomicLong();
    final CountDownLatch started = new CountDownLatch(2);
    final List<Thread> readers = new ArrayList<>();
    for (int t = 0; t < 2; t++) {
      final int seed = t;
      final Thread r =
          new Thread(
              () -> {
                final BlockDirectory.Probe p = new BlockDirectory.Probe();
                final SplittableRandom rr = new SplittableRandom(100 + seed);
                started.countDown();
                while (!done.get()) {
                  final int i = rr.nextInt(stable);
                  boolean found = false;
                  for (p.start(d, stableFp[i]); p.next(); ) {
                    found |= p.value() == -1 - i;
                  }
                  if (!found) {
                    wrong.incrementAndGet();
                  }
                  if (p.start(d, evenFingerprint(rr, region) | 1).next()) {
                    wrong.incrementAndGet();
                  }
                  reads.incrementAndGet();
                }
              },
              "directory-reader-" + t);
      r.start();
      readers.add(r);
    }
    started.await();
    final List<long[]> churn = new ArrayList<>();
    for (int step = 0; step < steps; step++) {
      if (churn.size() < churnMax && (churn.isEmpty() || rnd.nextInt(3) > 0)) {
        final int fp =
            rnd.nextInt(4) == 0 ? stableFp[rnd.nextInt(stable)] : evenFingerprint(rnd, region);
        d.insert(fp, step);
        churn.add(new long[] {fp, step});
      } else {
        final int k = rnd.nextInt(churn.size());
        final long[] e = churn.get(k);
        churn.set(k, churn.get(churn.size() - 1));
        churn.remove(churn.size() - 1);
        final int slot = slotOf(d, (int) e[0], (int) e[1]);
        if (rnd.nextBoolean()) {
          d.remove(slot);
        } else {
          d.replace(slot, (int) e[1] + 10_000_000);
          d.remove(slotOf(d, (int) e[0], (int) e[1] + 10_000_000));
        }
      }
    }
    done.set(true);
    for (Thread r : readers) {
      r.join();
    }
    assertThat(reads.get()).isPositive();
    assertThat(wrong.get()).as("wrong answers in %d reads", reads.get()).isZero();
    assertThat(d.size()).isEqualTo(stable + churn.size());
  }

  /** A random even fingerprint in {@code region} (its top 8 bits; 0: the whole range). */
  private static int evenFingerprint(final SplittableRandom rnd, final int region) {
    final int fp = region == 0 ? rnd.nextInt() & ~1 : region | (rnd.nextInt() & 0x00FF_FFFE);
    return fp == 0 ? 2 : fp;
  }
}
