package io.inferencecache.engine;

import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;
import java.util.List;
import org.agrona.concurrent.EpochNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of the subscribers' reports: updates (docs/behaviour.md#ingest — prefix entries,
 * the stats row, then the tenant's quota and the global cap) and events (docs/behaviour.md#events —
 * PREFIX_EVICTED, REPLICA_UPDATED, ALL_CLEARED). Full storage never throws: the arena or map
 * running out evicts by {@link VictimOrder} and the entry is retried once.
 *
 * <p><b>Threads.</b> Index writer only (the caller holds the writer lock).
 */
final class Ingester {
  private static final Logger LOG = LoggerFactory.getLogger(CacheIndex.class);

  private final EpochNanoClock clock;
  private final PartitionRegistry registry;
  private final StringDictionary dict;
  private final SecondaryCounts counts;
  private final IndexStorage storage;
  private final IndexChanges changes;
  private final IndexListener listener;
  private final Evictor evictor;
  private final KeyBuffer wkey = new KeyBuffer();

  Ingester(
      final IndexConfig config,
      final PartitionRegistry registry,
      final SecondaryCounts counts,
      final IndexStorage storage,
      final IndexChanges changes,
      final Evictor evictor) {
    this.clock = config.clock();
    this.registry = registry;
    this.dict = registry.dictionary();
    this.counts = counts;
    this.storage = storage;
    this.changes = changes;
    this.listener = changes.listener();
    this.evictor = evictor;
  }

  /** Wires the storage's drop reports to this writer (after the storage is open). */
  void attach() {
    storage.main().dropSink(this::droppedFull);
    storage.reserved().dropSink(this::droppedFull);
  }

  private static long tsNanos(final long micros, final long now) {
    return micros == 0 ? now : micros * 1000L;
  }

  private static float finite(final float f) {
    return Float.isFinite(f) ? f : 0f;
  }

  // ---------------------------------------------------------------------------------------------
  // Updates

  void ingest(final IngestUpdate u) {
    final long now = clock.nanoTime();
    final long ts = tsNanos(u.timestampMicros(), now);
    final int tenant = dict.intern(u.tenantId());
    final int model = dict.intern(u.modelId());
    final int replica = dict.intern(u.replicaId());
    if (!u.hashScheme().isEmpty()) {
      final int scheme = dict.intern(u.hashScheme());
      for (IngestPrefix e : u.prefixes()) {
        ingestEntry(u, e, tenant, model, scheme, replica, ts);
      }
      storage.main().flush();
      storage.reserved().flush();
    }
    final IngestStats st = u.stats();
    if (st != null) {
      final TenantModelState tm = registry.tmFor(tenant, model);
      tm.stats =
          tm.stats.with(
              new StatsRow(
                  replica,
                  st.cacheMemoryBytes(),
                  finite(st.hitRate()),
                  finite(st.pressure()),
                  st.t2HitTokens(),
                  st.t2QueryTokens(),
                  ts,
                  ts));
      if (listener.wantsChanges()) {
        listener.onReplicaUpdated(
            dict.string(tenant), dict.string(model), dict.string(replica), ts);
      }
    }
    storage.persistNewMetadata();
    if (tenant != registry.reservedTenantId()) {
      evictor.enforceQuota(tenant);
    }
    evictor.enforceCap();
    counts.flushModelGauges(listener);
  }

  private void ingestEntry(
      final IngestUpdate u,
      final IngestPrefix e,
      final int tenant,
      final int model,
      final int scheme,
      final int replica,
      final long ts) {
    final int tier = HolderLayout.tierCode(e.tier());
    final String adapterName =
        e.adapterId() != null && !e.adapterId().isEmpty() ? e.adapterId() : u.adapterId();
    final Partition p = registry.partitionFor(tenant, model, scheme, dict.intern(adapterName));
    final List<byte[]> hashes = e.blockHashes() == null ? List.of() : e.blockHashes();
    final int[] blockCounts = e.blockTokenCounts() == null ? new int[0] : e.blockTokenCounts();
    final byte[] prefix = e.prefixHash() == null ? new byte[0] : e.prefixHash();
    final RunStore store = storage.storeOf(p);
    if (!hashes.isEmpty() || blockCounts.length > 0) {
      if (hashes.size() != blockCounts.length) {
        return; // malformed chain entries are dropped whole
      }
      int cumulative = 0;
      store.chainStart();
      for (int j = 0; j < blockCounts.length; j++) {
        cumulative += blockCounts[j]; // int32 running sum, wrapping like upstream
        upsert(p, hashes.get(j), replica, cumulative, ts, tier);
      }
      if (prefix.length > 0) {
        store.chainStart(); // the whole-prefix key is not a block of the chain's run
        upsert(p, prefix, replica, e.tokenCount(), ts, tier);
      }
    } else {
      store.chainStart();
      upsert(p, prefix, replica, e.tokenCount(), ts, tier);
    }
  }

  private void upsert(
      final Partition p,
      final byte[] hash,
      final int replica,
      final int tokens,
      final long ts,
      final int tier) {
    if (hash == null || !wkey.set(p.id(), hash, 0, hash.length)) {
      counts.hashRejected();
      return;
    }
    if (!storage.arena().hasFree()) {
      evictor.evictForSpace();
      if (!storage.arena().hasFree()) {
        counts.entryDroppedFull();
        return;
      }
    }
    final int outcome = storage.storeOf(p).upsert(wkey, replica, tokens, ts, tier, storage.arena());
    changes.counted(p, outcome, replica);
    if (listener.wantsChanges()) {
      changes.reportStored(p, hash, replica, tokens, ts);
    }
  }

  /**
   * A holder the map could not take after all (it refused to grow when the writer stored the run):
   * undoes its counts, frees its slot and reports it removed to make room (reason cap).
   */
  private void droppedFull(
      final byte[] key,
      final int keyLength,
      final int replica,
      final int slot,
      final boolean newKey) {
    final Partition p = registry.partitionById(KeyBuffer.partitionOf(key));
    changes.holderGone(p, replica, slot, newKey);
    counts.entryDroppedFull();
    LOG.warn("event=index_full: entry dropped");
    if (listener.wantsChanges()) {
      changes.reportRemoved(
          p,
          IndexChanges.hashOf(key, keyLength),
          replica,
          IndexListener.REMOVED_BY_CAP,
          clock.nanoTime());
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Events

  void applyEvent(final IndexEvent e) {
    final long now = clock.nanoTime();
    final long ts = tsNanos(e.timestampMicros(), now);
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
