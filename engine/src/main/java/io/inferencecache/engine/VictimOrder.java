package io.inferencecache.engine;

import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.StringDictionary;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;

/**
 * The one definition of the order in which the index gives up entries
 * (docs/behaviour.md#eviction-cap), and the bounded selection of the first {@code n} of them.
 *
 * <ul>
 *   <li>{@link #CAP} (global cap, and making room in a full storage): effective count (the LFU
 *       access count for LFU tenants, 0 for LRU), then {@code lastSeen}, then the key {@code
 *       (tenant, model, scheme, adapter, hash)} by unsigned bytes, then the replica name.
 *   <li>{@link #QUOTA} (a tenant over its quota; whole keys go): the key's newest holder's {@code
 *       lastSeen}, then the key.
 * </ul>
 *
 * Partitions and names are compared by their rank in unsigned UTF-8 order, computed once per pass
 * ({@link #partitionRanks}, {@link #nameRanks}). Smaller means evicted first.
 */
final class VictimOrder {
  private VictimOrder() {}

  /** A candidate: an entry (or, for {@link #QUOTA}, a whole key) and its ranks. */
  static final class Victim {
    long count;
    long lastSeen;
    int partitionRank;
    byte[] key;
    int keyLength;
    int replicaRank;
    int replica;
    int partition;

    /** A copy that owns its key bytes (the probe's key is the scan's buffer). */
    Victim copy() {
      final Victim v = new Victim();
      v.count = count;
      v.lastSeen = lastSeen;
      v.partitionRank = partitionRank;
      v.key = Arrays.copyOf(key, keyLength);
      v.keyLength = keyLength;
      v.replicaRank = replicaRank;
      v.replica = replica;
      v.partition = partition;
      return v;
    }
  }

  /** The global cap's order of entries. */
  static final Comparator<Victim> CAP = VictimOrder::compareCap;

  /** A tenant quota's order of whole keys. */
  static final Comparator<Victim> QUOTA = VictimOrder::compareQuota;

  private static int compareCap(final Victim x, final Victim y) {
    int c = Long.compare(x.count, y.count);
    if (c == 0) {
      c = compareQuota(x, y);
    }
    if (c == 0) {
      c = Integer.compare(x.replicaRank, y.replicaRank);
    }
    return c;
  }

  private static int compareQuota(final Victim x, final Victim y) {
    int c = Long.compare(x.lastSeen, y.lastSeen);
    if (c == 0) {
      c = Integer.compare(x.partitionRank, y.partitionRank);
    }
    if (c == 0) {
      c =
          Arrays.compareUnsigned(
              x.key,
              HolderLayout.KEY_PARTITION_BYTES,
              x.keyLength,
              y.key,
              HolderLayout.KEY_PARTITION_BYTES,
              y.keyLength);
    }
    return c;
  }

  /** Rank of every partition id by (tenant, model, scheme, adapter) in name order. */
  static int[] partitionRanks(final PartitionRegistry registry) {
    final StringDictionary dict = registry.dictionary();
    final int n = registry.partitionCount();
    final Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        (a, b) -> {
          final Partition x = registry.partitionById(a);
          final Partition y = registry.partitionById(b);
          int c = dict.compare(x.tenant(), y.tenant());
          if (c == 0) {
            c = dict.compare(x.model(), y.model());
          }
          if (c == 0) {
            c = dict.compare(x.scheme(), y.scheme());
          }
          if (c == 0) {
            c = dict.compare(x.adapter(), y.adapter());
          }
          return c;
        });
    return ranks(order);
  }

  /** Rank of every dictionary id in name order (replica names). */
  static int[] nameRanks(final StringDictionary dict) {
    final int n = dict.size();
    final Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, dict::compare);
    return ranks(order);
  }

  private static int[] ranks(final Integer[] order) {
    final int[] rank = new int[order.length];
    for (int i = 0; i < order.length; i++) {
      rank[order[i]] = i;
    }
    return rank;
  }

  /**
   * The first {@code need} candidates offered, in {@code order}: a bounded max-heap (the worst kept
   * candidate on top), so a pass over the whole index keeps {@code need} candidates, not all.
   */
  static final class Selection {
    private final int need;
    private final Comparator<Victim> order;
    private final PriorityQueue<Victim> heap;

    Selection(final int need, final Comparator<Victim> order) {
      this.need = need;
      this.order = order;
      this.heap = new PriorityQueue<>(Math.max(1, Math.min(need, 1 << 16)), order.reversed());
    }

    /** Keeps a copy of {@code probe} if it is among the first {@code need} so far. */
    void offer(final Victim probe) {
      if (heap.size() >= need) {
        if (order.compare(probe, heap.peek()) >= 0) {
          return;
        }
        heap.poll();
      }
      heap.add(probe.copy());
    }

    /** The selected candidates (in no particular order). */
    List<Victim> victims() {
      return new ArrayList<>(heap);
    }
  }
}
