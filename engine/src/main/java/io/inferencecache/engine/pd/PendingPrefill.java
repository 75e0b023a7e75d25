package io.inferencecache.engine.pd;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Per replica id: the uncached prompt tokens that P/D answers sent there to prefill since the
 * replica's stats were last reported. A replica's reported pressure counts requests, whatever their
 * size; this ledger is the work the router itself handed out since, so a replica just given a
 * 100,000-token prefill looks busy until its next report (which then includes that request). A new
 * report time starts the count afresh.
 *
 * <p>Lock-free; allocation-free once the arrays cover the replica ids (they grow only when a
 * replica id beyond them first appears). Concurrent adds for one replica across a report boundary
 * may lose one add (the count is an estimate, not an account).
 */
public final class PendingPrefill {
  /**
   * Per replica i: at 2i the stats report time the count belongs to, at 2i + 1 the tokens since.
   */
  private final AtomicReference<AtomicLongArray> ledger =
      new AtomicReference<>(new AtomicLongArray(2 * 256));

  /**
   * Adds {@code tokens} to prefill on {@code replica}, whose current stats were reported at {@code
   * reportedAt} (any fixed value, e.g. {@link Long#MIN_VALUE}, when it has none). No-op for a
   * negative id or a non-positive count.
   */
  public void add(final int replica, final long reportedAt, final long tokens) {
    if (replica < 0 || tokens <= 0) {
      return;
    }
    AtomicLongArray l = ledger.get();
    while (2 * replica + 1 >= l.length()) {
      ledger.compareAndSet(l, grown(l, replica));
      l = ledger.get();
    }
    if (l.get(2 * replica) != reportedAt) {
      l.set(2 * replica, reportedAt);
      l.set(2 * replica + 1, 0);
    }
    l.addAndGet(2 * replica + 1, tokens);
  }

  /** Tokens added for {@code replica} since the stats reported at {@code reportedAt}; else 0. */
  public long since(final int replica, final long reportedAt) {
    final AtomicLongArray l = ledger.get();
    if (replica < 0 || 2 * replica + 1 >= l.length() || l.get(2 * replica) != reportedAt) {
      return 0;
    }
    return l.get(2 * replica + 1);
  }

  /** A copy of {@code l} with room for {@code replica} (and twice the replicas, at least). */
  private static AtomicLongArray grown(final AtomicLongArray l, final int replica) {
    final AtomicLongArray g = new AtomicLongArray(Math.max(2 * (replica + 1), 2 * l.length()));
    for (int i = 0; i < l.length(); i++) {
      g.set(i, l.get(i));
    }
    return g;
  }
}
