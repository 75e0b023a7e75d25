package io.inferencecache.service.streams;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexListener;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.Metric;
import io.inferencecache.proto.v1alpha1.StreamEventsRequest;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;
import io.inferencecache.service.concurrent.CopyOnWriteArray;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

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
 * <p>Thread-safe.
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

  private static final Logger LOG = LoggerFactory.getLogger(IndexChangeFeed.class);
  private static final EventSubscriber[] NO_SUBSCRIBERS = new EventSubscriber[0];
  private static final int ALL_TYPES = ~0;

  private final int eventBuffer;
  private final long metricsIntervalNanos;
  private final MetricSource metricSource;
  private final LongSupplier wallClockMicros;
  private final ScheduledExecutorService sender;

  private final Object closeLock = new Object();
  private final CopyOnWriteArray<EventSubscriber> eventSubscribers =
      new CopyOnWriteArray<>(NO_SUBSCRIBERS);
  private final Set<MetricSubscriber> metricSubscribers = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private final AtomicLong eventsOffered = new AtomicLong();
  private final AtomicLong eventsSent = new AtomicLong();
  private final AtomicLong subscribersCutOff = new AtomicLong();
  private final AtomicLong metricsSent = new AtomicLong();
  private final AtomicLong metricTicksSkipped = new AtomicLong();

  private IndexChangeFeed(final Builder b) {
    this.eventBuffer = b.eventBuffer;
    this.metricsIntervalNanos = b.metricsInterval.toNanos();
    this.metricSource = b.metricSource;
    this.wallClockMicros = b.wallClockMicros;
    this.sender =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              final Thread t = new Thread(r, "inferencecache-feed-sender");
              t.setDaemon(true);
              return t;
            });
  }

  /** A builder with the defaults. */
  public static Builder builder() {
    return new Builder();
  }

  // ---------------------------------------------------------------------------------------------
  // Index side (writer thread): filter, build once, offer; never block

  @Override
  public boolean wantsChanges() {
    return eventSubscribers.size() > 0;
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
    publish(CacheEvent.Type.PREFIX_ADDED, tenant, model, replica, adapter, hash, timestampNanos);
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
    publish(CacheEvent.Type.PREFIX_EVICTED, tenant, model, replica, adapter, hash, timestampNanos);
  }

  @Override
  public void onReplicaUpdated(
      final String tenant, final String model, final String replica, final long timestampNanos) {
    publish(CacheEvent.Type.REPLICA_UPDATED, tenant, model, replica, "", null, timestampNanos);
  }

  @Override
  public void onAllCleared(
      final String tenant, final String model, final String replica, final long timestampNanos) {
    publish(CacheEvent.Type.ALL_CLEARED, tenant, model, replica, "", null, timestampNanos);
  }

  private void publish(
      final CacheEvent.Type type,
      final String tenant,
      final String model,
      final String replica,
      final String adapter,
      final byte[] hash,
      final long timestampNanos) {
    if (CacheIndex.RESERVED_TENANT.equals(tenant)) {
      return;
    }
    final EventSubscriber[] subs = eventSubscribers.snapshot();
    final int typeBit = 1 << type.getNumber();
    CacheEvent event = null;
    for (EventSubscriber s : subs) {
      if (!s.matches(typeBit, tenant, model)) {
        continue;
      }
      if (event == null) {
        final CacheEvent.Builder b =
            CacheEvent.newBuilder()
                .setType(type)
                .setReplicaId(replica)
                .setModelId(model)
                .setTenantId(tenant)
                .setTimestampUs(Math.floorDiv(timestampNanos, 1000L))
                .setAdapterId(adapter);
        if (hash != null) {
          b.setPrefixHash(UnsafeByteOperations.unsafeWrap(hash));
        }
        event = b.build();
      }
      eventsOffered.incrementAndGet();
      s.offer(event);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // StreamCacheEvents

  @Override
  public void subscribeEvents(
      final StreamEventsRequest request, final StreamObserver<CacheEvent> out) {
    if (closed) {
      out.onError(Status.UNAVAILABLE.withDescription("event feed closed").asRuntimeException());
      return;
    }
    int types = 0;
    for (CacheEvent.Type t : request.getTypesList()) {
      if (t != CacheEvent.Type.TYPE_UNSPECIFIED && t != CacheEvent.Type.UNRECOGNIZED) {
        types |= 1 << t.getNumber();
      }
    }
    if (request.getTypesCount() == 0) {
      types = ALL_TYPES;
    }
    final EventSubscriber s =
        new EventSubscriber(out, request.getModelId(), request.getTenantId(), types);
    if (out instanceof ServerCallStreamObserver<CacheEvent> call) {
      call.setOnCancelHandler(s::cancelled);
      call.setOnReadyHandler(s::schedule);
    }
    eventSubscribers.add(s);
    if (closed) {
      s.end(Status.UNAVAILABLE.withDescription("event feed closed"));
    }
  }

  private void remove(final EventSubscriber s) {
    eventSubscribers.remove(s);
  }

  /**
   * One StreamCacheEvents call. The writer offers into {@link #queue}; drains run on the sender
   * thread, never two at once ({@link #scheduled}); the stream is touched only by drains.
   */
  private final class EventSubscriber {
    private final StreamObserver<CacheEvent> out;
    private final ServerCallStreamObserver<CacheEvent> call; // null if not a server call
    private final String model;
    private final String tenant;
    private final int types;
    private final ManyToOneConcurrentArrayQueue<CacheEvent> queue;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile Status endWith; // set once: overflow or close
    private volatile boolean cancelled;
    private boolean ended; // sender thread only

    EventSubscriber(
        final StreamObserver<CacheEvent> out,
        final String model,
        final String tenant,
        final int types) {
      this.out = out;
      this.call = out instanceof ServerCallStreamObserver<CacheEvent> c ? c : null;
      this.model = model;
      this.tenant = tenant;
      this.types = types;
      this.queue = new ManyToOneConcurrentArrayQueue<>(eventBuffer);
    }

    boolean matches(final int typeBit, final String eventTenant, final String eventModel) {
      return (types & typeBit) != 0
          && (model.isEmpty() || model.equals(eventModel))
          && (tenant.isEmpty() || tenant.equals(eventTenant));
    }

    /** Writer thread. */
    void offer(final CacheEvent e) {
      if (endWith != null || cancelled) {
        return;
      }
      if (!queue.offer(e)) {
        subscribersCutOff.incrementAndGet();
        LOG.warn(
            "event=stream_cache_events_cut_off buffer={} model=\"{}\" tenant=\"{}\": the"
                + " subscriber fell behind",
            queue.capacity(),
            model,
            tenant);
        end(
            Status.RESOURCE_EXHAUSTED.withDescription(
                "StreamCacheEvents subscriber fell behind: its buffer of "
                    + queue.capacity()
                    + " events overflowed and later events were dropped; resubscribe and"
                    + " resynchronise (e.g. GetCacheState)"));
        return;
      }
      schedule();
    }

    /** Ends the stream with {@code status} (first caller wins) and unsubscribes. */
    void end(final Status status) {
      synchronized (this) {
        if (endWith != null) {
          return;
        }
        endWith = status;
      }
      remove(this);
      schedule();
    }

    void cancelled() {
      cancelled = true;
      remove(this);
    }

    void schedule() {
      if (!scheduled.get() && scheduled.compareAndSet(false, true)) {
        try {
          sender.execute(this::drain);
        } catch (RejectedExecutionException shutDown) {
          scheduled.set(false);
        }
      }
    }

    private boolean ready() {
      return call == null || call.isReady();
    }

    /** Sender thread. */
    private void drain() {
      try {
        while (true) {
          if (!ended && !cancelled) {
            if (endWith != null) {
              ended = true;
              queue.clear();
              out.onError(endWith.asRuntimeException());
            } else {
              CacheEvent e;
              while (ready() && (e = queue.poll()) != null) {
                out.onNext(e);
                eventsSent.incrementAndGet();
              }
            }
          }
          scheduled.set(false);
          final boolean more =
              !ended && !cancelled && (endWith != null || (!queue.isEmpty() && ready()));
          if (!more || !scheduled.compareAndSet(false, true)) {
            return;
          }
        }
      } catch (RuntimeException e) {
        // The call went away under us (cancelled or closed): stop feeding it.
        LOG.debug("event=stream_cache_events_send_failed reason=\"{}\"", String.valueOf(e));
        ended = true;
        cancelled = true;
        remove(this);
        scheduled.set(false);
      }
    }
  }

  // ---------------------------------------------------------------------------------------------
  // StreamMetrics

  @Override
  public void subscribeMetrics(
      final StreamMetricsRequest request, final StreamObserver<Metric> out) {
    if (closed) {
      out.onError(Status.UNAVAILABLE.withDescription("metrics feed closed").asRuntimeException());
      return;
    }
    final MetricSubscriber s = new MetricSubscriber(out, List.copyOf(request.getNamesList()));
    if (out instanceof ServerCallStreamObserver<Metric> call) {
      call.setOnCancelHandler(s::cancel);
    }
    metricSubscribers.add(s);
    try {
      s.future = sender.scheduleAtFixedRate(s::tick, 0, metricsIntervalNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException shutDown) {
      metricSubscribers.remove(s);
      out.onError(Status.UNAVAILABLE.withDescription("metrics feed closed").asRuntimeException());
      return;
    }
    if (s.cancelled) {
      s.future.cancel(false);
    }
  }

  /** One StreamMetrics call; ticks run on the sender thread only. */
  private final class MetricSubscriber {
    private final StreamObserver<Metric> out;
    private final ServerCallStreamObserver<Metric> call;
    private final List<String> names;
    private final Metric.Builder builder = Metric.newBuilder();
    private volatile ScheduledFuture<?> future;
    private volatile boolean cancelled;
    private boolean ended;

    MetricSubscriber(final StreamObserver<Metric> out, final List<String> names) {
      this.out = out;
      this.call = out instanceof ServerCallStreamObserver<Metric> c ? c : null;
      this.names = names;
    }

    void cancel() {
      cancelled = true;
      metricSubscribers.remove(this);
      final ScheduledFuture<?> f = future;
      if (f != null) {
        f.cancel(false);
      }
    }

    private boolean selected(final MetricSample m) {
      if (names.isEmpty()) {
        return true;
      }
      for (String n : names) {
        if (m.selectedBy(n)) {
          return true;
        }
      }
      return false;
    }

    void tick() {
      if (cancelled || ended) {
        return;
      }
      if (call != null && !call.isReady()) {
        metricTicksSkipped.incrementAndGet();
        return;
      }
      final List<MetricSample> samples;
      try {
        samples = metricSource.sample();
      } catch (RuntimeException e) {
        LOG.warn("event=metric_source_failed reason=\"{}\"", String.valueOf(e));
        return;
      }
      final long ts = wallClockMicros.getAsLong();
      try {
        for (MetricSample m : samples) {
          if (!selected(m)) {
            continue;
          }
          builder
              .clear()
              .setName(m.name())
              .setType(m.type().wire())
              .putAllLabels(m.labels())
              .setValue(m.value())
              .setTimestampUs(ts);
          out.onNext(builder.build());
          metricsSent.incrementAndGet();
        }
      } catch (RuntimeException e) {
        LOG.debug("event=stream_metrics_send_failed reason=\"{}\"", String.valueOf(e));
        cancel();
      }
    }

    /** Sender thread. */
    void end(final Status status) {
      if (ended || cancelled) {
        return;
      }
      ended = true;
      final ScheduledFuture<?> f = future;
      if (f != null) {
        f.cancel(false);
      }
      try {
        out.onError(status.asRuntimeException());
      } catch (RuntimeException ignored) {
        // already gone
      }
    }
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
    for (EventSubscriber s : eventSubscribers.snapshot()) {
      s.end(shutdown);
    }
    for (MetricSubscriber s : metricSubscribers) {
      try {
        sender.execute(() -> s.end(shutdown));
      } catch (RejectedExecutionException ignored) {
        // already stopping
      }
    }
    metricSubscribers.clear();
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
    return eventSubscribers.size();
  }

  /** Current StreamMetrics subscribers. */
  public int metricSubscribers() {
    return metricSubscribers.size();
  }

  /** Events offered to subscriber buffers (one per matching subscriber). */
  public long eventsOffered() {
    return eventsOffered.get();
  }

  /** Events written to subscriber streams. */
  public long eventsSent() {
    return eventsSent.get();
  }

  /** Subscribers cut off with RESOURCE_EXHAUSTED because their buffer overflowed. */
  public long subscribersCutOff() {
    return subscribersCutOff.get();
  }

  /** Metric samples written to subscriber streams. */
  public long metricsSent() {
    return metricsSent.get();
  }

  /** Metric ticks skipped because the subscriber's stream was not ready. */
  public long metricTicksSkipped() {
    return metricTicksSkipped.get();
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
