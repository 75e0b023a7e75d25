package io.inferencecache.engine;

import io.inferencecache.engine.internal.CounterArena;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunStore;
import org.agrona.concurrent.EpochNanoClock;

/**
 * Eviction by size: the global cap (docs/behaviour.md#eviction-cap), the tenant quotas
 * (docs/behaviour.md#tenant-quotas) and making room when the storage is full mid-ingest. Victims
 * are chosen in {@link VictimOrder} by one scan of the map and a bounded selection; TTL expiry is
 * {@link TtlSweeper}'s.
 *
 * <p><b>Threads.</b> Index writer only.
 */
final class Evictor {
  private final IndexConfig config;
  private final EpochNanoClock clock;
  private final LfuCounters lfuCounters;
  private final PartitionRegistry registry;
  private final SecondaryCounts counts;
  private final IndexStorage storage;
  private final IndexChanges changes;
  private final KeyBuffer key = new KeyBuffer();

  Evictor(final EngineState state, final IndexChanges changes) {
    this.config = state.config;
    this.clock = state.clock;
    this.lfuCounters = state.lfuCounters;
    this.registry = state.registry;
    this.counts = state.counts;
    this.storage = state.storage;
    this.changes = changes;
  }

  /**
   * Evicts down to {@code maxEntries − floor(maxEntries × evictionHeadroom)} when the non-reserved
   * entries exceed {@code maxEntries} (after every ingest).
   */
  void enforceCap() {
    final long effective = counts.effectiveEntries();
    final long max = config.maxEntries();
    if (effective <= max) {
      return;
    }
    final long target = max - (long) Math.floor(max * config.evictionHeadroom());
    evictEntries((int) Math.min(Integer.MAX_VALUE, effective - target));
  }

  /**
   * Makes room when the arena or the map ran out mid-ingest. Over the cap, only the excess goes:
   * those are the first entries of the victim order, which the end-of-ingest cap pass would evict
   * anyway (evicting below the cap here would drop entries that pass keeps). At or under the cap (a
   * full map segment), 1 % of the cap goes. Returns the entries evicted (0: nothing could be).
   */
  int evictForSpace() {
    final long effective = counts.effectiveEntries();
    final long max = config.maxEntries();
    final long target =
        effective > max ? max : Math.max(0, effective - Math.max(1, (long) (max * 0.01)));
    if (effective <= target) {
      return 0;
    }
    return evictEntries((int) Math.min(Integer.MAX_VALUE, effective - target));
  }

  private int evictEntries(final int need) {
    if (need <= 0) {
      return 0;
    }
    final int[] pRank = VictimOrder.partitionRanks(registry);
    final int[] nRank = VictimOrder.nameRanks(registry.dictionary());
    final CounterArena arena = storage.arena();
    final VictimOrder.Selection selection = new VictimOrder.Selection(need, VictimOrder.CAP);
    final VictimOrder.Victim probe = new VictimOrder.Victim();
    final RunStore main = storage.main();
    main.forEachBlock(
        (k, keyLength, holders) -> {
          final Partition p = registry.partitionById(KeyBuffer.partitionOf(k));
          if (p == null) {
            return;
          }
          final boolean lfu = lfuCounters.lfu(p.tenant());
          probe.key = k;
          probe.keyLength = keyLength;
          probe.partitionRank = pRank[p.id()];
          probe.partition = p.id();
          for (int i = 0; i < holders.count(); i++) {
            probe.count = lfu ? arena.countAcquire(holders.slot(i)) : 0;
            probe.lastSeen = holders.lastSeen(i);
            probe.replicaRank = nRank[holders.replica(i)];
            probe.replica = holders.replica(i);
            selection.offer(probe);
          }
        });
    long lru = 0;
    long lfu = 0;
    final long now = clock.nanoTime();
    for (VictimOrder.Victim v : selection.victims()) {
      final Partition p = registry.partitionById(v.partition);
      key.setRaw(v.key, v.keyLength);
      if (changes.removeHolder(p, key, v.replica, IndexListener.REMOVED_BY_CAP, now)) {
        if (lfuCounters.lfu(p.tenant())) {
          lfu++;
        } else {
          lru++;
        }
      }
    }
    main.flush();
    final IndexListener listener = changes.listener();
    if (lru > 0) {
      listener.onEvictions("lru", "cap", lru);
    }
    if (lfu > 0) {
      listener.onEvictions("lfu", "cap", lfu);
    }
    return (int) (lru + lfu);
  }

  /**
   * Drops whole keys of {@code tenant}, oldest first ({@link VictimOrder#QUOTA}), down to its quota
   * less the headroom when it holds more keys than its quota (after every ingest of that tenant).
   */
  void enforceQuota(final int tenant) {
    final long max = lfuCounters.maxIndexEntries(tenant);
    if (max < 0) {
      return;
    }
    final long have = counts.tenantKeys(tenant);
    if (have <= max) {
      return;
    }
    final long target = max - (long) Math.floor(max * config.evictionHeadroom());
    final int need = (int) Math.min(Integer.MAX_VALUE, have - target);
    final int[] pRank = VictimOrder.partitionRanks(registry);
    final VictimOrder.Selection selection = new VictimOrder.Selection(need, VictimOrder.QUOTA);
    final VictimOrder.Victim probe = new VictimOrder.Victim();
    final RunStore main = storage.main();
    main.forEachBlock(
        (k, keyLength, holders) -> {
          final Partition p = registry.partitionById(KeyBuffer.partitionOf(k));
          if (p == null || p.tenant() != tenant) {
            return;
          }
          long newest = Long.MIN_VALUE;
          for (int i = 0; i < holders.count(); i++) {
            newest = Math.max(newest, holders.lastSeen(i));
          }
          probe.lastSeen = newest;
          probe.partitionRank = pRank[p.id()];
          probe.key = k;
          probe.keyLength = keyLength;
          probe.partition = p.id();
          selection.offer(probe);
        });
    long evicted = 0;
    final long now = clock.nanoTime();
    for (VictimOrder.Victim v : selection.victims()) {
      key.setRaw(v.key, v.keyLength);
      if (changes.removeKey(
          registry.partitionById(v.partition), key, IndexListener.REMOVED_BY_QUOTA, now)) {
        evicted++;
      }
    }
    main.flush();
    if (evicted > 0) {
      changes
          .listener()
          .onTenantEvictions(registry.dictionary().string(tenant), "over_entries", evicted);
    }
  }
}
