package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.internal.RunStore;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A run the map refuses when the writer stores it (engine/docs/design.md §5): every cell is then
 * either stored and counted once, or dropped, counted in {@code droppedFull()} and (if it was
 * reported stored) reported removed once; no LFU slot stays in use for a cell that is not stored
 * nor is one freed while a stored cell names it. The probe tenant's map is not evicted by size, so
 * what it refuses stays refused.
 */
class RefusedRunStoreTest extends IndexTestSupport {
  private static final String PROBE = CacheIndex.RESERVED_TENANT;

  @AfterEach
  void clearRunLimit() {
    System.clearProperty(RunStore.MAX_RUN_BYTES_PROP_NAME);
  }

  /** Small runs (about 14 one-holder rows of 8-byte hashes) and a small probe map. */
  private RecordedChanges openSmallRuns(final IndexConfig config) {
    System.setProperty(RunStore.MAX_RUN_BYTES_PROP_NAME, "512");
    final RecordedChanges changes = new RecordedChanges();
    reopen(config.reservedCapacity(256).listener(changes));
    return changes;
  }

  private static String block(final int chain, final int b) {
    return String.format("%05d%03d", chain, b);
  }

  private static String[] chain(final int c, final int from, final int to) {
    final String[] out = new String[to - from];
    for (int b = from; b < to; b++) {
      out[b - from] = block(c, b);
    }
    return out;
  }

  private boolean probePresent(final String hash) {
    return present(PROBE, "m", "vllm", "", hash, "p");
  }

  @Test
  void aSplitRunRefusedAfterItsTailWasStoredKeepsEveryCellCountedOnce() {
    final RecordedChanges changes = openSmallRuns(baseConfig());
    final int blocks = 17; // a head of ~14 rows and a short tail: the tail fits, the head may not
    final List<String> attempted = new ArrayList<>();
    int chains = 0;
    // fill the probe map, then keep storing chains that each split while it is full
    int full = -1;
    while (chains < 2_000 && (full < 0 || chains < full + 80)) {
      if (full < 0 && index.droppedFull() > 0) {
        full = chains;
      }
      // one block first (a stored one-block run), then the whole chain: the run grows and splits
      ingest(update(PROBE, "m", "vllm", "p").chain(16, chain(chains, 0, 1)));
      ingest(update(PROBE, "m", "vllm", "p").chain(16, chain(chains, 0, blocks)));
      for (int b = 0; b < blocks; b++) {
        attempted.add(block(chains, b));
      }
      chains++;
    }
    assertThat(index.droppedFull()).as("the probe map filled").isPositive();
    assertThat(changes.removed).allMatch(x -> x.startsWith("cap "));
    final Set<String> live = changes.replay();
    for (String h : new HashSet<>(attempted)) {
      assertThat(probePresent(h))
          .as("block %s stored iff reported so", h)
          .isEqualTo(live.contains(h));
    }
    // each block not stored was counted dropped (a block refused twice, twice)
    assertThat(index.droppedFull())
        .isGreaterThanOrEqualTo(new HashSet<>(attempted).size() - live.size());
    assertThat(index.reservedEntries()).isEqualTo(live.size());
    assertThat((long) index.arena().used()).as("LFU slots in use").isEqualTo(live.size());
    assertThat(index.verifyCounts()).isEmpty();
  }

  @Test
  void aSplitRunRefusedInTheMainMapIsRetriedAfterEvictionAndCountedOnce() {
    final RecordedChanges changes =
        openSmallRuns(baseConfig().maxEntries(4_000).averageHoldersPerKey(4.0));
    final int blocks = 17;
    int chains = 0;
    while (changes.removed.size() < 200 && chains < 2_000) {
      clock.advance(1, TimeUnit.MILLISECONDS);
      ingest(update("t", "m", "vllm", "r1").chain(16, chain(chains, 0, 1)));
      ingest(update("t", "m", "vllm", "r1").chain(16, chain(chains, 0, blocks)));
      chains++;
    }
    assertThat(changes.removed).as("the map filled and made room").hasSizeGreaterThanOrEqualTo(200);
    final Set<String> live = changes.replay();
    for (int c = 0; c < chains; c++) {
      for (int b = 0; b < blocks; b++) {
        final String h = block(c, b);
        assertThat(present(h, "r1"))
            .as("block %s stored iff reported so", h)
            .isEqualTo(live.contains(h));
      }
    }
    // room was made every time: nothing dropped, only evicted (and reported so)
    assertThat(index.droppedFull()).isZero();
    assertThat(index.totalEntries()).isEqualTo(live.size());
    assertThat((long) index.arena().used()).as("LFU slots in use").isEqualTo(live.size());
    assertThat(index.verifyCounts()).isEmpty();
  }
}
