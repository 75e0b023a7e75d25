package io.inferencecache.service.streams;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.StreamEventsRequest;
import io.inferencecache.service.concurrent.CopyOnWriteArray;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.ManyToOneConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The StreamCacheEvents half of an {@link IndexChangeFeed}: its subscribers, each with a bounded
 * buffer the index's writer thread offers into without blocking, drained on the feed's sender
 * thread while the stream is ready; a subscriber whose buffer overflows is cut off (the rules are
 * in {@link IndexChangeFeed}'s class comment). Thread-safe.
 */
final class EventFeed {
  private static final Logger LOG = LoggerFactory.getLogger(IndexChangeFeed.class);
  private static final Subscriber[] NO_SUBSCRIBERS = new Subscriber[0];
  private static final int ALL_TYPES = ~0;

  private final int buffer;
  private final Executor sender;
  private final CopyOnWriteArray<Subscriber> subscribers = new CopyOnWriteArray<>(NO_SUBSCRIBERS);
  private volatile boolean closed;

  private final AtomicLong offered = new AtomicLong();
  private final AtomicLong sent = new AtomicLong();
  private final AtomicLong cutOff = new AtomicLong();

  /** Subscribers get {@code buffer} events of room each; drains run on {@code sender}. */
  EventFeed(final int buffer, final Executor sender) {
    this.buffer = buffer;
    this.sender = sender;
  }

  /** Whether anyone subscribes (the index skips building changes otherwise). */
  boolean wanted() {
    return subscribers.size() > 0;
  }

  /** Writer thread: one index change to every matching subscriber; builds the event once. */
  void publish(
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
    final Subscriber[] subs = subscribers.snapshot();
    final int typeBit = 1 << type.getNumber();
    CacheEvent event = null;
    for (Subscriber s : subs) {
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
      offered.incrementAndGet();
      s.offer(event);
    }
  }

  /** Registers one StreamCacheEvents call (refused with UNAVAILABLE once closed). */
  void subscribe(final StreamEventsRequest request, final StreamObserver<CacheEvent> out) {
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
    final Subscriber s = new Subscriber(out, request.getModelId(), request.getTenantId(), types);
    if (out instanceof ServerCallStreamObserver<CacheEvent> call) {
      call.setOnCancelHandler(s::cancelled);
      call.setOnReadyHandler(s::schedule);
    }
    subscribers.add(s);
    if (closed) {
      s.end(Status.UNAVAILABLE.withDescription("event feed closed"));
    }
  }

  /** Ends every stream with {@code status}; later subscriptions are refused. */
  void close(final Status status) {
    closed = true;
    for (Subscriber s : subscribers.snapshot()) {
      s.end(status);
    }
  }

  int subscribers() {
    return subscribers.size();
  }

  long offered() {
    return offered.get();
  }

  long sent() {
    return sent.get();
  }

  long cutOff() {
    return cutOff.get();
  }

  private void remove(final Subscriber s) {
    subscribers.remove(s);
  }

  /**
   * One StreamCacheEvents call. The writer offers into {@link #queue}; drains run on the sender
   * thread, never two at once ({@link #scheduled}); the stream is touched only by drains.
   */
  private final class Subscriber {
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

    Subscriber(
        final StreamObserver<CacheEvent> out,
        final String model,
        final String tenant,
        final int types) {
      this.out = out;
      this.call = out instanceof ServerCallStreamObserver<CacheEvent> c ? c : null;
      this.model = model;
      this.tenant = tenant;
      this.types = types;
      this.queue = new ManyToOneConcurrentArrayQueue<>(buffer);
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
        cutOff.incrementAndGet();
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
                sent.incrementAndGet();
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
}
