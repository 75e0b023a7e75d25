package io.inferencecache.engine;

import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.LongIdMap;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.StatsTable;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The read-side aggregates: GetCacheState per (tenant, model) (docs/behaviour.md#get-cache-state)
 * and the {@code /snapshot} aggregate (docs/behaviour.md#snapshot). The reserved probe tenant is
 * left out of both.
 *
 * <p><b>Threads.</b> {@link #cacheState} on any thread (it reads published stats tables); {@link
 * #snapshot} walks the map and must run under the index's writer lock.
 */
final class Aggregates {
  private final PartitionRegistry registry;
  private final StringDictionary dict;
  private final SecondaryCounts counts;
  private final IndexStorage storage;

  Aggregates(final EngineState state) {
    this.registry = state.registry;
    this.dict = state.dict;
    this.counts = state.counts;
    this.storage = state.storage;
  }

  CacheStateView cacheState(final String tenant, final String model) {
    final int t = dict.idOf(tenant);
    if (t == registry.reservedTenantId()) {
      return CacheStateView.EMPTY;
    }
    final TenantModelState tm = registry.tm(t, dict.idOf(model));
    if (tm == null) {
      return CacheStateView.EMPTY;
    }
    final StatsTable stats = tm.stats;
    final List<StatsRow> rows = new ArrayList<>();
    for (int i = 0; i < stats.size(); i++) {
      rows.add(stats.row(i));
    }
    rows.sort((a, b) -> dict.compare(a.replica(), b.replica()));
    final List<CacheStateView.ReplicaStatsRow> out = new ArrayList<>(rows.size());
    for (StatsRow r : rows) {
      out.add(
          new CacheStateView.ReplicaStatsRow(
              dict.string(r.replica()),
              r.cacheMemoryBytes(),
              r.hitRate(),
              r.pressure(),
              r.t2HitTokens(),
              r.t2QueryTokens()));
    }
    return new CacheStateView(tm.prefixes, out);
  }

  /** Per (tenant, replica) accumulator of {@link #snapshot()}. */
  private static final class RowAcc {
    final int tenant;
    final int replica;
    StatsRow stats;
    long prefixCount;
    long lastEventAt;

    RowAcc(final int tenant, final int replica) {
      this.tenant = tenant;
      this.replica = replica;
    }
  }

  IndexSnapshot snapshot() {
    final Map<Long, RowAcc> rows = new HashMap<>();
    final Set<Integer> tenants = new HashSet<>();
    final int reservedTenant = registry.reservedTenantId();
    final int tmn = registry.tmCount();
    for (int id = 0; id < tmn; id++) {
      final TenantModelState tm = registry.tmById(id);
      if (tm == null || tm.tenant == reservedTenant) {
        continue;
      }
      final StatsTable st = tm.stats;
      for (int i = 0; i < st.size(); i++) {
        final StatsRow r = st.row(i);
        final RowAcc acc =
            rows.computeIfAbsent(
                LongIdMap.pack(tm.tenant, r.replica()), k -> new RowAcc(tm.tenant, r.replica()));
        if (acc.stats == null || r.lastSeen() > acc.stats.lastSeen()) {
          acc.stats = r;
        }
        tenants.add(tm.tenant);
      }
    }
    storage
        .main()
        .forEachBlock(
            (key, keyLength, holders) -> {
              final Partition p = registry.partitionById(KeyBuffer.partitionOf(key));
              if (p == null || p.reserved()) {
                return;
              }
              tenants.add(p.tenant());
              for (int i = 0; i < holders.count(); i++) {
                final int replica = holders.replica(i);
                final RowAcc acc =
                    rows.computeIfAbsent(
                        LongIdMap.pack(p.tenant(), replica), k -> new RowAcc(p.tenant(), replica));
                acc.prefixCount++;
                acc.lastEventAt = Math.max(acc.lastEventAt, holders.lastSeen(i));
              }
            });
    final List<RowAcc> accs = new ArrayList<>(rows.values());
    accs.sort(
        (a, b) -> {
          final int c = dict.compare(a.tenant, b.tenant);
          return c != 0 ? c : dict.compare(a.replica, b.replica);
        });
    final List<IndexSnapshot.ReplicaRow> replicaRows = new ArrayList<>(accs.size());
    final Map<Integer, double[]> hit = new HashMap<>();
    for (RowAcc a : accs) {
      final StatsRow s = a.stats;
      replicaRows.add(
          new IndexSnapshot.ReplicaRow(
              dict.string(a.replica),
              dict.string(a.tenant),
              s == null ? 0 : s.cacheMemoryBytes(),
              s == null ? 0f : s.hitRate(),
              s == null ? 0f : s.pressure(),
              s == null ? 0 : s.lastSeen(),
              a.prefixCount,
              a.lastEventAt,
              s != null,
              s == null ? 0 : s.t2HitTokens(),
              s == null ? 0 : s.t2QueryTokens()));
      if (s != null) {
        final double[] sum = hit.computeIfAbsent(a.tenant, k -> new double[2]);
        sum[0] += s.hitRate();
        sum[1] += 1;
      }
    }
    final List<Integer> tenantIds = new ArrayList<>(tenants);
    tenantIds.sort(dict::compare);
    final List<IndexSnapshot.TenantRow> tenantRows = new ArrayList<>(tenantIds.size());
    long total = 0;
    for (int t : tenantIds) {
      final long entries = counts.tenantKeys(t);
      final double[] sum = hit.get(t);
      tenantRows.add(
          new IndexSnapshot.TenantRow(
              dict.string(t), entries, sum == null ? 0f : (float) (sum[0] / sum[1]), sum != null));
      total += entries;
    }
    return new IndexSnapshot(replicaRows, tenantRows, total, 0);
  }
}
