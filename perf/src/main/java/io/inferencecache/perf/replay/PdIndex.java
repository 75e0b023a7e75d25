package io.inferencecache.perf.replay;

import io.inferencecache.engine.IndexConfig;

/**
 * The index side of a P/D run (the index policies only): one {@link CacheIndex} in process behind a
 * {@link LookupRouterTarget}, fed with every simulated replica's reports, evictions and stats in
 * simulated time, asked for LookupRoute (pd-blind) and LookupPDRoute (pd-router). The replicas are
 * named {@code replay-c00-r000…}: prefill replicas first, then decode replicas.
 */
final class PdIndex implements AutoCloseable {
  static final String MODEL = "mooncake-pd";

  private final PdOptions o;
  private final LookupRouterTarget target;
  private final ReplayTarget.Hint hint = new ReplayTarget.Hint();
  private String lastReason = "";

  PdIndex(final PdOptions o, final SimClock clock) {
    this.o = o;
    final ReplayNames names = new ReplayNames(MODEL, 1, o.replicas());
    final IndexConfig config =
        new IndexConfig()
            .maxEntries(
                (long) o.prefillReplicas * o.prefillCapacity * 2
                    + (long) o.decodeReplicas * o.decodeCapacity * 2
                    + 65_536)
            .averageHashBytes(8)
            .averageHoldersPerKey(2.0)
            .defaultTtlNanos((long) (o.ttlMinutes * 60e9))
            .clock(clock);
    this.target = new LookupRouterTarget(config, names);
  }

  /** LookupRoute of {@code chain}: the first replica of the answer that is a prefill replica. */
  int topPrefill(final long[] chain) {
    target.lookup(chain, hint);
    lastReason = hint.reasonCode;
    for (int i = 0; i < hint.size; i++) {
      if (hint.replica[i] < o.prefillReplicas) {
        return hint.replica[i];
      }
    }
    return -1;
  }

  String lastReason() {
    return lastReason;
  }

  void report(final int replica, final long[] chain) {
    target.report(replica, chain);
  }

  void evict(final int replica, final long key) {
    target.evict(replica, key);
  }

  void stats(final int replica, final double pressure) {
    target.stats(replica, (float) pressure);
  }

  @Override
  public void close() {
    target.close();
  }
}
