package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Full storage never throws (engine/docs/design.md §5): when the Chronicle map refuses to grow
 * mid-ingest, the writer evicts by the victim order and retries once; an entry is dropped (and
 * counted) only if no room could be made.
 */
class FullStorageTest extends IndexTestSupport {
  private static final int CAP = 4_000;
  private static final String PAD = "x".repeat(250);

  private static String key(final int i) {
    return String.format("k%05d", i) + PAD;
  }

  /**
   * A map sized for 8-byte hashes (the default) and four holders per key that is sent 256-byte
   * hashes, one holder each, fills long before the cap of {@value #CAP} entries.
   */
  private RecordedChanges openSmallMap() {
    final RecordedChanges changes = new RecordedChanges();
    reopen(baseConfig().maxEntries(CAP).averageHoldersPerKey(4.0).listener(changes));
    return changes;
  }

  @Test
  void aFullMapEvictsTheOldestOnePercentAndStoresTheNewEntries() {
    final RecordedChanges changes = openSmallMap();
    final int perUpdate = 50;
    int updates = 0;
    while (changes.removed.isEmpty() && updates < CAP / perUpdate) {
      clock.advance(1, TimeUnit.MILLISECONDS);
      final IndexFixtures.UpdateBuilder u = update("t", "m", "vllm", "r1");
      for (int k = 0; k < perUpdate; k++) {
        u.legacy(key(updates * perUpdate + k), 16);
      }
      ingest(u);
      updates++;
    }
    final int entries = updates * perUpdate;
    assertThat(changes.removed).as("the map filled before the cap").isNotEmpty();
    assertThat(entries).isLessThan(CAP);
    // 1 % of the cap went, oldest first (LRU: lastSeen, then key), and nothing else
    final List<String> victims = new ArrayList<>();
    for (int i = 0; i < CAP / 100; i++) {
      victims.add("cap " + key(i));
    }
    assertThat(changes.removed).containsExactlyInAnyOrderElementsOf(victims);
    for (int i = 0; i < CAP / 100; i++) {
      assertThat(present(key(i), "r1")).as("victim %d", i).isFalse();
    }
    // the next oldest stays; every entry of the update that found the map full is stored
    assertThat(present(key(CAP / 100), "r1")).isTrue();
    for (int i = entries - perUpdate; i < entries; i++) {
      assertThat(present(key(i), "r1")).as("entry %d", i).isTrue();
    }
    // each reported stored exactly once, none reported removed but the victims
    assertThat(changes.stored).hasSize(entries).doesNotHaveDuplicates();
    assertThat(index.droppedFull()).isZero();
    assertThat(index.totalEntries()).isEqualTo(entries - CAP / 100);
    assertThat(index.verifyCounts()).isEmpty();
  }

  @Test
  void aChainThatOverflowsTheMapIsStoredWholeAfterEviction() {
    final RecordedChanges changes = openSmallMap();
    final int blocks = 24;
    int chains = 0;
    String[] chain = null;
    while (changes.removed.isEmpty() && chains < CAP / blocks) {
      clock.advance(1, TimeUnit.MILLISECONDS);
      chain = new String[blocks];
      for (int b = 0; b < blocks; b++) {
        chain[b] = key(chains * blocks + b);
      }
      ingest(update("t", "m", "vllm", "r1").chain(16, chain));
      chains++;
    }
    assertThat(changes.removed).as("the map filled before the cap").isNotEmpty();
    assertThat(chains).isLessThan(CAP / blocks);
    // the victims are the oldest chains' blocks, in key order within one lastSeen
    final int evicted = changes.removed.size();
    final List<String> victims = new ArrayList<>();
    for (int i = 0; i < evicted; i++) {
      victims.add("cap " + key(i));
    }
    assertThat(changes.removed).containsExactlyInAnyOrderElementsOf(victims);
    assertThat(evicted).isGreaterThanOrEqualTo(CAP / 100);
    // the whole new chain is stored and matches
    index.lookupAndClassify(IndexFixtures.chainReq("t", "m", "vllm", 16, chain), r);
    assertThat(r.size()).isEqualTo(1);
    assertThat(r.matchedTokens(0)).isEqualTo(16 * blocks);
    assertThat(index.droppedFull()).isZero();
    assertThat(index.totalEntries()).isEqualTo((long) chains * blocks - evicted);
    assertThat(index.verifyCounts()).isEmpty();
  }

  @Test
  void aFullReservedMapDropsAndCountsWithoutEvictingOtherTenants() {
    final RecordedChanges changes = openSmallMap();
    ingest(update("t", "m", "vllm", "r1").legacy("kept", 16));
    int probes = 0;
    while (index.droppedFull() == 0 && probes < 20_000) {
      final IndexFixtures.UpdateBuilder u = update(CacheIndex.RESERVED_TENANT, "m", "vllm", "p");
      for (int k = 0; k < 50; k++) {
        u.legacy(key(probes++), 16);
      }
      ingest(u);
    }
    // the probe tenant's map is not evicted by size: what it refuses is dropped and counted
    assertThat(index.droppedFull()).isPositive();
    assertThat(changes.removed)
        .hasSize((int) index.droppedFull())
        .allMatch(x -> x.startsWith("cap k"));
    assertThat(present("kept", "r1")).isTrue();
    assertThat(index.reservedEntries()).isEqualTo(probes - index.droppedFull());
    assertThat(index.totalEntries()).isEqualTo(index.reservedEntries() + 1);
    assertThat(index.verifyCounts()).isEmpty();
  }
}
