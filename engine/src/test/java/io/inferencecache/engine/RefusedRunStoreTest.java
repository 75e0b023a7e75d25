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

  /** Chain {@code c}'s first {@code n} blocks with 100-byte hashes (the map is sized for 8). */
  private static String[] wideChain(final int c, final int n) {
    final String[] out = chain(c, 0, n);
    for (int b = 0; b < n; b++) {
      out[b] += WIDE_PAD;
    }
    return out;
  }

  private static final String WIDE_PAD = "-".repeat(92);

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
    assertThat(index.state().storage.arena().used())
        .as("entries in the storage budget")
        .isEqualTo(live.size());
    assertThat(index.verifyCounts()).isEmpty();
  }

  /**
   * A run the full probe map has no room to grow (a second holder on each of its blocks) stays
   * stored while later inserts take whatever space the map has left: after every update each holder
   * the index counts is stored, found by lookups, and a recount equals the counters.
   */
  @Test
  void aRunRefusedRoomToGrowStaysStoredThroughLaterInserts() {
    final RecordedChanges changes = openSmallRuns(baseConfig());
    growEveryChainOfAFullMap(PROBE, changes);
    assertThat(index.droppedFull()).as("growth was refused").isPositive();
  }

  /** The same in the main map, where a refused run is retried after eviction makes room. */
  @Test
  void aRunRefusedRoomToGrowInTheMainMapIsStoredOrEvictedAndReported() {
    final RecordedChanges changes =
        openSmallRuns(baseConfig().maxEntries(4_000).averageHoldersPerKey(4.0));
    growEveryChainOfAFullMap("t", changes);
    assertThat(changes.removed)
        .as("the map made room")
        .isNotEmpty()
        .allMatch(x -> x.startsWith("cap "));
  }

  /**
   * Fills the map with 12-block chains of replica p, then gives every chain a second holder q (its
   * runs grow), each followed by a new one-block chain that takes any space left; checks the index
   * after every update.
   */
  private void growEveryChainOfAFullMap(final String tenant, final RecordedChanges changes) {
    final List<String[]> chains = new ArrayList<>();
    while (changes.removed.isEmpty() && index.droppedFull() == 0 && chains.size() < 2_000) {
      clock.advance(1, TimeUnit.MILLISECONDS);
      chains.add(wideChain(chains.size(), 12));
      ingest(update(tenant, "m", "vllm", "p").chain(16, chains.get(chains.size() - 1)));
    }
    assertThat(chains).as("the map filled").hasSizeLessThan(2_000);
    final int grown = chains.size();
    for (int c = 0; c < grown; c++) {
      clock.advance(1, TimeUnit.MILLISECONDS);
      ingest(update(tenant, "m", "vllm", "q").chain(16, chains.get(c)));
      assertEveryCountedHolderStored(tenant, changes, chains);
      chains.add(wideChain(chains.size(), 1));
      ingest(update(tenant, "m", "vllm", "p").chain(16, chains.get(chains.size() - 1)));
      assertEveryCountedHolderStored(tenant, changes, chains);
    }
    assertThat(changes.replayHolders()).as("some runs grew").anyMatch(h -> h.startsWith("q "));
  }

  /**
   * Every holder the listener was told is stored (and not removed since) is counted, stored and
   * matched by a lookup of its chain; nothing else is stored; a recount equals the counters.
   */
  private void assertEveryCountedHolderStored(
      final String tenant, final RecordedChanges changes, final List<String[]> chains) {
    final Set<String> live = changes.replayHolders();
    assertThat(index.verifyCounts()).as("recount equals the counters").isEmpty();
    assertThat(tenant.equals(PROBE) ? index.reservedEntries() : index.totalEntries())
        .as("counted holders")
        .isEqualTo(live.size());
    assertThat(index.state().storage.arena().used())
        .as("entries in the storage budget")
        .isEqualTo(live.size());
    for (String[] c : chains) {
      index.lookupAndClassify(IndexFixtures.chainReq(tenant, "m", "vllm", 16, c), r);
      for (String replica : List.of("p", "q")) {
        int leading = 0;
        while (leading < c.length && live.contains(replica + " " + c[leading])) {
          leading++;
        }
        assertThat(matchedTokens(replica))
            .as("chain %s matched for %s", c[0], replica)
            .isEqualTo(16 * leading);
        for (String h : c) {
          assertThat(present(tenant, "m", "vllm", "", h, replica))
              .as("%s %s stored iff reported so", replica, h)
              .isEqualTo(live.contains(replica + " " + h));
        }
      }
    }
  }

  private int matchedTokens(final String replica) {
    for (int i = 0; i < r.size(); i++) {
      if (index.replicaName(r.replicaId(i)).equals(replica)) {
        return r.matchedTokens(i);
      }
    }
    return 0;
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
    assertThat(index.state().storage.arena().used())
        .as("entries in the storage budget")
        .isEqualTo(live.size());
    assertThat(index.verifyCounts()).isEmpty();
  }
}
