package io.inferencecache.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The block directory's own rules ({@link BlockLocations}): a run id names its run's first key
 * until it is given back, an entry is found by its fingerprint and exact value among colliding
 * ones, and a store keeps finding every block inside its runs when fingerprints collide all the
 * time or when run ids run out.
 */
class BlockLocationsTest {
  private static final int PARTITION = 7;

  @AfterEach
  void clearKnobs() {
    System.clearProperty(RunStore.FINGERPRINT_MASK_PROP_NAME);
  }

  private static KeyBuffer key(final int partition, final long seed, final int hashLen) {
    final byte[] h = new byte[hashLen];
    new SplittableRandom(seed).nextBytes(h);
    final KeyBuffer k = new KeyBuffer();
    assertThat(k.set(partition, h, 0, hashLen)).isTrue();
    return k;
  }

  private static byte[] bytesOf(final KeyBuffer k) {
    return Arrays.copyOf(k.bytes, k.length);
  }

  @Test
  void aRunIdNamesItsFirstKeyUntilItIsGivenBack() {
    final BlockLocations d = new BlockLocations(1024);
    final KeyBuffer short8 = key(PARTITION, 1, 8);
    final KeyBuffer long32 = key(PARTITION, 2, 32);
    final int a = d.register(short8);
    final int b = d.register(long32);
    assertThat(a).isNotEqualTo(b).isPositive();
    final KeyBuffer out = new KeyBuffer();
    assertThat(d.headKey(a, PARTITION, 12, out)).isTrue();
    assertThat(bytesOf(out)).isEqualTo(bytesOf(short8));
    assertThat(d.headKey(b, PARTITION, 36, out)).isTrue();
    assertThat(bytesOf(out)).isEqualTo(bytesOf(long32));
    // another partition or another key length is not this run's key
    assertThat(d.headKey(a, PARTITION + 1, 12, out)).isFalse();
    assertThat(d.headKey(b, PARTITION, 12, out)).isFalse();
    assertThat(d.runIds()).isEqualTo(2);
    assertThat(d.usedBytes()).isEqualTo(12 + 12 + 36); // per id 12 B, and a long key's bytes
    d.release(b);
    assertThat(d.headKey(b, PARTITION, 36, out)).isFalse();
    assertThat(d.runIds()).isEqualTo(1);
    assertThat(d.usedBytes()).isEqualTo(12);
    // a given-back id is given out again, naming the new run
    final KeyBuffer other = key(PARTITION, 3, 8);
    assertThat(d.register(other)).isEqualTo(b);
    assertThat(d.headKey(b, PARTITION, 12, out)).isTrue();
    assertThat(bytesOf(out)).isEqualTo(bytesOf(other));
  }

  @Test
  void runIdsRunOutAtTheirLimit() {
    final BlockLocations d = new BlockLocations(1024, 3);
    for (int i = 1; i <= 3; i++) {
      assertThat(d.register(key(PARTITION, i, 8))).isEqualTo(i);
    }
    assertThat(d.register(key(PARTITION, 9, 8))).isEqualTo(BlockLocations.NO_RUN);
    d.release(2);
    assertThat(d.register(key(PARTITION, 9, 8))).isEqualTo(2);
  }

  @Test
  void anEntryIsChangedByItsFingerprintAndExactValue() {
    final BlockLocations d = new BlockLocations(64);
    final int fp = 0x5000_0001;
    d.change(fp, BlockLocations.NO_ENTRY, BlockLocations.HEAD);
    d.change(fp, BlockLocations.NO_ENTRY, BlockLocations.HEAD);
    d.change(fp, BlockLocations.NO_ENTRY, BlockLocations.value(4, 2));
    d.change(fp, BlockLocations.NO_ENTRY, BlockLocations.value(4, 3));
    assertThat(values(d, fp))
        .containsExactlyInAnyOrder(
            BlockLocations.HEAD,
            BlockLocations.HEAD,
            BlockLocations.value(4, 2),
            BlockLocations.value(4, 3));
    d.change(fp, BlockLocations.value(4, 3), BlockLocations.value(9, 1)); // that entry, not (4, 2)
    d.change(fp, BlockLocations.HEAD, BlockLocations.NO_ENTRY); // any one of the two heads
    assertThat(values(d, fp))
        .containsExactlyInAnyOrder(
            BlockLocations.HEAD, BlockLocations.value(4, 2), BlockLocations.value(9, 1));
    assertThat(d.keys()).isEqualTo(3);
  }

  private static List<Integer> values(final BlockLocations d, final int fp) {
    final List<Integer> out = new ArrayList<>();
    final BlockDirectory.Probe p = new BlockDirectory.Probe().start(d.table(), fp);
    while (p.next()) {
      out.add(p.value());
    }
    return out;
  }

  /**
   * Chains of 40 blocks, some sharing a prefix (so runs are cut at branch points), two holders, a
   * run cap that splits them; with 16 fingerprints every later block collides with hundreds of
   * others. Every block is found at its row with its tokens, absent keys are not found, and after
   * one replica's removal the directory holds exactly the blocks still stored.
   */
  @Test
  void everyBlockIsFoundWhenFingerprintsCollideAllTheTime() {
    System.setProperty(RunStore.FINGERPRINT_MASK_PROP_NAME, "F0000000");
    System.setProperty(RunStore.MAX_RUN_BYTES_PROP_NAME, "1024");
    try (RunStore store = RunStore.inMemory("collisions", 40_000, 8, 2.0);
        CounterArena arena = CounterArena.inMemory(40_000)) {
      final List<KeyBuffer> blocks = new ArrayList<>();
      for (int c = 0; c < 60; c++) {
        store.chainStart();
        for (int b = 0; b < 40; b++) {
          // chains c and c+1 (c even) share their first 10 blocks
          final long id = (b < 10 ? c / 2 * 1000L : c * 1000L) + b;
          final KeyBuffer k = key(PARTITION, id, 8);
          store.upsert(k, 1, 16 * (b + 1), 1_000L, 1, arena, true);
          store.upsert(k, 2, 16 * (b + 1), 2_000L, 1, arena, true);
          if (b >= 10 || c % 2 == 0) {
            blocks.add(k);
          }
        }
        store.flush();
      }
      assertThat(store.blockKeys()).isEqualTo(blocks.size());
      for (KeyBuffer k : blocks) {
        assertThat(holders(store, k)).isEqualTo(2);
      }
      for (int i = 0; i < 500; i++) {
        assertThat(holders(store, key(PARTITION, 10_000_000L + i, 8))).isEqualTo(-1);
      }
      // replica 1 goes from every other chain's blocks: no block loses its last holder
      final HolderBuffer removed = new HolderBuffer();
      for (int i = 0; i < blocks.size(); i += 2) {
        assertThat(store.removeHolder(blocks.get(i), 1, removed)).isEqualTo(1);
      }
      // replica 2 goes from the first 200 blocks: they are gone from the directory too
      for (int i = 0; i < 200; i++) {
        assertThat(store.removeKey(blocks.get(i), removed)).isPositive();
      }
      store.flush();
      for (int i = 0; i < blocks.size(); i++) {
        // a block without holders reads as not held (0), or as absent (-1) once trimmed away
        final int expected = i < 200 ? 0 : i % 2 == 0 ? 1 : 2;
        assertThat(Math.max(0, holders(store, blocks.get(i))))
            .as("block %d", i)
            .isEqualTo(expected);
      }
      assertThat(store.blockKeys()).isBetween((long) blocks.size() - 200, (long) blocks.size());
    } finally {
      System.clearProperty(RunStore.MAX_RUN_BYTES_PROP_NAME);
    }
  }

  /**
   * One writer grows a chain 8 blocks at a time and re-reports it, so its runs split again and
   * again (a run holds about 30 of these rows): blocks keep moving into split-off runs, becoming
   * run keys and getting new run ids. A reader looking up the blocks stored so far must find every
   * one, every time.
   */
  @Test
  void aReaderFindsEveryBlockWhileSplitsMoveThem() throws Exception {
    System.setProperty(RunStore.MAX_RUN_BYTES_PROP_NAME, "1024");
    try (RunStore store = RunStore.inMemory("moving", 100_000, 8, 1.0);
        CounterArena arena = CounterArena.inMemory(100_000)) {
      final int total = 4_000;
      final KeyBuffer[] keys = new KeyBuffer[total];
      for (int i = 0; i < total; i++) {
        keys[i] = key(PARTITION, 50_000L + i, 8);
      }
      final java.util.concurrent.atomic.AtomicInteger stored =
          new java.util.concurrent.atomic.AtomicInteger();
      final java.util.concurrent.atomic.AtomicBoolean done =
          new java.util.concurrent.atomic.AtomicBoolean();
      final java.util.concurrent.atomic.AtomicLong lookups =
          new java.util.concurrent.atomic.AtomicLong();
      final List<String> misses = java.util.Collections.synchronizedList(new ArrayList<>());
      final Thread reader =
          new Thread(
              () -> {
                final KeyBuffer k = new KeyBuffer();
                final SplittableRandom rnd = new SplittableRandom(1);
                while (!done.get() && misses.size() < 5) {
                  final int n = stored.get();
                  if (n == 0) {
                    continue;
                  }
                  // mostly the last run's rows: those the next split moves
                  final int i =
                      rnd.nextInt(4) == 0 ? rnd.nextInt(n) : n - 1 - rnd.nextInt(Math.min(n, 40));
                  k.setRaw(keys[i].bytes, keys[i].length);
                  if (holders(store, k) != 1) {
                    misses.add("block " + i + " of " + n);
                  }
                  lookups.incrementAndGet();
                }
              });
      reader.start();
      try {
        for (int end = 8; end <= total; end += 8) {
          store.chainStart();
          for (int b = Math.max(0, end - 64); b < end; b++) {
            store.upsert(keys[b], 1, 16 * (b + 1), end, 1, arena, true);
          }
          store.flush();
          stored.set(end);
        }
      } finally {
        done.set(true);
        reader.join();
      }
      assertThat(misses).isEmpty();
      assertThat(lookups.get()).isGreaterThan(1_000);
      assertThat(store.blockKeys()).isEqualTo(total);
    } finally {
      System.clearProperty(RunStore.MAX_RUN_BYTES_PROP_NAME);
    }
  }

  /** Holders of {@code k}'s block as a reader sees them; -1 when the key is not stored. */
  private static int holders(final RunStore store, final KeyBuffer k) {
    final int[] n = {-1};
    new RunCursor()
        .visit(
            store,
            k,
            run -> {
              n[0] = 0;
              for (int c = 0; c < run.cols(); c++) {
                if (run.paletteRef(run.row(), c) != 0) {
                  n[0]++;
                }
              }
            });
    return n[0];
  }

  /**
   * With two run ids, the third chain's blocks cannot extend its first block's run: each becomes a
   * one-block run of its own, and every block is still found. A run removed gives its id back.
   */
  @Test
  void whenRunIdsRunOutNewBlocksStartRunsOfTheirOwn() {
    try (RunStore store = RunStore.inMemoryWithRunIds("few-ids", 10_000, 2);
        CounterArena arena = CounterArena.inMemory(10_000)) {
      final List<List<KeyBuffer>> chains = new ArrayList<>();
      for (int c = 0; c < 4; c++) {
        final List<KeyBuffer> chain = new ArrayList<>();
        store.chainStart();
        for (int b = 0; b < 5; b++) {
          final KeyBuffer k = key(PARTITION, c * 100L + b, 8);
          store.upsert(k, 1, 16 * (b + 1), 1_000L, 1, arena, true);
          chain.add(k);
        }
        store.flush();
        chains.add(chain);
      }
      assertThat(store.multiBlockRuns()).isEqualTo(2);
      assertThat(store.entries()).as("2 runs of 5, then 10 one-block runs").isEqualTo(12);
      for (List<KeyBuffer> chain : chains) {
        for (KeyBuffer k : chain) {
          assertThat(holders(store, k)).isEqualTo(1);
        }
      }
      final HolderBuffer removed = new HolderBuffer();
      for (KeyBuffer k : chains.get(0)) {
        assertThat(store.removeKey(k, removed)).isEqualTo(1);
      }
      store.flush();
      assertThat(store.multiBlockRuns()).isEqualTo(1);
      store.chainStart();
      for (int b = 0; b < 5; b++) {
        store.upsert(key(PARTITION, 900L + b, 8), 1, 16 * (b + 1), 1_000L, 1, arena, true);
      }
      store.flush();
      assertThat(store.multiBlockRuns()).isEqualTo(2);
      assertThat(store.entries()).isEqualTo(12);
    }
  }
}
