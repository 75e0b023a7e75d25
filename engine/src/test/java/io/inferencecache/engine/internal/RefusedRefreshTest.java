package io.inferencecache.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A refresh the map refuses when the writer stores the grown run is reported to the drop sink (once
 * per refreshed holder) and the holder keeps its stored values; no holder is reported dropped,
 * since none was added.
 */
class RefusedRefreshTest {
  private static final int CHAINS = 40;
  private static final int ROWS = 12;

  private final Set<String> lost = new HashSet<>();
  private final Set<String> dropped = new HashSet<>();

  private static final java.nio.charset.Charset UTF8 = StandardCharsets.UTF_8;

  private static byte[] hash(final String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static String block(final int c, final int b) {
    return String.format("%05d%03d", c, b);
  }

  @Test
  void aRefusedRefreshIsReportedOnceAndTheHolderKeepsItsStoredValues() {
    try (RunStore s = RunStore.inMemory("refresh", 256, 8, 1.0);
        CounterArena arena = CounterArena.inMemory(100_000)) {
      s.dropSink(
          new RunStore.DropSink() {
            @Override
            public void dropped(
                final byte[] key,
                final int keyLength,
                final int replica,
                final int slot,
                final boolean keyGone) {
              assertThat(dropped.add(new String(key, 4, keyLength - 4, StandardCharsets.UTF_8)))
                  .isTrue();
            }

            @Override
            public void refreshLost(final byte[] key, final int keyLength, final int replica) {
              assertThat(replica).isEqualTo(1);
              assertThat(lost.add(new String(key, 4, keyLength - 4, StandardCharsets.UTF_8)))
                  .as("reported once")
                  .isTrue();
            }
          });
      final KeyBuffer k = new KeyBuffer();
      storeChainsThenFill(s, arena, k, CHAINS, ROWS);
      final Map<String, Integer> before = tiers(s);
      // refresh every run with two tiers and other token counts: each run grows
      for (int c = 0; c < CHAINS; c++) {
        s.chainStart();
        for (int b = 0; b < ROWS; b++) {
          k.set(7, hash(block(c, b)), 0, 8);
          assertThat(s.upsert(k, 1, 17 * (b + 1), 2L, b < ROWS / 2 ? 2 : 3, arena, true))
              .isEqualTo(RunStore.REFRESHED);
        }
        s.flush();
      }
      assertThat(dropped).as("no holder was added").isEmpty();
      assertThat(lost).as("some refreshes were refused").isNotEmpty();
      int refreshed = 0;
      for (Map.Entry<String, Integer> e : tiers(s).entrySet()) {
        if (!e.getKey().startsWith("0")) {
          continue;
        }
        if (lost.contains(e.getKey())) {
          assertThat(e.getValue()).as("%s kept its stored values", e.getKey()).isEqualTo(-1);
        } else {
          assertThat(e.getValue()).as("%s refreshed", e.getKey()).isPositive();
          refreshed++;
        }
      }
      assertThat(refreshed).as("some refreshes were stored").isPositive();
      assertThat(before).isNotEmpty();
      // a refused store keeps every block where it was, also once later inserts take free space
      for (int f = 0; f < 200; f++) {
        s.chainStart();
        k.set(7, hash(String.format("g%07d", f)), 0, 8);
        s.upsert(k, 1, 16, 1L, 1, arena, true);
        s.flush();
      }
      final Map<String, Integer> after = tiers(s);
      for (int c = 0; c < CHAINS; c++) {
        for (int b = 0; b < ROWS; b++) {
          assertThat(after).as("block %s stored", block(c, b)).containsKey(block(c, b));
        }
      }
      assertThat(s.entries()).as("entries: one per run").isEqualTo(entryCount(s));
    }
  }

  /**
   * A holder spliced into runs of 20 rows (issue 41) in a full map: the stores the map refuses
   * leave each such run held by its one old holder (the old bytes, known to the image, put back),
   * each refused cell reported dropped once, and the others hold both replicas; every block stays
   * stored.
   */
  @Test
  void aRefusedSpliceKeepsTheRunAsStoredAndReportsEachAddedHolderOnce() {
    final int chains = 16;
    final int rows = 20;
    try (RunStore s = RunStore.inMemory("splice", 256, 8, 1.0);
        CounterArena arena = CounterArena.inMemory(100_000)) {
      s.dropSink(
          new RunStore.DropSink() {
            @Override
            public void dropped(
                final byte[] key,
                final int keyLength,
                final int replica,
                final int slot,
                final boolean keyGone) {
              assertThat(dropped.add(replica + "/" + new String(key, 4, keyLength - 4, UTF8)))
                  .as("reported once")
                  .isTrue();
            }

            @Override
            public void refreshLost(final byte[] key, final int keyLength, final int replica) {
              lost.add(replica + "/" + new String(key, 4, keyLength - 4, UTF8));
            }
          });
      final KeyBuffer k = new KeyBuffer();
      final java.util.List<byte[]> hashes = new java.util.ArrayList<>();
      final int[] tokens = new int[rows];
      storeChainsThenFill(s, arena, k, chains, rows);
      // replica 2 reports every chain as the ingester does: the refresh declines (no column), the
      // image keeps the run's bytes, the upserts add the column, the store splices
      for (int c = 0; c < chains; c++) {
        hashes.clear();
        for (int b = 0; b < rows; b++) {
          hashes.add(hash(block(c, b)));
          tokens[b] = 16 * (b + 1);
        }
        s.chainStart();
        k.set(7, hashes.get(0), 0, 8);
        assertThat(s.refreshChain(k, hashes, 0, tokens, 2, 2L, 1)).isZero();
        for (int b = 0; b < rows; b++) {
          k.set(7, hashes.get(b), 0, 8);
          assertThat(s.upsert(k, 2, tokens[b], 2L, 1, arena, true)).isEqualTo(RunStore.NEW_HOLDER);
        }
        s.flush();
      }
      assertThat(s.splicedRuns()).as("every store was a splice").isGreaterThanOrEqualTo(chains);
      assertThat(lost).isEmpty();
      final Map<String, String> holders = new HashMap<>();
      s.forEachBlock(
          (key, len, hs) -> {
            final StringBuilder sb = new StringBuilder();
            for (int i = 0; i < hs.count(); i++) {
              sb.append(hs.replica(i)).append(i + 1 < hs.count() ? "," : "");
            }
            holders.put(new String(key, 4, len - 4, UTF8), sb.toString());
          });
      int refused = 0;
      for (int c = 0; c < chains; c++) {
        final boolean chainRefused = dropped.contains("2/" + block(c, 0));
        refused += chainRefused ? 1 : 0;
        for (int b = 0; b < rows; b++) {
          assertThat(dropped.contains("2/" + block(c, b)))
              .as("block %s refused with its run", block(c, b))
              .isEqualTo(chainRefused);
          assertThat(holders.get(block(c, b)))
              .as("holders of %s", block(c, b))
              .isEqualTo(chainRefused ? "1" : "1,2");
        }
      }
      assertThat(refused).as("some spliced stores refused, some stored").isBetween(1, chains - 1);
      assertThat(s.entries()).as("entries: one per run").isEqualTo(entryCount(s));
    }
  }

  /**
   * Stores {@code chains} chains of {@code rows} blocks held by replica 1, then fills the map with
   * one-block runs until it refuses one (reported to {@link #dropped}, which is then cleared).
   */
  private void storeChainsThenFill(
      final RunStore s,
      final CounterArena arena,
      final KeyBuffer k,
      final int chains,
      final int rows) {
    for (int c = 0; c < chains; c++) {
      s.chainStart();
      for (int b = 0; b < rows; b++) {
        k.set(7, hash(block(c, b)), 0, 8);
        s.upsert(k, 1, 16 * (b + 1), 1L, 1, arena, true);
      }
      s.flush();
    }
    for (int f = 0; dropped.isEmpty() && f < 100_000; f++) {
      s.chainStart();
      k.set(7, hash(String.format("f%07d", f)), 0, 8);
      s.upsert(k, 1, 16, 1L, 1, arena, true);
      s.flush();
    }
    assertThat(dropped).as("the map filled").isNotEmpty();
    dropped.clear();
  }

  /** Entries a scan of the map visits (each once), to compare with Chronicle's own count. */
  private static long entryCount(final RunStore s) {
    final Set<String> keys = new HashSet<>();
    long visits = 0;
    for (int seg = 0; seg < s.segments(); seg++) {
      try (net.openhft.chronicle.map.MapSegmentContext<byte[], byte[], ?> c =
          s.map.segmentContext(seg)) {
        final long[] n = {0};
        c.forEachSegmentEntry(
            e -> {
              keys.add(java.util.Arrays.toString(e.key().get()));
              n[0]++;
            });
        visits += n[0];
      }
    }
    assertThat(visits).as("no entry visited twice").isEqualTo(keys.size());
    return visits;
  }

  /** Per stored block key: its holder's tier if it was refreshed (lastSeen 2), else -1. */
  private static Map<String, Integer> tiers(final RunStore s) {
    final Map<String, Integer> out = new HashMap<>();
    s.forEachBlock(
        (key, len, hs) ->
            out.put(
                new String(key, 4, len - 4, StandardCharsets.UTF_8),
                hs.lastSeen(0) == 2L ? hs.tier(0) : -1));
    return out;
  }
}
