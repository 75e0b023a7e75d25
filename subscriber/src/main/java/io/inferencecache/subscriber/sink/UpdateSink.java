package io.inferencecache.subscriber.sink;

import io.inferencecache.subscriber.decode.StatsSample;

/**
 * Where the subscriber delivers what it derived. The gRPC implementation ({@link GrpcUpdateSink})
 * maps each call 1:1: {@link #report} → one {@code CacheStateUpdate} (on one long-lived {@code
 * ReportCacheState} stream), {@link #prefixEvicted} → {@code PublishEvent(PREFIX_EVICTED)}, {@link
 * #allCleared} → {@code PublishEvent(ALL_CLEARED)}, {@link #stats} → a stats-only {@code
 * CacheStateUpdate}. The replica/model/tenant identity of the events and stats is the
 * implementation's to stamp.
 *
 * <p>Contract: every call is bounded in time by the implementation (upstream uses 5 s per RPC). A
 * call either delivers synchronously, reporting a failed delivery by throwing any {@link
 * RuntimeException} (callers log it and drop the data: soft state; the stats path counts it as a
 * non-delivery), or hands the data to a bounded buffer that delivers it asynchronously in call
 * order, counting what it has to drop and asking for a {@link #resync} when it did. Calls for the
 * event path ({@link #report}, {@link #prefixEvicted}, {@link #allCleared}, {@link #resync}) come
 * from one thread in order; {@link #stats} comes from another thread, so implementations must be
 * thread-safe.
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

  /**
   * Whether the sink lost part of the event path's output (a buffer overflow, a stream that broke
   * before the server confirmed it) and asks for the replica's whole state through {@link #resync}.
   * Polled by the event path once per window on its own thread. Default false.
   */
  default boolean resyncRequested() {
    return false;
  }

  /**
   * Replaces whatever the sink still holds for the event path by: clear the server's entries of
   * this replica ({@code ALL_CLEARED}), then report {@code state}, every prefix the replica holds
   * now (timestamp 0: server now). Called by the event path in answer to {@link
   * #resyncRequested()}. Default: ignored.
   */
  default void resync(SubscriberUpdate state) {}

  /**
   * Whether the sink can deliver now: connected to where it delivers (the subscriber's {@code
   * /readyz}). May start a connection attempt; never blocks. Any thread. Default true.
   */
  default boolean ready() {
    return true;
  }
}
