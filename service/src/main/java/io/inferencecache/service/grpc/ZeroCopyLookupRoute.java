package io.inferencecache.service.grpc;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.HasByteBuffer;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.lookup.ReasonCodes;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LookupRoute on the zero-copy path: a method descriptor with the same full name and schema as the
 * generated one, whose marshallers parse the request straight from the transport's buffers into a
 * pooled {@link LookupCall} and stream the response from that same object. The handler logic is
 * {@link LookupRouteHandler}'s. A malformed request is answered NO_HINT (fail-open), never an
 * error.
 *
 * <p>Deadlines (the caller's, and the tenant policy's {@code lookupTimeoutMs}) are enforced twice:
 * the handler checks them at each step, and a watchdog thread answers TIMEOUT on time even if the
 * handler thread is stuck (for example behind a slow tokenizer), without any per-call allocation.
 */
public final class ZeroCopyLookupRoute implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ZeroCopyLookupRoute.class);
  private static final Runnable IGNORE_CANCEL = () -> {};

  private final CacheIndex index;
  private final LookupRouteHandler handler;
  private final LookupMetrics metrics;
  private final LongSupplier nanoTime;
  private final ManyToManyConcurrentArrayQueue<LookupCall> pool;

  /**
   * Every live pooled call, for the watchdog: copy-on-write, so a tick iterates without garbage.
   */
  private volatile LookupCall[] all = new LookupCall[0];

  private final MethodDescriptor<LookupCall, LookupCall> method;
  private final WatchdogTicker ticker;
  private final java.util.function.BooleanSupplier anyWatched = this::anyWatched;
  private final Thread watchdog;
  private volatile boolean running = true;

  public ZeroCopyLookupRoute(
      final CacheIndex index,
      final LookupRouteHandler handler,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final int poolSize,
      final long watchdogTickNanos) {
    this(
        index,
        handler,
        metrics,
        nanoTime,
        poolSize,
        new WatchdogTicker(
            watchdogTickNanos,
            WatchdogTicker.IDLE_NANOS_DEFAULT,
            WatchdogTicker.IDLE_AFTER_TICKS_DEFAULT));
  }

  ZeroCopyLookupRoute(
      final CacheIndex index,
      final LookupRouteHandler handler,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final int poolSize,
      final WatchdogTicker ticker) {
    this.index = index;
    this.handler = handler;
    this.metrics = metrics;
    this.nanoTime = nanoTime;
    this.pool = new ManyToManyConcurrentArrayQueue<>(Math.max(2, poolSize));
    this.method =
        InferenceCacheGrpc.getLookupRouteMethod().toBuilder(
                new RequestMarshaller(), new ResponseMarshaller())
            .build();
    this.ticker = ticker;
    this.watchdog = new Thread(this::watch, "lookup-deadline-watchdog");
    this.watchdog.setDaemon(true);
    ticker.bind(watchdog);
    this.watchdog.start();
  }

  /** The LookupRoute method descriptor with this path's marshallers. */
  public MethodDescriptor<LookupCall, LookupCall> method() {
    return method;
  }

  /** The server call handler for {@link #method()}. */
  public ServerCallHandler<LookupCall, LookupCall> callHandler() {
    return ServerCalls.asyncUnaryCall(this::invoke);
  }

  LookupCall acquire() {
    LookupCall c = pool.poll();
    if (c == null) {
      final LookupCall created = new LookupCall();
      created.onDrained = () -> release(created);
      track(created);
      c = created;
    }
    return c.resetCall();
  }

  void release(final LookupCall c) {
    c.state.set(LookupCall.STATE_IDLE);
    if (c.pooled && !pool.offer(c)) {
      untrack(c);
    }
  }

  /** Live pooled calls the watchdog scans (every one ever created and not yet let go). */
  int trackedCalls() {
    return all.length;
  }

  private synchronized void track(final LookupCall c) {
    final LookupCall[] a = all;
    final LookupCall[] b = java.util.Arrays.copyOf(a, a.length + 1);
    b[a.length] = c;
    all = b;
  }

  private synchronized void untrack(final LookupCall c) {
    final LookupCall[] a = all;
    for (int i = 0; i < a.length; i++) {
      if (a[i] == c) {
        final LookupCall[] b = new LookupCall[a.length - 1];
        System.arraycopy(a, 0, b, 0, i);
        System.arraycopy(a, i + 1, b, i, a.length - i - 1);
        all = b;
        return;
      }
    }
  }

  /** Parses a request; visible for the in-process benchmark. */
  LookupCall parse(final InputStream in) {
    final LookupCall c = acquire();
    try {
      if (in instanceof HasByteBuffer hb && in instanceof KnownLength && hb.byteBufferSupported()) {
        final int total = in.available();
        final ByteBuffer bb = hb.getByteBuffer();
        if (bb != null && bb.remaining() >= total) {
          c.view.wrap(bb, bb.position(), total);
          c.parse(c.view, 0, total, LookupRouteHandler.MAX_PROMPT_TEXT_BYTES);
          return c;
        }
      }
      int n = 0;
      int r;
      while ((r = in.read(c.copy, n, c.copy.length - n)) > 0) {
        n += r;
        if (n == c.copy.length) {
          c.copy = java.util.Arrays.copyOf(c.copy, c.copy.length * 2);
        }
      }
      c.view.wrap(c.copy, 0, n);
      c.parse(c.view, 0, n, LookupRouteHandler.MAX_PROMPT_TEXT_BYTES);
    } catch (IOException | RuntimeException e) {
      c.malformed = true;
    }
    return c;
  }

  /** Runs the handler for a parsed call and encodes its response (no transport). */
  void answer(final LookupCall c, final long start) {
    if (c.malformed) {
      // Bad wire input: fail open without consulting the index.
      final long latency = nanoTime.getAsLong() - start;
      c.output.answer(ReasonCodes.NO_HINT, latency / 1000);
      if (c.claim()) {
        metrics.record(modelOf(c), ReasonCodes.NO_HINT, false, latency);
      }
    } else {
      handler.handle(c.input, c.output, c, c.scratch, start);
    }
    c.encode(index);
  }

  private void invoke(final LookupCall c, final StreamObserver<LookupCall> observer) {
    final long start = nanoTime.getAsLong();
    final ServerCallStreamObserver<LookupCall> obs =
        (ServerCallStreamObserver<LookupCall>) observer;
    obs.setOnCancelHandler(IGNORE_CANCEL);
    final Context ctx = Context.current();
    c.grpcContext = ctx;
    c.observer = observer;
    c.startNanos = start;
    final Deadline d = ctx.getDeadline();
    final long callerDeadline =
        d == null ? Long.MAX_VALUE : start + d.timeRemaining(TimeUnit.NANOSECONDS);
    c.deadlineNanos = callerDeadline;
    // The watchdog enforces the handler's own deadline (caller, policy, default tokenize timeout).
    c.watchDeadlineNanos = handler.deadline(c.input, callerDeadline, start);
    c.state.set(LookupCall.STATE_RUNNING);
    if (c.watchDeadlineNanos != Long.MAX_VALUE) {
      ticker.wake(); // after the RUNNING write: an idle watchdog sees this call
    }
    answer(c, start);
    if (!c.claim()) {
      return; // the watchdog answered TIMEOUT; this object is abandoned (not pooled)
    }
    c.state.set(LookupCall.STATE_ANSWERED);
    if (c.cancelled()) {
      // The caller is gone: nothing to send. A transport may drop the response of a cancelled call
      // without ever reading it (in-process does), which would strand this pooled object forever.
      release(c);
      return;
    }
    c.armRelease(); // back to the pool once the transport has consumed the response bytes
    try {
      observer.onNext(c);
      observer.onCompleted();
    } catch (RuntimeException e) {
      LOG.debug("event=lookup_route_send_failed reason=\"{}\"", String.valueOf(e));
    }
  }

  private void watch() {
    while (running) {
      ticker.await();
      final long now = nanoTime.getAsLong();
      boolean saw = false;
      for (LookupCall c : all) {
        if (watched(c)) {
          saw = true;
          if (now >= c.watchDeadlineNanos
              && c.state.compareAndSet(LookupCall.STATE_RUNNING, LookupCall.STATE_ANSWERED)) {
            timeout(c, now);
          }
        }
      }
      ticker.scanned(saw, anyWatched);
    }
  }

  private boolean anyWatched() {
    for (LookupCall c : all) {
      if (watched(c)) {
        return true;
      }
    }
    return false;
  }

  /** A call the watchdog must answer TIMEOUT for if its handler misses the deadline. */
  private static boolean watched(final LookupCall c) {
    return c.state.get() == LookupCall.STATE_RUNNING && c.watchDeadlineNanos != Long.MAX_VALUE;
  }

  /** The watchdog's pace (for tests). */
  WatchdogTicker ticker() {
    return ticker;
  }

  private void timeout(final LookupCall c, final long now) {
    c.pooled = false; // the handler thread still uses it; let it go to the GC
    untrack(c);
    final LookupCall reply = new LookupCall();
    reply.pooled = false;
    reply.resetCall();
    final long latency = Math.max(0, now - c.startNanos);
    reply.output.answer(ReasonCodes.TIMEOUT, latency / 1000);
    reply.encode(index);
    metrics.record(modelOf(c), ReasonCodes.TIMEOUT, false, latency);
    try {
      c.observer.onNext(reply);
      c.observer.onCompleted();
    } catch (RuntimeException e) {
      LOG.debug("event=lookup_route_timeout_send_failed reason=\"{}\"", String.valueOf(e));
    }
  }

  /** A one-off NO_HINT response (for calls shed under overload; not pooled). */
  LookupCall noHintReply() {
    final LookupCall reply = new LookupCall();
    reply.pooled = false;
    reply.resetCall();
    reply.output.answer(ReasonCodes.NO_HINT, 0);
    reply.encode(index);
    return reply;
  }

  private String modelOf(final LookupCall c) {
    return c.input.request().model().toString();
  }

  @Override
  public void close() {
    running = false;
    watchdog.interrupt();
  }

  private final class RequestMarshaller implements MethodDescriptor.Marshaller<LookupCall> {
    @Override
    public InputStream stream(final LookupCall value) {
      throw new UnsupportedOperationException("server-side marshaller: requests are only parsed");
    }

    @Override
    public LookupCall parse(final InputStream stream) {
      return ZeroCopyLookupRoute.this.parse(stream);
    }
  }

  private static final class ResponseMarshaller implements MethodDescriptor.Marshaller<LookupCall> {
    @Override
    public InputStream stream(final LookupCall value) {
      return value;
    }

    @Override
    public LookupCall parse(final InputStream stream) {
      throw new UnsupportedOperationException("server-side marshaller: responses are only written");
    }
  }
}
