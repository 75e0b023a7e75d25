package io.inferencecache.engine;

import io.inferencecache.engine.internal.CounterArena;
import io.inferencecache.engine.internal.Partition;
import java.util.Arrays;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;
import org.agrona.concurrent.Agent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which tenants' storage entries carry an LFU counter, and so when a tenant's LFU policy takes
 * effect (engine/docs/design.md §3, "LFU counters"). Entries of tenants that evict by LRU have no
 * counter — they would never be credited — which saves 8 bytes per holder-block. A tenant whose
 * policy turns to LFU has every entry it already holds given a counter (zero count, as its counter
 * had under LRU) before the index treats it as LFU; until then it is evicted, swept and credited as
 * LRU, as if the policy had arrived a moment later. From then on every new entry of the tenant gets
 * a counter whatever its policy, so switching back and forth keeps counts exactly as when every
 * entry had one.
 *
 * <p>It is the index's view of the tenants' policies: TTL and quota as configured, {@link #lfu}
 * true once the tenant's counters are in place. The tenant sets are copy-on-write bit sets read
 * without locks; the writer (under the index's lock) changes them.
 */
final class LfuCounters implements TenantPolicies {
  private static final Logger LOG = LoggerFactory.getLogger(CacheIndex.class);
  private static final long RETRY_AFTER_FAILURE_NS = 10_000_000_000L;

  private final TenantPolicies policies;
  private final PartitionRegistry registry;
  private final SecondaryCounts counts;
  private final IndexStorage storage;
  // Tenants whose new entries get a counter whatever their policy says now.
  private volatile long[] counted = new long[0];
  // Tenants every entry of which has a counter (a subset of counted).
  private volatile long[] ready = new long[0];

  LfuCounters(
      final TenantPolicies policies,
      final PartitionRegistry registry,
      final SecondaryCounts counts,
      final IndexStorage storage) {
    this.policies = policies;
    this.registry = registry;
    this.counts = counts;
    this.storage = storage;
  }

  @Override
  public long ttlNanos(final int tenantId) {
    return policies.ttlNanos(tenantId);
  }

  /** The tenant's policy says LFU and its entries have their counters. Any thread. */
  @Override
  public boolean lfu(final int tenantId) {
    return ready(tenantId) && policies.lfu(tenantId);
  }

  @Override
  public long maxIndexEntries(final int tenantId) {
    return policies.maxIndexEntries(tenantId);
  }

  /** Whether every entry of the tenant has a counter. Any thread, allocation-free. */
  boolean ready(final int tenantId) {
    return has(ready, tenantId);
  }

  /**
   * Before ingesting the tenant's entries: a tenant whose policy turned to LFU is LFU at once when
   * none of the index's entries lacks a counter (or the tenant has none yet); otherwise {@link
   * #sync} gives them counters first. Returns whether the tenant's new entries get a counter (its
   * policy is resolved once). Writer only.
   */
  boolean prepare(final int tenantId) {
    if (tenantId < 0) {
      return false;
    }
    final boolean lfu = policies.lfu(tenantId);
    if (lfu && !has(ready, tenantId)) {
      final CounterArena arena = storage.arena();
      if (counts.tenantKeys(tenantId) == 0 || arena.counters() == arena.used()) {
        counted = with(counted, tenantId);
        ready = with(ready, tenantId);
      }
    }
    return lfu || has(counted, tenantId);
  }

  /** Whether some tenant with entries has an LFU policy and no counters yet. Any thread. */
  boolean pending() {
    final int n = registry.partitionCount();
    for (int i = 0; i < n; i++) {
      final Partition p = registry.partitionById(i);
      if (p != null && !has(ready, p.tenant()) && policies.lfu(p.tenant())) {
        return true;
      }
    }
    return false;
  }

  /**
   * Gives a counter to every entry without one of the tenants whose policy turned to LFU (one pass
   * over the storage, only if one of them holds entries and some entry lacks a counter), then
   * treats them as LFU. Writer only, under the index's lock for the whole pass: a split run moving
   * a block to a segment already passed cannot hide it. Returns the counters given; throws {@link
   * IllegalStateException} when the counters cannot grow (the tenants stay LRU, and a later call
   * gives the rest).
   */
  long sync() {
    long[] turned = new long[0];
    boolean holding = false;
    final int n = registry.partitionCount();
    for (int i = 0; i < n; i++) {
      final Partition p = registry.partitionById(i);
      if (p != null && !has(ready, p.tenant()) && policies.lfu(p.tenant())) {
        turned = with(turned, p.tenant());
        holding |= counts.tenantKeys(p.tenant()) > 0;
      }
    }
    if (turned.length == 0) {
      return 0;
    }
    long given = 0;
    final CounterArena arena = storage.arena();
    if (holding && arena.counters() < arena.used()) {
      final long[] selected = turned;
      final IntPredicate partition =
          pid -> {
            final Partition p = registry.partitionById(pid);
            return p != null && has(selected, p.tenant());
          };
      given =
          storage.main().assignCounters(partition, arena)
              + storage.reserved().assignCounters(partition, arena);
    }
    // Counted and ready together, after the pass (the lock is held throughout: no entry was stored
    // in between). A pass that failed leaves both as they were.
    long[] c = counted;
    long[] r = ready;
    for (int w = 0; w < turned.length; w++) {
      for (long bits = turned[w]; bits != 0; bits &= bits - 1) {
        c = with(c, w * 64 + Long.numberOfTrailingZeros(bits));
        r = with(r, w * 64 + Long.numberOfTrailingZeros(bits));
      }
    }
    counted = c;
    ready = r;
    return given;
  }

  private static boolean has(final long[] bits, final int id) {
    final int w = id >>> 6;
    return id >= 0 && w < bits.length && (bits[w] & (1L << id)) != 0;
  }

  private static long[] with(final long[] bits, final int id) {
    final int w = id >>> 6;
    final long[] next = Arrays.copyOf(bits, Math.max(bits.length, w + 1));
    next[w] |= 1L << id;
    return next;
  }

  /**
   * {@link #sync}, logging a failure (no room for counters, or a run it could not read) instead of
   * throwing: the tenants then stay LRU until a later call. Writer only; false when it failed.
   */
  boolean trySync() {
    try {
      sync();
      return true;
    } catch (RuntimeException e) {
      LOG.error(
          "event=lfu_counters_failed reason=\"{}\": tenants switched to LFU stay LRU;"
              + " retried within 10 s",
          String.valueOf(e),
          e);
      return false;
    }
  }

  /**
   * The background duty that notices a policy turned to LFU: whenever {@link #pending}, {@link
   * #sync} under {@code lock}. Runs beside the TTL sweeper on its thread (every ≤ 50 ms).
   */
  Agent agent(final ReentrantLock lock, final BooleanSupplier closed) {
    return new Agent() {
      private long retryAt = System.nanoTime();

      @Override
      public int doWork() {
        if (System.nanoTime() - retryAt < 0 || !pending()) {
          return 0;
        }
        lock.lock();
        try {
          if (closed.getAsBoolean()) {
            return 0;
          }
          if (trySync()) {
            return 1;
          }
          retryAt = System.nanoTime() + RETRY_AFTER_FAILURE_NS;
          return 0;
        } finally {
          lock.unlock();
        }
      }

      @Override
      public String roleName() {
        return "index-lfu-counters";
      }
    };
  }
}
