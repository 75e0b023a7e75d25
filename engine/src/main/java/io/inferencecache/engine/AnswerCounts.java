package io.inferencecache.engine;

import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.TenantModelState;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Per replica id: the answers that named the replica first since its stats row was last reported. A
 * new report starts the count afresh (the new stats include those requests). Shared by the
 * load-aware strategies of one {@link LookupRouter}; lock-free, allocation-free once the arrays
 * cover the replica ids (they grow only when a replica id beyond them first appears).
 */
final class AnswerCounts {
  /** The stats report time each count belongs to, and the answers since. */
  private record Counters(AtomicLongArray reported, AtomicIntegerArray answers) {
    Counters(final int n) {
      this(new AtomicLongArray(n), new AtomicIntegerArray(n));
    }
  }

  private final AtomicReference<Counters> counters = new AtomicReference<>(new Counters(256));

  /** Counts one answer whose first replica is {@code replica} (no-op for a negative id). */
  void answered(final TenantModelState tm, final int replica) {
    if (replica < 0) {
      return;
    }
    final long reported = reportedAt(tm, replica);
    Counters c = counters.get();
    while (replica >= c.answers.length()) {
      final Counters grown = new Counters(Math.max(replica + 1, c.answers.length() * 2));
      for (int i = 0; i < c.answers.length(); i++) {
        grown.reported.set(i, c.reported.get(i));
        grown.answers.set(i, c.answers.get(i));
      }
      counters.compareAndSet(c, grown);
      c = counters.get();
    }
    if (c.reported.get(replica) != reported) {
      c.reported.set(replica, reported);
      c.answers.set(replica, 0);
    }
    c.answers.incrementAndGet(replica);
  }

  /** Answers that named {@code replica} first since its current stats row was reported. */
  int since(final TenantModelState tm, final int replica) {
    return since(replica, reportedAt(tm, replica));
  }

  /** {@link #since(TenantModelState, int)} for a stats row reported at {@code reportedAt}. */
  int since(final int replica, final long reportedAt) {
    final Counters c = counters.get();
    if (replica < 0 || replica >= c.answers.length()) {
      return 0;
    }
    if (c.reported.get(replica) != reportedAt) {
      return 0; // reported since: the new stats include those answers
    }
    return c.answers.get(replica);
  }

  private static long reportedAt(final TenantModelState tm, final int replica) {
    final StatsRow row = tm == null ? null : tm.stats.get(replica);
    return row == null ? Long.MIN_VALUE : row.statsReported();
  }
}
