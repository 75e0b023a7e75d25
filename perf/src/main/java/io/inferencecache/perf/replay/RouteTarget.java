package io.inferencecache.perf.replay;

/**
 * What the replay drives: LookupRoute, ReportCacheState and PublishEvent(PREFIX_EVICTED), either
 * over gRPC ({@link GrpcTarget}) or straight on a {@link io.inferencecache.engine.CacheIndex}
 * ({@link EngineTarget}). Single-threaded: the replay loop is the only caller.
 *
 * <p>Reports and evictions are ordered by epochs: {@link #report} may be applied asynchronously,
 * {@link #evict} only queues, and {@link #sync} returns once every report and then every queued
 * eviction has been applied, in that order (so an eviction can never overtake the report that
 * stored the block, nor a later re-store of it).
 */
interface RouteTarget extends AutoCloseable {
  /** The scored replicas of one LookupRoute, best first, as replica indexes of the replay. */
  final class Hint {
    int size;
    int[] replica = new int[64];
    int[] matchedBlocks = new int[64];
    String reasonCode = "";

    void clear() {
      size = 0;
    }

    void add(final int r, final int blocks) {
      if (size == replica.length) {
        replica = java.util.Arrays.copyOf(replica, size * 2);
        matchedBlocks = java.util.Arrays.copyOf(matchedBlocks, size * 2);
      }
      replica[size] = r;
      matchedBlocks[size] = blocks;
      size++;
    }
  }

  /** LookupRoute of {@code chain} (block keys); fills {@code out}. */
  void lookup(long[] chain, Hint out) throws Exception;

  /** ReportCacheState: {@code chain} stored on replica {@code replica}. */
  void report(int replica, long[] chain) throws Exception;

  /** Queues PublishEvent(PREFIX_EVICTED) of block {@code key} on replica {@code replica}. */
  void evict(int replica, long key);

  /** Applies every report made so far, then every queued eviction; returns when both are done. */
  void sync() throws Exception;

  /**
   * ReportCacheState of replica {@code replica}'s stats alone (no prefixes): its pressure, as the
   * KV-event sidecar reports it. Ordered with {@link #report} (applied by the next {@link #sync}).
   */
  default void stats(final int replica, final float pressure) throws Exception {
    throw new UnsupportedOperationException(describe() + " does not report stats");
  }

  /**
   * Installs a {@code /policy} snapshot in the index's policy store (normalized, as the server's
   * {@code /policy} endpoint does).
   */
  default void policy(final io.inferencecache.engine.policy.PolicySnapshot snapshot) {
    throw new UnsupportedOperationException(describe() + " cannot take a policy");
  }

  /** Whether evictions are queued that the next {@link #sync} will apply. */
  default boolean evictionsPending() {
    return false;
  }

  /**
   * Allocated bytes of the index ({@code CacheIndex.footprintBytes()}: the off-heap map and
   * counters and the heap block directory; reported as {@code offHeapBytes}), or -1 when the index
   * is not in this JVM.
   */
  long offHeapBytes();

  /** Storage entries (holder-blocks) of the index, or -1 when not in this JVM. */
  long totalEntries();

  /** Distinct keys of the index, or -1 when not in this JVM. */
  long totalKeys();

  /**
   * The server's own LookupRoute handler latencies (ns, as the handler reports them to its metrics)
   * since the last {@link #resetServerLatency}, or null when the server is not in this JVM.
   */
  default org.HdrHistogram.Histogram serverLatency() {
    return null;
  }

  /** Starts {@link #serverLatency} afresh (at the end of the warm-up). */
  default void resetServerLatency() {}

  /** Figures of the target's own (replication lag, digests), or null. Called after the run. */
  default java.util.Map<String, Object> figures() {
    return null;
  }

  /** Where the calls go, for the report. */
  String describe();

  @Override
  void close();
}
