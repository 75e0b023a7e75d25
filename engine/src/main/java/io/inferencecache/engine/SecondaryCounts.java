package io.inferencecache.engine;

import io.inferencecache.engine.internal.Counter;
import io.inferencecache.engine.internal.CounterArena;
import io.inferencecache.engine.internal.IdArray;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.LongIdMap;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.ScopeState;
import io.inferencecache.engine.internal.StringDictionary;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntPredicate;
import org.agrona.collections.IntHashSet;

/**
 * The secondary counts of docs/behaviour.md#index-model: keys per tenant, per (tenant, model) and
 * per model, storage entries per replica per scope, the totals, the reserved tenant's entries and
 * the ingest counters (rejected hashes, entries dropped for want of room).
 *
 * <p><b>Threads.</b> Written by the index writer only (plain read, volatile write: no lost update
 * with one writer); read by anyone. At quiescence every count equals a recount of the storage
 * ({@link #verify}).
 */
final class SecondaryCounts {
  private final PartitionRegistry registry;
  private final StringDictionary dict;
  private final IdArray<Counter> tenantKeys = new IdArray<>();
  private final IdArray<Counter> modelKeys = new IdArray<>();
  private final Counter totalEntries = new Counter();
  private final Counter reservedEntries = new Counter();
  private final Counter totalKeys = new Counter();
  private final Counter rejectedHashes = new Counter();
  private final Counter droppedFull = new Counter();
  private final IntHashSet dirtyModels = new IntHashSet();

  SecondaryCounts(final PartitionRegistry registry) {
    this.registry = registry;
    this.dict = registry.dictionary();
  }

  private static Counter counter(final IdArray<Counter> arr, final int id) {
    Counter c = arr.get(id);
    if (c == null) {
      c = new Counter();
      arr.set(id, c);
    }
    return c;
  }

  void keyAdded(final Partition p) {
    totalKeys.add(1);
    counter(tenantKeys, p.tenant()).add(1);
    registry.tmById(p.tm()).prefixes += 1;
    if (!p.reserved()) {
      counter(modelKeys, p.model()).add(1);
      dirtyModels.add(p.model());
    }
  }

  void keyRemoved(final Partition p) {
    totalKeys.add(-1);
    counter(tenantKeys, p.tenant()).add(-1);
    registry.tmById(p.tm()).prefixes -= 1;
    if (!p.reserved()) {
      counter(modelKeys, p.model()).add(-1);
      dirtyModels.add(p.model());
    }
  }

  void holderAdded(final Partition p, final int replica) {
    totalEntries.add(1);
    if (p.reserved()) {
      reservedEntries.add(1);
    }
    registry.scopeById(p.scope()).increment(replica, dict);
  }

  void holderRemoved(final Partition p, final int replica) {
    totalEntries.add(-1);
    if (p.reserved()) {
      reservedEntries.add(-1);
    }
    registry.scopeById(p.scope()).decrement(replica, dict);
  }

  void hashRejected() {
    rejectedHashes.add(1);
  }

  void entryDroppedFull() {
    droppedFull.add(1);
  }

  /** Reports the key count of every model whose count changed since the last call. */
  void flushModelGauges(final IndexListener listener) {
    if (dirtyModels.isEmpty()) {
      return;
    }
    final IntHashSet.IntIterator it = dirtyModels.iterator();
    while (it.hasNext()) {
      final int model = it.nextValue();
      listener.onIndexEntries(dict.string(model), counter(modelKeys, model).get());
    }
    dirtyModels.clear();
  }

  long totalEntries() {
    return totalEntries.get();
  }

  long reservedEntries() {
    return reservedEntries.get();
  }

  /** Storage entries outside the reserved tenant: what the global cap limits. */
  long effectiveEntries() {
    return totalEntries.get() - reservedEntries.get();
  }

  long totalKeys() {
    return totalKeys.get();
  }

  long rejectedHashes() {
    return rejectedHashes.get();
  }

  long droppedFull() {
    return droppedFull.get();
  }

  long tenantKeys(final int tenant) {
    final Counter c = tenant < 0 ? null : tenantKeys.get(tenant);
    return c == null ? 0 : c.get();
  }

  long modelKeys(final int model) {
    final Counter c = model < 0 ? null : modelKeys.get(model);
    return c == null ? 0 : c.get();
  }

  /**
   * Recounts every count from the storage and compares; O(entries), writer only. Returns a
   * description of each mismatch, empty when consistent.
   */
  List<String> verify(
      final RunStore main,
      final RunStore reserved,
      final CounterArena arena,
      final IntPredicate countedTenant) {
    final long[] entries = new long[2];
    final long[] counters = new long[2]; // with a counter; without one in a counted tenant
    final List<String> problems = new ArrayList<>();
    final long[] keys = new long[1];
    final Map<Integer, Long> perTenant = new HashMap<>();
    final Map<Long, Long> perScopeReplica = new HashMap<>();
    final RunStore.BlockVisitor v =
        (key, keyLength, holders) -> {
          final Partition p = registry.partitionById(KeyBuffer.partitionOf(key));
          keys[0]++;
          entries[p.reserved() ? 1 : 0] += holders.count();
          perTenant.merge(p.tenant(), 1L, Long::sum);
          for (int i = 0; i < holders.count(); i++) {
            perScopeReplica.merge(LongIdMap.pack(p.scope(), holders.replica(i)), 1L, Long::sum);
            if (holders.slot(i) != CounterArena.NO_COUNTER) {
              counters[0]++;
            } else if (countedTenant.test(p.tenant())) {
              counters[1]++;
            }
          }
        };
    main.forEachBlock(v);
    reserved.forEachBlock(v);
    if (keys[0] != totalKeys.get()) {
      problems.add("totalKeys " + totalKeys.get() + " != recount " + keys[0]);
    }
    if (entries[0] + entries[1] != totalEntries.get()) {
      problems.add(
          "totalEntries " + totalEntries.get() + " != recount " + (entries[0] + entries[1]));
    }
    if (entries[1] != reservedEntries.get()) {
      problems.add("reservedEntries " + reservedEntries.get() + " != recount " + entries[1]);
    }
    for (int t = 0; t < dict.size(); t++) {
      final long want = perTenant.getOrDefault(t, 0L);
      if (tenantKeys(t) != want) {
        problems.add("tenant " + dict.string(t) + " keys " + tenantKeys(t) + " != " + want);
      }
    }
    for (int s = 0; s < registry.scopeCount(); s++) {
      final ScopeState sc = registry.scopeById(s);
      for (int r = 0; r < dict.size(); r++) {
        final long want = perScopeReplica.getOrDefault(LongIdMap.pack(s, r), 0L);
        if (sc.count(r) != want || sc.serves(r) != (want > 0)) {
          problems.add(
              "scope " + s + " replica " + dict.string(r) + " " + sc.count(r) + " != " + want);
        }
      }
    }
    if (arena.used() != totalEntries.get()) {
      problems.add("storage budget in use " + arena.used() + " != entries " + totalEntries.get());
    }
    if (arena.counters() != counters[0]) {
      problems.add("LFU counters in use " + arena.counters() + " != recount " + counters[0]);
    }
    if (counters[1] > 0) {
      problems.add(counters[1] + " entries of LFU-ready tenants have no counter");
    }
    return problems;
  }
}
