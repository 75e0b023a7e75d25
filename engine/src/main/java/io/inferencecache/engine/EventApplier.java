package io.inferencecache.engine;

import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;
import org.agrona.concurrent.EpochNanoClock;

/**
 * The write path of the subscribers' events (docs/behaviour.md#events): PREFIX_EVICTED removes a
 * replica from a block in every partition of its (tenant, model), REPLICA_UPDATED refreshes the
 * replica's stats row, ALL_CLEARED drops its stats row and every holder it has there.
 *
 * <p><b>Threads.</b> Index writer only (the caller holds the writer lock).
 */
final class EventApplier {
  private final EpochNanoClock clock;
  private final PartitionRegistry registry;
  private final StringDictionary dict;
  private final SecondaryCounts counts;
  private final IndexStorage storage;
  private final IndexChanges changes;
  private final IndexListener listener;
  private final KeyBuffer wkey = new KeyBuffer();

  EventApplier(final EngineState state, final IndexChanges changes) {
    this.clock = state.clock;
    this.registry = state.registry;
    this.dict = state.dict;
    this.counts = state.counts;
    this.storage = state.storage;
    this.changes = changes;
    this.listener = changes.listener();
  }

  void apply(final IndexEvent e) {
    final long now = clock.nanoTime();
    final long ts = Ingester.tsNanos(e.timestampMicros(), now);
    switch (e.type()) {
      case PREFIX_EVICTED -> evictPrefix(e, ts);
      case REPLICA_UPDATED -> replicaUpdated(e, ts);
      case ALL_CLEARED -> allCleared(e, ts);
      default -> {
        // PREFIX_ADDED carries no scheme or token count; unspecified/unknown: ignored
      }
    }
    storage.main().flush();
    storage.reserved().flush();
    counts.flushModelGauges(listener);
  }

  private void evictPrefix(final IndexEvent e, final long ts) {
    final int tenant = dict.idOf(e.tenantId());
    final int model = dict.idOf(e.modelId());
    final int replica = dict.idOf(e.replicaId());
    final TenantModelState tm = registry.tm(tenant, model);
    if (tm == null || replica < 0) {
      return;
    }
    final int adapter = e.adapterId().isEmpty() ? -2 : dict.idOf(e.adapterId());
    if (adapter == StringDictionary.MISSING) {
      return;
    }
    for (int pid : tm.partitions()) {
      final Partition p = registry.partitionById(pid);
      if (adapter != -2 && p.adapter() != adapter) {
        continue;
      }
      if (!wkey.set(pid, e.prefixHash(), 0, e.prefixHash().length)) {
        return;
      }
      changes.removeHolder(p, wkey, replica, IndexListener.REMOVED_BY_EVENT, ts);
    }
  }

  private void replicaUpdated(final IndexEvent e, final long ts) {
    final TenantModelState tm = registry.tm(dict.idOf(e.tenantId()), dict.idOf(e.modelId()));
    final int replica = dict.idOf(e.replicaId());
    if (tm == null || replica < 0) {
      return;
    }
    final StatsRow row = tm.stats.get(replica);
    if (row != null) {
      tm.stats = tm.stats.with(row.withLastSeen(ts));
      if (listener.wantsChanges()) {
        listener.onReplicaUpdated(
            dict.string(tm.tenant), dict.string(tm.model), dict.string(replica), ts);
      }
    }
  }

  private void allCleared(final IndexEvent e, final long ts) {
    final TenantModelState tm = registry.tm(dict.idOf(e.tenantId()), dict.idOf(e.modelId()));
    final int replica = dict.idOf(e.replicaId());
    if (tm == null || replica < 0) {
      return;
    }
    tm.stats = tm.stats.without(replica);
    clearReplica(tm, replica);
    if (listener.wantsChanges()) {
      listener.onAllCleared(
          dict.string(tm.tenant), dict.string(tm.model), dict.string(replica), ts);
    }
  }

  /** Removes every holder {@code replica} has in {@code tm} (not reported one by one). */
  private void clearReplica(final TenantModelState tm, final int replica) {
    boolean serving = false;
    for (int sid : tm.scopes()) {
      if (registry.scopeById(sid).count(replica) > 0) {
        serving = true;
        break;
      }
    }
    if (!serving) {
      return;
    }
    final RunStore store =
        tm.tenant == registry.reservedTenantId() ? storage.reserved() : storage.main();
    final int tmId = tm.id;
    final int segments = store.segments();
    for (int seg = 0; seg < segments; seg++) {
      store.removeCells(
          seg,
          (pid, holder, lastSeen) -> {
            final Partition p = registry.partitionById(pid);
            return holder == replica && p != null && p.tm() == tmId;
          },
          (key, keyLength, holder, slot, keyGone) ->
              changes.holderGone(
                  registry.partitionById(KeyBuffer.partitionOf(key)), holder, slot, keyGone));
    }
  }
}
