package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.T0;
import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.minutes;
import static io.inferencecache.engine.IndexFixtures.specFreshness;
import static io.inferencecache.engine.IndexFixtures.update;
import static io.inferencecache.engine.LookupScoringTest.assertBits;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.engine.policy.PolicyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TTL sweep, global cap (LRU/LFU victim order) and LFU accounting (docs/behaviour.md#eviction-ttl
 * and docs/behaviour.md#eviction-lru-lfu and docs/behaviour.md#eviction-cap; checklist 60–65,
 * 81–87).
 */
class EvictionTest extends IndexTestSupport {

  private IndexConfig capped(final long cap) {
    return baseConfig().maxEntries(cap).evictionHeadroom(0);
  }

  // --- TTL ---------------------------------------------------------------------------------

  @Test
  void sweepRemovesEntriesOlderThanTheTtl() {
    reopen(baseConfig().defaultTtlNanos(minutes(10)));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    clock.advance(9, TimeUnit.MINUTES);
    assertThat(index.sweepExpired()).isZero();
    clock.advance(2, TimeUnit.MINUTES);
    assertThat(index.sweepExpired()).isEqualTo(1);
    assertThat(index.totalEntries()).isZero();
    assertThat(index.totalKeys()).isZero();
    assertThat(present("p", "r1")).isFalse();
  }

  @Test
  void sweepRemovesAnEntryExactlyTtlOld() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    clock.advance(IndexConfig.TTL_DEFAULT_NS - 1, TimeUnit.NANOSECONDS);
    assertThat(index.sweepExpired()).isZero();
    clock.advance(1, TimeUnit.NANOSECONDS);
    assertThat(index.sweepExpired()).isEqualTo(1);
  }

  @Test
  void sweepKeepsFreshHoldersOfAPartlyStaleKey() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    clock.advance(20, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r2").legacy("p", 64));
    clock.advance(10, TimeUnit.MINUTES);
    assertThat(index.sweepExpired()).isEqualTo(1);
    assertThat(present("p", "r1")).isFalse();
    assertThat(present("p", "r2")).isTrue();
    assertThat(index.totalKeys()).isEqualTo(1);
  }

  @Test
  void sweepRemovesStatsRowsByLiveness() {
    ingest(update("t", "m", "vllm", "r1").stats(0.5f, 0f));
    clock.advance(29, TimeUnit.MINUTES);
    index.sweepExpired();
    assertThat(index.cacheState("t", "m").replicas()).hasSize(1);
    clock.advance(1, TimeUnit.MINUTES);
    index.sweepExpired();
    assertThat(index.cacheState("t", "m").replicas()).isEmpty();
  }

  @Test
  void perTenantTtlDrivesFreshnessAndEviction() {
    final PolicyStore store = reopenWithPolicyStore(baseConfig().defaultTtlNanos(minutes(60)));
    store.replace(
        snapshotOf(
            List.of(PolicySpec.builder("short").evictionTTLNanos(minutes(5)).build()), List.of()));
    ingest(update("short", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("long", "m", "vllm", "r1").legacy("p", 64));
    clock.advance(2, TimeUnit.MINUTES);
    assertBits(
        route(exactReq("short", "m", "vllm", "p", 0)).score(0),
        (float) 64 * specFreshness(minutes(2), minutes(5)));
    assertBits(
        route(exactReq("long", "m", "vllm", "p", 0)).score(0),
        (float) 64 * specFreshness(minutes(2), minutes(60)));
    clock.advance(8, TimeUnit.MINUTES);
    assertThat(route(exactReq("short", "m", "vllm", "p", 0)).size()).isZero();
    assertThat(route(exactReq("long", "m", "vllm", "p", 0)).size()).isEqualTo(1);
    assertThat(index.sweepExpired()).isEqualTo(1);
    assertThat(present("short", "m", "vllm", "", "p", "r1")).isFalse();
    assertThat(present("long", "m", "vllm", "", "p", "r1")).isTrue();
  }

  @Test
  void nonPositiveTenantTtlFallsBackToTheGlobalTtl() {
    final PolicyStore store = reopenWithPolicyStore(baseConfig());
    store.replace(
        snapshotOf(List.of(PolicySpec.builder("t").evictionTTLNanos(0).build()), List.of()));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    clock.advance(29, TimeUnit.MINUTES);
    assertBits(
        route(exactReq("t", "m", "vllm", "p", 0)).score(0),
        (float) 64 * specFreshness(minutes(29), IndexConfig.TTL_DEFAULT_NS));
    clock.advance(1, TimeUnit.MINUTES);
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).size()).isZero();
    assertThat(index.sweepExpired()).isEqualTo(1);
  }

  @Test
  void negativeTtlFromTheResolverAlsoFallsBackToTheGlobalTtl() {
    policies.ttl.put("t", -5L);
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    clock.advance(29, TimeUnit.MINUTES);
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).size()).isEqualTo(1);
    assertThat(index.sweepExpired()).isZero();
  }

  @Test
  @Timeout(60)
  void lookupsStayConsistentWhileTheTtlChangesConcurrently() throws Exception {
    policies.ttl.put("t", minutes(60));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    clock.advance(10, TimeUnit.MINUTES);
    final float underLongTtl = (float) 64 * specFreshness(minutes(10), minutes(60));
    final AtomicBoolean stop = new AtomicBoolean();
    final AtomicReference<Throwable> failure = new AtomicReference<>();
    final Thread flipper =
        new Thread(
            () -> {
              long i = 0;
              while (!stop.get()) {
                policies.ttl.put("t", (i++ & 1) == 0 ? minutes(5) : minutes(60));
              }
            });
    flipper.start();
    try {
      final LookupRequest q = exactReq("t", "m", "vllm", "p", 0);
      for (int i = 0; i < 200_000; i++) {
        index.lookupAndClassify(q, r);
        if (r.outcome() == Outcome.PREFIX_MATCH) {
          assertThat(r.size()).isEqualTo(1);
          assertBits(r.score(0), underLongTtl);
        } else {
          assertThat(r.outcome()).isEqualTo(Outcome.NONE);
          assertThat(r.size()).isZero();
        }
      }
    } catch (Throwable t) {
      failure.set(t);
    } finally {
      stop.set(true);
      flipper.join();
    }
    assertThat(failure.get()).isNull();
  }

  // --- global cap, LRU ----------------------------------------------------------------------

  @Test
  void capEvictsTheOldestEntry() {
    reopen(capped(2));
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p2", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p3", 64));
    assertThat(index.totalEntries()).isEqualTo(2);
    assertThat(present("p1", "r1")).isFalse();
    assertThat(present("p2", "r1")).isTrue();
    assertThat(present("p3", "r1")).isTrue();
    assertThat(listener.evictions("lru", "cap")).isEqualTo(1);
  }

  @Test
  void capCountsStorageEntriesNotKeys() {
    reopen(capped(3));
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r2").legacy("p1", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r3").legacy("p1", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p2", 64));
    assertThat(index.totalEntries()).isEqualTo(3);
    assertThat(index.totalKeys()).isEqualTo(2);
    assertThat(present("p1", "r1")).isFalse();
    assertThat(present("p1", "r2")).isTrue();
  }

  @Test
  void capVictimsAreOrderedByFullKeyThenReplicaWhenLastSeenTies() {
    reopen(capped(8));
    final byte[] x7f = {0x7F};
    final byte[] x80 = {(byte) 0x80};
    final byte[] xff = {(byte) 0xFF};
    final byte[] x01 = {0x01};
    final String e = "\u00E9"; // sorts after every ASCII name in unsigned UTF-8
    // expected victim order, all at the same lastSeen (T0)
    final Object[][] order = {
      {"a", "m", "sglang", "", xff, "r1"},
      {"a", "m", "vllm", "", x7f, "r1"},
      {"a", "m", "vllm", "", x7f, "r2"},
      {"a", "m", "vllm", "", x80, "r1"},
      {"a", "m", "vllm", "", xff, "r1"},
      {"a", "m", "vllm", "A", x01, "r1"},
      {"a", "m2", "vllm", "", x01, "r1"},
      {e, "m", "vllm", "", x01, "r1"},
    };
    // ingest in a scrambled order so insertion order cannot explain the result
    for (int i : new int[] {7, 3, 0, 5, 2, 6, 1, 4}) {
      final Object[] k = order[i];
      index.ingest(
          update((String) k[0], (String) k[1], (String) k[2], (String) k[5])
              .at(T0)
              .adapter((String) k[3])
              .legacy((byte[]) k[4], 16, 0)
              .build());
    }
    assertThat(index.totalEntries()).isEqualTo(8);
    for (int step = 0; step < order.length; step++) {
      index.ingest(update("\uFFFF", "m", "vllm", "filler").at(T0).legacy("f" + step, 16).build());
      for (int j = 0; j < order.length; j++) {
        final Object[] k = order[j];
        final boolean alive =
            index.accessCount(
                    (String) k[0],
                    (String) k[1],
                    (String) k[2],
                    (String) k[3],
                    (byte[]) k[4],
                    (String) k[5])
                >= 0;
        assertThat(alive).as("after %s evictions, entry %s", step + 1, j).isEqualTo(j > step);
      }
    }
  }

  @Test
  void defaultHeadroomEvictsOnePercentBelowACapOfAThousand() {
    reopen(baseConfig().maxEntries(1000));
    final IndexFixtures.UpdateBuilder u = update("t", "m", "vllm", "r1");
    for (int i = 0; i < 1000; i++) {
      u.legacy(String.format("k%04d", i), 16);
    }
    ingest(u);
    assertThat(index.totalEntries()).isEqualTo(1000);
    assertThat(listener.allEvictions()).isZero();
    clock.advance(1, TimeUnit.SECONDS);
    ingest(update("t", "m", "vllm", "r1").legacy("new", 16));
    assertThat(index.totalEntries()).isEqualTo(990);
    assertThat(listener.evictions("lru", "cap")).isEqualTo(11);
    for (int i = 0; i <= 10; i++) {
      assertThat(present(String.format("k%04d", i), "r1")).as("k%04d", i).isFalse();
    }
    assertThat(present("k0011", "r1")).isTrue();
    assertThat(present("new", "r1")).isTrue();
  }

  @Test
  void defaultHeadroomIsExactForCapsBelowOneHundred() {
    reopen(baseConfig().maxEntries(50));
    final IndexFixtures.UpdateBuilder u = update("t", "m", "vllm", "r1");
    for (int i = 0; i < 50; i++) {
      u.legacy(String.format("k%02d", i), 16);
    }
    ingest(u);
    clock.advance(1, TimeUnit.SECONDS);
    ingest(update("t", "m", "vllm", "r1").legacy("new", 16));
    assertThat(index.totalEntries()).isEqualTo(50);
    assertThat(listener.evictions("lru", "cap")).isEqualTo(1);
    assertThat(present("k00", "r1")).isFalse();
  }

  @Test
  void capIsEnforcedOverAWholeUpdateAtItsEnd() {
    reopen(capped(2));
    ingest(update("t", "m", "vllm", "r1").legacy("p3", 16).legacy("p1", 16).legacy("p2", 16));
    assertThat(index.totalEntries()).isEqualTo(2);
    // one lastSeen for the whole update: the smallest key goes, whatever the entry order
    assertThat(present("p1", "r1")).isFalse();
    assertThat(present("p2", "r1")).isTrue();
    assertThat(present("p3", "r1")).isTrue();
    assertThat(listener.evictions("lru", "cap")).isEqualTo(1);
  }

  @Test
  void anUpdateLargerThanTheCounterArenaStillEndsAtTheCapWithTheSpecsSurvivors() {
    for (boolean descending : new boolean[] {true, false}) {
      reopen(capped(50));
      final String tenant = descending ? "desc" : "asc";
      final IndexFixtures.UpdateBuilder u = update(tenant, "m", "vllm", "r1").at(T0);
      for (int i = 0; i < 4000; i++) {
        u.legacy(String.format("k%04d", descending ? 3999 - i : i), 16);
      }
      ingest(u);
      assertThat(index.totalEntries()).isEqualTo(50);
      assertThat(index.droppedFull()).isZero();
      assertThat(index.verifyCounts()).isEmpty();
      // every entry has the same lastSeen: the 50 largest keys survive
      for (int i = 3950; i < 4000; i++) {
        assertThat(present(tenant, "m", "vllm", "", String.format("k%04d", i), "r1"))
            .as("%s k%04d", tenant, i)
            .isTrue();
      }
    }
  }

  // --- global cap, LFU ----------------------------------------------------------------------

  @Test
  void lfuEvictsTheLowestCountEvenIfNewest() {
    reopen(capped(3));
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").legacy("old", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("b", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("c", 64));
    assertThat(hit("t", "old", 5)).isEqualTo(5);
    assertThat(hit("t", "b", 2)).isEqualTo(2);
    assertThat(hit("t", "c", 1)).isEqualTo(1);
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("d", 64));
    assertThat(present("d", "r1")).isFalse();
    assertThat(present("old", "r1")).isTrue();
    assertThat(present("b", "r1")).isTrue();
    assertThat(present("c", "r1")).isTrue();
    assertThat(listener.evictions("lfu", "cap")).isEqualTo(1);
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("e", 64)); // e (0) again
    assertThat(present("c", "r1")).isTrue();
  }

  @Test
  void lfuBreaksEqualCountsByOldestLastSeen() {
    reopen(capped(3));
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").legacy("hot", 64)); // oldest, but count 3
    hit("t", "hot", 3);
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("a", 64)); // count 0
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("b", 64)); // count 0
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("c", 64)); // count 0, newest
    assertThat(present("a", "r1")).isFalse();
    assertThat(present("hot", "r1")).isTrue();
    assertThat(present("b", "r1")).isTrue();
    assertThat(present("c", "r1")).isTrue();
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("d", 64));
    assertThat(present("b", "r1")).isFalse();
    assertThat(present("c", "r1")).isTrue();
    assertThat(present("d", "r1")).isTrue();
  }

  /** Runs the same state under LRU or LFU for the overflowing ingest; returns the survivors. */
  private List<String> survivorsUnder(final boolean lfu) {
    reopen(capped(2));
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").legacy("hot", 64));
    hit("t", "hot", 3);
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("cold", 64));
    if (!lfu) {
      policies.lfu.remove("t");
    }
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("new", 64));
    final List<String> out = new ArrayList<>();
    for (String k : List.of("hot", "cold", "new")) {
      if (present(k, "r1")) {
        out.add(k);
      }
    }
    return out;
  }

  @Test
  void switchingTheEvictionPolicySelectsDifferentVictims() {
    assertThat(survivorsUnder(false)).containsExactly("cold", "new");
    assertThat(listener.evictions("lru", "cap")).isEqualTo(1);
    policies.lfu.clear();
    assertThat(survivorsUnder(true)).containsExactly("hot", "new");
    assertThat(listener.evictions("lfu", "cap")).isEqualTo(1);
  }

  @Test
  void lfuIsSelectedByAPolicyNamingLfuInAnyCase() {
    final PolicyStore store = reopenWithPolicyStore(capped(2));
    store.replace(snapshotOf(List.of(PolicySpec.builder("t").eviction("LfU").build()), List.of()));
    ingest(update("t", "m", "vllm", "r1").legacy("hot", 64));
    assertThat(hit("t", "hot", 3)).isEqualTo(3);
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("cold", 64));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("new", 64));
    assertThat(present("hot", "r1")).isTrue();
    assertThat(present("new", "r1")).isTrue();
    assertThat(present("cold", "r1")).isFalse();
    assertThat(listener.evictions("lfu", "cap")).isEqualTo(1);
  }

  @Test
  void mixedNamespacesShareOneGlobalVictimOrdering() {
    reopen(capped(3));
    policies.lfu.add("lfu");
    ingest(update("lfu", "m", "vllm", "r1").legacy("zero", 64)); // count 0, oldest
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("lfu", "m", "vllm", "r1").legacy("hot", 64));
    hit("lfu", "hot", 2);
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("lru", "m", "vllm", "r1").legacy("x", 64)); // effective count 0
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("lru", "m", "vllm", "r1").legacy("y", 64));
    assertThat(present("lfu", "m", "vllm", "", "zero", "r1")).isFalse();
    assertThat(listener.evictions("lfu", "cap")).isEqualTo(1);
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("lru", "m", "vllm", "r1").legacy("z", 64));
    assertThat(present("lru", "m", "vllm", "", "x", "r1")).isFalse();
    assertThat(present("lfu", "m", "vllm", "", "hot", "r1")).isTrue();
    assertThat(listener.evictions("lru", "cap")).isEqualTo(1);
  }

  // --- LFU accounting -----------------------------------------------------------------------

  @Test
  void lruNamespacesNeverCountAccesses() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    assertThat(hit("t", "p", 3)).isZero();
    assertThat(count("t", "m", "vllm", "p", "r1")).isZero();
    policies.lfu.add("t");
    // LFU takes effect once the tenant's entries have counters (the index's agent, or a sync)
    assertThat(hit("t", "p", 1)).isZero();
    assertThat(index.syncLfuCounters()).isEqualTo(1);
    assertThat(hit("t", "p", 2)).isEqualTo(2);
    assertThat(count("t", "m", "vllm", "p", "r1")).isEqualTo(2);
    assertThat(index.verifyCounts()).isEmpty();
  }

  @Test
  void lfuCountSurvivesReingest() {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    hit("t", "p", 4);
    clock.advance(5, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacyTier("p", 32, Tier.T2));
    ingest(update("t", "m", "vllm", "r2").legacy("p", 64));
    assertThat(count("t", "m", "vllm", "p", "r1")).isEqualTo(4);
    assertThat(count("t", "m", "vllm", "p", "r2")).isZero();
  }

  @Test
  void lfuCreditsEveryBlockOfTheMatchedRunAndNoneBeyond() {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").chain(16, "b0", "b1", "b2", "b3"));
    ingest(update("t", "m", "vllm", "r2").chain(16, "b0"));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2", "x3"));
    assertThat(r.pendingCredits()).isEqualTo(4);
    assertThat(index.creditDelivered(r)).isEqualTo(4);
    assertThat(count("t", "m", "vllm", "b0", "r1")).isEqualTo(1);
    assertThat(count("t", "m", "vllm", "b1", "r1")).isEqualTo(1);
    assertThat(count("t", "m", "vllm", "b2", "r1")).isEqualTo(1);
    assertThat(count("t", "m", "vllm", "b3", "r1")).isZero();
    assertThat(count("t", "m", "vllm", "b0", "r2")).isEqualTo(1);
  }

  @Test
  void lfuCreditsArePrunedWithReplicasBelowTheMatchedTokensFloor() {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").chain(16, "b0", "b1", "b2"));
    ingest(update("t", "m", "vllm", "r2").chain(16, "b0"));
    route(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2"));
    assertThat(r.retainMatchedAtLeast(32)).isEqualTo(1);
    assertThat(index.creditDelivered(r)).isEqualTo(3);
    assertThat(count("t", "m", "vllm", "b0", "r2")).isZero();
    assertThat(count("t", "m", "vllm", "b0", "r1")).isEqualTo(1);
  }

  @Test
  void lfuCreditsNothingForADowngradedResult() {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    route(exactReq("t", "m", "vllm", "p", 0));
    r.downgrade(Outcome.NONE);
    assertThat(index.creditDelivered(r)).isZero();
    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(r.retainMatchedAtLeast(65)).isZero();
    assertThat(index.creditDelivered(r)).isZero();
    assertThat(count("t", "m", "vllm", "p", "r1")).isZero();
  }

  @Test
  void plainLookupNeverCredits() {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64).chain(16, "b0", "b1"));
    for (int i = 0; i < 10; i++) {
      plain(exactReq("t", "m", "vllm", "p", 0));
      plain(chainReq("t", "m", "vllm", 16, "b0", "b1"));
    }
    assertThat(count("t", "m", "vllm", "p", "r1")).isZero();
    assertThat(count("t", "m", "vllm", "b0", "r1")).isZero();
  }

  @Test
  void lfuSkipsZeroTokenAndStaleHoldersOnTheExactPath() {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "stale").at(T0 - minutes(31)).legacy("p", 64));
    ingest(update("t", "m", "vllm", "zero").legacy("p", 0));
    ingest(update("t", "m", "vllm", "full").legacy("p", 64));
    route(exactReq("t", "m", "vllm", "p", 0));
    assertThat(names(r)).containsExactly("full", "zero");
    assertThat(index.creditDelivered(r)).isEqualTo(1);
    assertThat(count("t", "m", "vllm", "p", "full")).isEqualTo(1);
    assertThat(count("t", "m", "vllm", "p", "zero")).isZero();
    assertThat(count("t", "m", "vllm", "p", "stale")).isZero();
  }

  @Test
  void aLateCreditNeverLandsOnAnEntryThatReusedTheSlot() {
    policies.lfu.add("t");
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    route(exactReq("t", "m", "vllm", "p", 0));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p", ""));
    ingest(update("t", "m", "vllm", "r1").legacy("q", 64));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    assertThat(index.creditDelivered(r)).isZero();
    assertThat(count("t", "m", "vllm", "q", "r1")).isZero();
    assertThat(count("t", "m", "vllm", "p", "r1")).isZero();
  }

  @Test
  void lfuCountsAreSharedAcrossRandomisedCredits() {
    policies.lfu.add("t");
    final int n = 20;
    final long[] expected = new long[n];
    for (int i = 0; i < n; i++) {
      ingest(update("t", "m", "vllm", "r1").legacy("p" + i, 64));
    }
    final ThreadLocalRandom rnd = ThreadLocalRandom.current();
    for (int k = 0; k < 500; k++) {
      final int i = rnd.nextInt(n);
      expected[i] += hit("t", "p" + i, 1);
    }
    for (int i = 0; i < n; i++) {
      assertThat(count("t", "m", "vllm", "p" + i, "r1")).isEqualTo(expected[i]);
    }
  }
}
