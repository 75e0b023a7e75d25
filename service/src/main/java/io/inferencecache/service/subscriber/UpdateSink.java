package io.inferencecache.service.subscriber;

/**
 * Where the subscriber delivers what it derived. A gRPC implementation maps each call 1:1: {@link
 * #report} → one {@code CacheStateUpdate} on a fresh {@code ReportCacheState} stream, {@link
 * #prefixEvicted} → {@code PublishEvent(PREFIX_EVICTED)}, {@link #allCleared} → {@code
 * PublishEvent(ALL_CLEARED)}, {@link #stats} → a stats-only {@code CacheStateUpdate}. The
 * replica/model/tenant identity of the events and stats is the implementation's to stamp.
 *
 * <p>Contract: every call is synchronous (returns once delivered or failed) and bounded in time by
 * the implementation (upstream uses 5 s per RPC). A failed delivery is reported by throwing any
 * {@link RuntimeException}; callers log it and drop the data (soft state), and the stats path
 * counts it as a non-delivery. Calls for the event path ({@link #report}, {@link #prefixEvicted},
 * {@link #allCleared}) come from one thread in order; {@link #stats} comes from another thread, so
 * implementations must be thread-safe.
 */
public interface UpdateSink {
  /** Delivers a batch of prefix additions (tier T1), or T2 downgrades in L2 mode. */
  void report(SubscriberUpdate update);

  /**
   * The engine evicted a prefix (single-tier mode).
   *
   * @param prefixHash the 8-byte big-endian prefix fingerprint (the callee may keep it)
   * @param adapterId the adapter partition to narrow the eviction to; {@code ""} = base model
   * @param timestampMicros Unix microseconds of the engine batch; 0 = server now
   */
  void prefixEvicted(byte[] prefixHash, String adapterId, long timestampMicros);

  /**
   * Every prefix of this replica is gone: the engine cleared its cache, or the subscriber lost
   * track of the stream (sequence gap or engine restart).
   *
   * @param timestampMicros Unix microseconds of the engine batch; 0 = server now
   */
  void allCleared(long timestampMicros);

  /**
   * A load/cache stats sample.
   *
   * @param timestampMicros Unix microseconds of the scrape
   */
  void stats(StatsSample sample, long timestampMicros);
}
