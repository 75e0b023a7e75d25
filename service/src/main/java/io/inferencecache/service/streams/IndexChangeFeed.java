package io.inferencecache.service.streams;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.IndexListener;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.Metric;
import io.inferencecache.proto.v1alpha1.StreamEventsRequest;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * StreamCacheEvents and StreamMetrics: every index change as a {@code CacheEvent}, and samples of a
 * {@link MetricSource} at a fixed cadence. Register it as (part of) the index's {@link
 * IndexListener} and pass it to the service as its {@link StreamingFeeds}.
 *
 * <h2>Events</h2>
 *
 * Each change the index reports becomes one event: a stored entry (new or refreshed) {@code
 * PREFIX_ADDED}, a removed one (event, TTL, cap or quota) {@code PREFIX_EVICTED}, a stats row
 * stored or refreshed {@code REPLICA_UPDATED}, a replica cleared {@code ALL_CLEARED}; {@code
 * adapter_id} is set on PREFIX_ADDED and PREFIX_EVICTED, {@code timestamp_us} is the change's time.
 * A subscriber receives the events matching its request's {@code model_id} and {@code tenant_id}
 * (empty = any) and {@code types} (empty = all), in the order the index applied them (so in order
 * per replica). The reserved probe tenant is never streamed.
 *
 * <h2>Flow control and slow subscribers</h2>
 *
 * The index's writer thread only offers each event to the matching subscribers' bounded buffers
 * ({@link Builder#eventBuffer}, default {@value #EVENT_BUFFER_DEFAULT} events, rounded up to a
 * power of two) and never blocks; a builder of the event is made only when someone matches. One
 * sender thread drains each buffer into its stream while gRPC says the stream is ready ({@code
 * isReady}, resumed by the on-ready handler). A subscriber whose buffer overflows is cut off with
 * {@code RESOURCE_EXHAUSTED} (the events it missed are gone; it must resubscribe and resynchronise)
 * and counted in {@link #subscribersCutOff()}; ingest never waits for it.
 *
 * <h2>Metrics</h2>
 *
 * A StreamMetrics subscriber gets every sample of the source selected by its {@code names} (empty =
 * all; see {@link MetricSample#selectedBy}) at once and then every {@link Builder#metricsInterval}
 * (default 1 s), all samples of one tick with the same {@code timestamp_us}. A tick that finds the
 * stream not ready is skipped ({@link #metricTicksSkipped()}): metrics are snapshots, the next tick
 * supersedes it.
 *
 * <p>Cancellation by the client unsubscribes at once. {@link #close()} ends every stream with
 * {@code UNAVAILABLE} and stops the sender thread; call it before closing the gRPC server so that
 * its drain does not wait for these never-ending streams.
 *
 * <p>The two halves are {@link EventFeed} and {@link MetricFeed}; this class owns their shared
 * sender thread, the lifecycle and the settings. Thread-safe.
 */
public final class IndexChangeFeed implements StreamingFeeds, IndexListener, AutoCloseable {
  /**
   * Default per-subscriber event buffer: room for one full subscriber flush (4096 entries, one
   * event each) several times over, since one ingest offers all its events in one burst.
   */
  public static final int EVENT_BUFFER_DEFAULT = 16_384;

  /** Largest per-subscriber event buffer. */
  public static final int EVENT_BUFFER_MAX = 1 << 24;

  /** Default StreamMetrics cadence. */
  public static final Duration METRICS_INTERVAL_DEFAULT = Duration.ofSeconds(1);

  private final ScheduledExecutorService sender;
  private final EventFeed events;
  private final MetricFeed metrics;
  private final Object closeLock = new Object();
  private boolean closed; // under closeLock

  private IndexChangeFeed(final Builder b) {
    this.sender =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              final Thread t = new Thread(r, "inferencecache-feed-sender");
              t.setDaemon(true);
              return t;
            });
    this.events = new EventFeed(b.eventBuffer, sender);
    this.metrics =
        new MetricFeed(b.metricsInterval.toNanos(), b.metricSource, b.wallClockMicros, sender);
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  // ---------------------------------------------------------------------------------------------
  // Index side (writer thread): filter, build once, offer; never block

  @Override
  public boolean wantsChanges() {
    return events.wanted();
  }

  @Override
  public void onPrefixStored(
      final String tenant,
      final String model,
      final String replica,
      final String scheme,
      final String adapter,
      final byte[] hash,
      final int tokenCount,
      final long timestampNanos) {
    events.publish(
        CacheEvent.Type.PREFIX_ADDED, tenant, model, replica, adapter, hash, timestampNanos);
  }

  @Override
  public void onPrefixRemoved(
      final String tenant,
      final String model,
      final String replica,
      final String scheme,
      final String adapter,
      final byte[] hash,
      final String reason,
      final long timestampNanos) {
    events.publish(
        CacheEvent.Type.PREFIX_EVICTED, tenant, model, replica, adapter, hash, timestampNanos);
  }

  @Override
  public void onReplicaUpdated(
      final String tenant, final String model, final String replica, final long timestampNanos) {
    events.publish(
        CacheEvent.Type.REPLICA_UPDATED, tenant, model, replica, "", null, timestampNanos);
  }

  @Override
  public void onAllCleared(
      final String tenant, final String model, final String replica, final long timestampNanos) {
    events.publish(CacheEvent.Type.ALL_CLEARED, tenant, model, replica, "", null, timestampNanos);
  }

  // ---------------------------------------------------------------------------------------------
  // The two streams

  @Override
  public void subscribeEvents(
      final StreamEventsRequest request, final StreamObserver<CacheEvent> out) {
    events.subscribe(request, out);
  }

  @Override
  public void subscribeMetrics(
      final StreamMetricsRequest request, final StreamObserver<Metric> out) {
    metrics.subscribe(request, out);
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle and counters

  /**
   * Ends every stream with {@code UNAVAILABLE} and stops the sender thread (waiting up to 5 s for
   * it). New subscriptions are refused. Idempotent.
   */
  @Override
  public void close() {
    synchronized (closeLock) {
      if (closed) {
        return;
      }
      closed = true;
    }
    final Status shutdown = Status.UNAVAILABLE.withDescription("server shutting down");
    events.close(shutdown);
    metrics.close(shutdown);
    sender.shutdown();
    try {
      if (!sender.awaitTermination(5, TimeUnit.SECONDS)) {
        sender.shutdownNow();
      }
    } catch (InterruptedException e) {
      sender.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  /** Current StreamCacheEvents subscribers. */
  public int eventSubscribers() {
    return events.subscribers();
  }

  /** Current StreamMetrics subscribers. */
  public int metricSubscribers() {
    return metrics.subscribers();
  }

  /** Events offered to subscriber buffers (one per matching subscriber). */
  public long eventsOffered() {
    return events.offered();
  }

  /** Events written to subscriber streams. */
  public long eventsSent() {
    return events.sent();
  }

  /** Subscribers cut off with RESOURCE_EXHAUSTED because their buffer overflowed. */
  public long subscribersCutOff() {
    return events.cutOff();
  }

  /** Metric samples written to subscriber streams. */
  public long metricsSent() {
    return metrics.sent();
  }

  /** Metric ticks skipped because the subscriber's stream was not ready. */
  public long metricTicksSkipped() {
    return metrics.ticksSkipped();
  }

  /** Settings of an {@link IndexChangeFeed}; {@link #build()} validates them. Not thread-safe. */
  public static final class Builder {
    private int eventBuffer = EVENT_BUFFER_DEFAULT;
    private Duration metricsInterval = METRICS_INTERVAL_DEFAULT;
    private MetricSource metricSource = MetricSource.NONE;
    private LongSupplier wallClockMicros =
        () -> TimeUnit.MILLISECONDS.toMicros(System.currentTimeMillis());

    private Builder() {}

    /** Per-subscriber event buffer, 1..{@value #EVENT_BUFFER_MAX} (rounded up to a power of 2). */
    public Builder eventBuffer(final int events) {
      eventBuffer = events;
      return this;
    }

    /** StreamMetrics cadence, positive. */
    public Builder metricsInterval(final Duration interval) {
      metricsInterval = interval;
      return this;
    }

    /** Where StreamMetrics samples come from (default: none). */
    public Builder metricSource(final MetricSource source) {
      metricSource = source;
      return this;
    }

    /** Unix microseconds for metric timestamps (tests). */
    public Builder wallClockMicros(final LongSupplier clock) {
      wallClockMicros = clock;
      return this;
    }

    /**
     * Validates and starts the sender thread.
     *
     * @throws IllegalArgumentException naming the bad setting
     */
    public IndexChangeFeed build() {
      if (eventBuffer < 1 || eventBuffer > EVENT_BUFFER_MAX) {
        throw new IllegalArgumentException(
            "feed.eventBuffer must be between 1 and " + EVENT_BUFFER_MAX + ": " + eventBuffer);
      }
      if (metricsInterval == null || metricsInterval.isNegative() || metricsInterval.isZero()) {
        throw new IllegalArgumentException(
            "feed.metricsInterval must be positive: " + metricsInterval);
      }
      Objects.requireNonNull(metricSource, "feed.metricSource");
      Objects.requireNonNull(wallClockMicros, "feed.wallClockMicros");
      return new IndexChangeFeed(this);
    }
  }
}
