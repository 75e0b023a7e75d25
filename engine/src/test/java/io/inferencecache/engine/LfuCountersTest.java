package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.inferencecache.engine.internal.CounterArena;
import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.engine.policy.PolicyStore;
import java.io.File;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * LFU counters only where they count (engine/docs/design.md §3): entries of LRU tenants take none,
 * a tenant whose policy turns to LFU gets counters for what it holds before it is treated as LFU,
 * and once it has them its counts behave exactly as when every entry had a counter.
 */
class LfuCountersTest extends IndexTestSupport {
  @TempDir File dir;

  private void chain(final String tenant, final String replica, final int blocks) {
    final String[] hashes = new String[blocks];
    for (int b = 0; b < blocks; b++) {
      hashes[b] = tenant + "-" + replica + "-" + b;
    }
    ingest(update(tenant, "m", "vllm", replica).chain(16, hashes));
  }

  @Test
  void lruTenantsEntriesTakeNoCounterAndNoCounterMemory() {
    chain("a", "r1", 64);
    chain("a", "r2", 64);
    assertThat(index.totalEntries()).isEqualTo(128);
    assertThat(index.state().storage.arena().used()).isEqualTo(128);
    assertThat(index.state().storage.arena().counters()).isZero();
    assertThat(index.state().storage.arena().bytes()).isZero();
    assertThat(count("a", "m", "vllm", "a-r1-0", "r1")).isZero(); // held, never credited
  }

  @Test
  void aTenantLfuFromItsFirstEntryCountsAtOnce() {
    chain("a", "r1", 8); // an LRU tenant's entries are already there
    policies.lfu.add("b");
    ingest(update("b", "m", "vllm", "r1").legacy("hot", 64));
    assertThat(hit("b", "hot", 3)).isEqualTo(3);
    assertThat(count("b", "m", "vllm", "hot", "r1")).isEqualTo(3);
    assertThat(index.state().storage.arena().counters()).isEqualTo(1);
    assertThat(index.state().storage.arena().bytes()) // one chunk: this small index's whole budget
        .isEqualTo(
            8L * Math.min(CounterArena.CHUNK_SLOTS, index.state().storage.arena().capacity()));
  }

  @Test
  void aSwitchToLfuGivesExactlyThatTenantsEntriesCountersThenCounts() {
    chain("a", "r1", 10);
    chain("b", "r1", 20);
    chain("b", "r2", 5);
    policies.lfu.add("b");
    assertThat(hit("b", "b-r1-0", 1)).as("not LFU before its counters").isZero();
    assertThat(index.syncLfuCounters()).isEqualTo(25);
    assertThat(index.syncLfuCounters()).as("nothing left to do").isZero();
    assertThat(index.state().storage.arena().counters()).isEqualTo(25);
    assertThat(hit("b", "b-r1-0", 2)).isEqualTo(2);
    assertThat(hit("a", "a-r1-0", 2)).isZero();
    assertThat(count("b", "m", "vllm", "b-r1-0", "r1")).isEqualTo(2);
    chain("b", "r3", 3); // new entries of the tenant come with counters
    assertThat(index.state().storage.arena().counters()).isEqualTo(28);
  }

  @Test
  void aSwitchGivesCountersOnlyToHeldCellsOfRunsWithSeveralHolders() {
    chain("b", "r1", 10);
    final String[] half = new String[5];
    for (int i = 0; i < 5; i++) {
      half[i] = "b-r1-" + i;
    }
    ingest(update("b", "m", "vllm", "r2").chain(16, half)); // r2 holds the run's first 5 rows only
    policies.lfu.add("b");
    assertThat(index.syncLfuCounters()).isEqualTo(15);
    assertThat(hit("b", "b-r1-3", 1)).isEqualTo(2); // both holders credited
    assertThat(hit("b", "b-r1-7", 1)).isEqualTo(1);
    assertThat(count("b", "m", "vllm", "b-r1-3", "r2")).isEqualTo(1);
    assertThat(count("b", "m", "vllm", "b-r1-7", "r2")).isEqualTo(-1); // not held
  }

  @Test
  void openGivesCountersForLfuTenantsOfTheConfiguredPolicies() {
    final File file = new File(dir, "index.dat");
    reopen(baseConfig().persistenceFile(file));
    chain("a", "r1", 12);
    index.close();
    try (CacheIndex reopened =
        CacheIndex.open(baseConfig().persistenceFile(file).policies(TenantPolicies.ALL_LFU))) {
      assertThat(reopened.state().storage.arena().counters()).isEqualTo(12);
      reopened.lookupAndClassify(IndexFixtures.exactReq("a", "m", "vllm", "a-r1-4", 0), r);
      assertThat(reopened.creditDelivered(r)).isEqualTo(1);
      assertThat(reopened.verifyCounts()).isEmpty();
    }
  }

  @Test
  void whenCountersCannotGrowLfuUpsertsAreDroppedWithoutEvictingAndASwitchWaits() {
    System.setProperty(CounterArena.MAX_CHUNKS_PROP_NAME, "0"); // as if direct memory ran out
    try {
      reopen(baseConfig());
    } finally {
      System.clearProperty(CounterArena.MAX_CHUNKS_PROP_NAME);
    }
    chain("a", "r1", 20); // an LRU tenant needs no counter
    policies.lfu.add("b");
    ingest(update("b", "m", "vllm", "r1").legacy("hot", 64));
    assertThat(index.totalEntries()).isEqualTo(20);
    assertThat(index.droppedFull()).isEqualTo(1);
    assertThat(present("a", "m", "vllm", "", "a-r1-0", "r1")).as("nothing evicted").isTrue();
    policies.lfu.add("a");
    assertThatThrownBy(index::syncLfuCounters).isInstanceOf(IllegalStateException.class);
    assertThat(hit("a", "a-r1-0", 1)).as("a stays LRU").isZero();
    assertThat(index.state().storage.arena().counters()).isZero();
    policies.lfu.remove("a");
    chain("a", "r2", 3); // LRU again, and the failed pass left it uncounted: stored, no counters
    assertThat(index.totalEntries()).isEqualTo(23);
  }

  @Test
  void countsSurviveASwitchToLruAndBack() {
    policies.lfu.add("b");
    ingest(update("b", "m", "vllm", "r1").legacy("hot", 64));
    assertThat(hit("b", "hot", 3)).isEqualTo(3);
    policies.lfu.remove("b");
    assertThat(hit("b", "hot", 2)).isZero();
    ingest(update("b", "m", "vllm", "r1").legacy("later", 64)); // still gets a counter
    policies.lfu.add("b");
    assertThat(hit("b", "hot", 1)).as("LFU again at once").isEqualTo(1);
    assertThat(count("b", "m", "vllm", "hot", "r1")).isEqualTo(4);
    assertThat(hit("b", "later", 1)).isEqualTo(1);
  }

  @Test
  void aTenantSwitchedToLfuEvictsByItsCountsAfterTheSwitch() {
    reopen(baseConfig().maxEntries(3).evictionHeadroom(0));
    ingest(update("b", "m", "vllm", "r1").legacy("hot", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("b", "m", "vllm", "r1").legacy("cold", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("a", "m", "vllm", "r1").legacy("other", 64));
    policies.lfu.add("b");
    index.syncLfuCounters();
    assertThat(hit("b", "hot", 2)).isEqualTo(2);
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("b", "m", "vllm", "r1").legacy("new", 64));
    assertThat(present("b", "m", "vllm", "", "cold", "r1")).isFalse();
    assertThat(present("b", "m", "vllm", "", "hot", "r1")).isTrue();
    assertThat(listener.evictions("lfu", "cap")).isEqualTo(1);
  }

  @Test
  void theStartedIndexNoticesAPolicyStoreSwitchToLfuByItself() {
    final PolicyStore store = reopenWithPolicyStore(baseConfig());
    chain("a", "r1", 4);
    chain("b", "r1", 4);
    index.start();
    store.replace(snapshotOf(List.of(PolicySpec.builder("b").eviction("lfu").build()), List.of()));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> index.state().storage.arena().counters() == 4 && hit("b", "b-r1-0", 1) == 1);
    assertThat(hit("a", "a-r1-0", 1)).isZero();
  }

  @Test
  void countersAndTheirAbsenceSurviveAReopenAndLfuCountsFromTheFirstLookup() {
    final IndexConfig persisted = baseConfig().persistenceFile(new File(dir, "index.dat"));
    reopen(persisted);
    policies.lfu.add("b");
    ingest(update("b", "m", "vllm", "r1").legacy("hot", 64));
    assertThat(hit("b", "hot", 3)).isEqualTo(3);
    chain("a", "r1", 100);
    reopen(persisted);
    assertThat(index.totalEntries()).isEqualTo(101);
    assertThat(index.state().storage.arena().counters()).isEqualTo(1);
    assertThat(hit("b", "hot", 1)).isEqualTo(1);
    assertThat(count("b", "m", "vllm", "hot", "r1")).isEqualTo(4);
    policies.lfu.add("a");
    assertThat(index.syncLfuCounters()).isEqualTo(100);
    reopen(persisted);
    assertThat(index.state().storage.arena().counters()).isEqualTo(101);
    assertThat(hit("a", "a-r1-7", 2)).isEqualTo(2);
    assertThat(index.verifyCounts()).isEmpty();
  }
}
