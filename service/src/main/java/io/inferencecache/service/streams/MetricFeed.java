package io.inferencecache.service.streams;

import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Metric;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The StreamMetrics half of an {@link IndexChangeFeed}: each subscriber gets the samples of a
 * {@link MetricSource} it selected at once and then on a fixed cadence, on the feed's sender
 * thread; a tick that finds the stream not ready is skipped (the rules are in {@link
 * IndexChangeFeed}'s class comment). Thread-safe.
 */
final class MetricFeed {
  private static final Logger LOG = LoggerFactory.getLogger(IndexChangeFeed.class);

  private final long intervalNanos;
  private final MetricSource source;
  private final LongSupplier wallClockMicros;
  private final ScheduledExecutorService sender;
  private final Set<Subscriber> subscribers = ConcurrentHashMap.newKeySet();
  private volatile boolean closed;

  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong ticksSkipped = new AtomicLong();

  MetricFeed(
      final long intervalNanos,
      final MetricSource source,
      final LongSupplier wallClockMicros,
      final ScheduledExecutorService sender) {
    this.intervalNanos = intervalNanos;
    this.source = source;
    this.wallClockMicros = wallClockMicros;
    this.sender = sender;
  }

  /** Registers one StreamMetrics call (refused with UNAVAILABLE once closed). */
  void subscribe(final StreamMetricsRequest request, final StreamObserver<Metric> out) {
    if (closed) {
      out.onError(Status.UNAVAILABLE.withDescription("metrics feed closed").asRuntimeException());
      return;
    }
    final Subscriber s = new Subscriber(out, List.copyOf(request.getNamesList()));
    if (out instanceof ServerCallStreamObserver<Metric> call) {
      call.setOnCancelHandler(s::cancel);
    }
    subscribers.add(s);
    try {
      s.future = sender.scheduleAtFixedRate(s::tick, 0, intervalNanos, TimeUnit.NANOSECONDS);
    } catch (RejectedExecutionException shutDown) {
      subscribers.remove(s);
      out.onError(Status.UNAVAILABLE.withDescription("metrics feed closed").asRuntimeException());
      return;
    }
    if (s.cancelled) {
      s.future.cancel(false);
    }
  }

  /**
   * Ends every stream with {@code status} on the sender thread; later subscriptions are refused.
   */
  void close(final Status status) {
    closed = true;
    for (Subscriber s : subscribers) {
      try {
        sender.execute(() -> s.end(status));
      } catch (RejectedExecutionException ignored) {
        // already stopping
      }
    }
    subscribers.clear();
  }

  int subscribers() {
    return subscribers.size();
  }

  long sent() {
    return sent.get();
  }

  long ticksSkipped() {
    return ticksSkipped.get();
  }

  /** One StreamMetrics call; ticks run on the sender thread only. */
  private final class Subscriber {
    private final StreamObserver<Metric> out;
    private final ServerCallStreamObserver<Metric> call;
    private final List<String> names;
    private final Metric.Builder builder = Metric.newBuilder();
    private volatile ScheduledFuture<?> future;
    private volatile boolean cancelled;
    private boolean ended;

    Subscriber(final StreamObserver<Metric> out, final List<String> names) {
      this.out = out;
      this.call = out instanceof ServerCallStreamObserver<Metric> c ? c : null;
      this.names = names;
    }

    void cancel() {
      cancelled = true;
      subscribers.remove(this);
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
        ticksSkipped.incrementAndGet();
        return;
      }
      final List<MetricSample> samples;
      try {
        samples = source.sample();
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
          sent.incrementAndGet();
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
}
