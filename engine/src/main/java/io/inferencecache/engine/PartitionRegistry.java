package io.inferencecache.engine;

import io.inferencecache.engine.internal.IdArray;
import io.inferencecache.engine.internal.LongIdMap;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.ScopeState;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;

/**
 * The ids of the index: the string dictionary, the (tenant, model) and (tenant, model, scheme)
 * states and the partitions (one per tenant, model, scheme, adapter) that prefix keys name.
 *
 * <p><b>Threads.</b> Ids are assigned by the index writer only; every read is lock-free (the maps
 * and arrays are copy-on-write, see engine/docs/design.md §3).
 */
final class PartitionRegistry {
  private final StringDictionary dict = new StringDictionary();
  private final LongIdMap tmIds = new LongIdMap();
  private final LongIdMap scopeIds = new LongIdMap();
  private final LongIdMap partitionIds = new LongIdMap();
  private final IdArray<TenantModelState> tms = new IdArray<>();
  private final IdArray<ScopeState> scopes = new IdArray<>();
  private final IdArray<Partition> partitions = new IdArray<>();
  private final int reservedTenantId;

  PartitionRegistry() {
    this.reservedTenantId = dict.intern(CacheIndex.RESERVED_TENANT);
  }

  StringDictionary dictionary() {
    return dict;
  }

  /** The dictionary id of {@link CacheIndex#RESERVED_TENANT}. */
  int reservedTenantId() {
    return reservedTenantId;
  }

  /** The (tenant, model) state, created on first use. Writer only. */
  TenantModelState tmFor(final int tenant, final int model) {
    final int id = tmIds.getOrAssign(LongIdMap.pack(tenant, model));
    TenantModelState s = tms.get(id);
    if (s == null) {
      s = new TenantModelState(id, tenant, model);
      tms.set(id, s);
    }
    return s;
  }

  /** The (tenant, model) state, or null when never ingested (or an id is -1). */
  TenantModelState tm(final int tenant, final int model) {
    if (tenant < 0 || model < 0) {
      return null;
    }
    final int id = tmIds.get(LongIdMap.pack(tenant, model));
    return id < 0 ? null : tms.get(id);
  }

  /** The (tenant, model, scheme) state, or null. */
  ScopeState scope(final TenantModelState tm, final int scheme) {
    if (tm == null || scheme < 0) {
      return null;
    }
    final int id = scopeIds.get(LongIdMap.pack(tm.id, scheme));
    return id < 0 ? null : scopes.get(id);
  }

  /** The partition of (tenant, model, scheme, adapter), created on first use. Writer only. */
  Partition partitionFor(final int tenant, final int model, final int scheme, final int adapter) {
    final TenantModelState tm = tmFor(tenant, model);
    final int scopeId = scopeIds.getOrAssign(LongIdMap.pack(tm.id, scheme));
    if (scopes.get(scopeId) == null) {
      scopes.set(scopeId, new ScopeState(scopeId, tm.id, scheme));
      tm.addScope(scopeId);
    }
    final int pid = partitionIds.getOrAssign(LongIdMap.pack(scopeId, adapter));
    Partition p = partitions.get(pid);
    if (p == null) {
      p =
          new Partition(
              pid, tenant, model, scheme, adapter, tm.id, scopeId, tenant == reservedTenantId);
      partitions.set(pid, p);
      tm.addPartition(pid);
    }
    return p;
  }

  /** The partition of (tm, scheme, adapter), or null. */
  Partition partition(final TenantModelState tm, final int scheme, final int adapter) {
    return partition(scope(tm, scheme), adapter);
  }

  /** The partition of {@code adapter} in scope {@code s} (which may be null), or null. */
  Partition partition(final ScopeState s, final int adapter) {
    if (s == null || adapter < 0) {
      return null;
    }
    final int pid = partitionIds.get(LongIdMap.pack(s.id, adapter));
    return pid < 0 ? null : partitions.get(pid);
  }

  Partition partitionById(final int pid) {
    return partitions.get(pid);
  }

  int partitionCount() {
    return partitionIds.size();
  }

  TenantModelState tmById(final int id) {
    return tms.get(id);
  }

  int tmCount() {
    return tmIds.size();
  }

  ScopeState scopeById(final int id) {
    return scopes.get(id);
  }

  int scopeCount() {
    return scopeIds.size();
  }
}
