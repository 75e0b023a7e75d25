package io.inferencecache.engine;

import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.StatsTable;
import io.inferencecache.engine.internal.TenantModelState;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.EpochNanoClock;

/**
 * TTL expiry (docs/behaviour.md#eviction-ttl) as an Agrona {@link Agent}: every {@code
 * sweepInterval} (measured on the monotonic {@link System#nanoTime()} clock, from the end of one
 * pass to the start of the next) one pass removes every storage entry and stats row older than its
 * tenant's TTL by the index's clock. A pass takes the writer lock per Chronicle segment and
 * releases it in between, so ingest is never stalled for a whole pass (engine/docs/design.md §3).
 *
 * <p><b>Threads.</b> {@link #doWork} runs on the sweeper's {@code AgentRunner} thread; {@link
 * #sweep} may also be called by any thread (it takes the writer lock itself).
 */
final class TtlSweeper implements Agent {
  private final EpochNanoClock clock;
  private final long intervalNanos;
  private final LfuCounters lfuCounters;
  private final PartitionRegistry registry;
  private final SecondaryCounts counts;
  private final IndexStorage storage;
  private final IndexChanges changes;
  private final ReentrantLock writeLock;
  private final BooleanSupplier closed;
  private final EngineState state;
  private long nextPassAt;

  /**
   * A sweeper of {@code state}'s entries that reports through {@code changes} and takes {@code
   * writeLock} per segment; a pass stops as soon as {@code closed} says so.
   */
  TtlSweeper(
      final EngineState state,
      final IndexChanges changes,
      final ReentrantLock writeLock,
      final BooleanSupplier closed) {
    this.state = state;
    this.clock = state.clock;
    this.intervalNanos = state.config.sweepIntervalNanos();
    this.lfuCounters = state.lfuCounters;
    this.registry = state.registry;
    this.counts = state.counts;
    this.storage = state.storage;
    this.changes = changes;
    this.writeLock = writeLock;
    this.closed = closed;
  }

  @Override
  public String roleName() {
    return "index-ttl-sweeper";
  }

  @Override
  public void onStart() {
    nextPassAt = System.nanoTime() + intervalNanos;
  }

  /** Runs a pass when one is due; returns 1 after a pass, 0 while waiting. */
  @Override
  public int doWork() {
    if (System.nanoTime() - nextPassAt < 0) {
      return 0;
    }
    sweep();
    nextPassAt = System.nanoTime() + intervalNanos;
    return 1;
  }

  /** One pass; returns the storage entries removed (0 once the index is closed). */
  long sweep() {
    final long[] removedLru = new long[1];
    final long[] removedLfu = new long[1];
    final long now = clock.nanoTime();
    final IndexListener listener = changes.listener();
    final RunStore.CellFilter expired =
        (pid, holder, lastSeen) -> {
          final Partition p = registry.partitionById(pid);
          return p != null && now - lastSeen >= state.ttlNanosOf(p.tenant());
        };
    final RunStore.RemovalSink sink =
        (key, keyLength, holder, slot, keyGone) -> {
          final Partition p = registry.partitionById(KeyBuffer.partitionOf(key));
          counts.holderRemoved(p, holder);
          storage.arena().release(slot);
          if (listener.wantsChanges()) {
            changes.reportRemoved(
                p, IndexChanges.hashOf(key, keyLength), holder, IndexListener.REMOVED_BY_TTL, now);
          }
          if (lfuCounters.lfu(p.tenant())) {
            removedLfu[0]++;
          } else {
            removedLru[0]++;
          }
          if (keyGone) {
            counts.keyRemoved(p);
          }
        };
    for (int which = 0; which < 2; which++) {
      final RunStore store;
      final int segments;
      writeLock.lock();
      try {
        if (closed.getAsBoolean()) {
          return 0;
        }
        store = which == 0 ? storage.main() : storage.reserved();
        segments = store.segments();
      } finally {
        writeLock.unlock();
      }
      for (int s = 0; s < segments; s++) {
        writeLock.lock();
        try {
          if (closed.getAsBoolean()) {
            return removedLru[0] + removedLfu[0];
          }
          store.removeCells(s, expired, sink);
        } finally {
          writeLock.unlock();
        }
      }
    }
    writeLock.lock();
    try {
      if (closed.getAsBoolean()) {
        return removedLru[0] + removedLfu[0];
      }
      expireStatsRows(now);
      if (removedLru[0] > 0) {
        listener.onEvictions("lru", "ttl", removedLru[0]);
      }
      if (removedLfu[0] > 0) {
        listener.onEvictions("lfu", "ttl", removedLfu[0]);
      }
      counts.flushModelGauges(listener);
    } finally {
      writeLock.unlock();
    }
    return removedLru[0] + removedLfu[0];
  }

  private void expireStatsRows(final long now) {
    final int n = registry.tmCount();
    for (int id = 0; id < n; id++) {
      final TenantModelState tm = registry.tmById(id);
      if (tm == null || tm.stats.size() == 0) {
        continue;
      }
      final long ttl = state.ttlNanosOf(tm.tenant);
      StatsTable t = tm.stats;
      for (int i = t.size() - 1; i >= 0; i--) {
        final StatsRow row = t.row(i);
        if (now - row.lastSeen() >= ttl) {
          t = t.without(row.replica());
        }
      }
      tm.stats = t;
    }
  }
}
