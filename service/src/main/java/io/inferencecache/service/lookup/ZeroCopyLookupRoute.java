package io.inferencecache.service.lookup;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.HasByteBuffer;
import io.grpc.KnownLength;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCallHandler;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LookupRoute on the zero-copy path: a method descriptor with the same full name and schema as the
 * generated one, whose marshallers parse the request straight from the transport's buffers into a
 * pooled {@link LookupCall} and stream the response from that same object. The decision is the
 * engine's {@link LookupRouter}, run through the {@link LookupRouteHandler}. A malformed request is
 * answered NO_HINT (fail-open), never an error.
 *
 * <p>Deadlines (the caller's, and the tenant policy's {@code lookupTimeoutMs}) are enforced twice:
 * the router checks them at each step, and the shared {@link DeadlineWatchdog} answers TIMEOUT on
 * time even if the handler thread is stuck, without any per-call allocation.
 */
public final class ZeroCopyLookupRoute {
  private static final Logger LOG = LoggerFactory.getLogger(ZeroCopyLookupRoute.class);
  private static final Runnable IGNORE_CANCEL = () -> {};

  private final LookupRouteHandler handler;
  private final LookupMetrics metrics;
  private final LongSupplier nanoTime;
  private final DeadlineWatchdog watchdog;
  private final DeadlineWatchdog.Pool<LookupCall> pool;
  private final MethodDescriptor<LookupCall, LookupCall> method;

  ZeroCopyLookupRoute(
      final LookupRouteHandler handler,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final int poolSize,
      final DeadlineWatchdog watchdog) {
    this.handler = handler;
    this.metrics = metrics;
    this.nanoTime = nanoTime;
    this.watchdog = watchdog;
    this.pool = watchdog.pool(poolSize, this::newCall);
    this.method =
        InferenceCacheGrpc.getLookupRouteMethod().toBuilder(
                new RequestMarshaller(), new ResponseMarshaller())
            .build();
  }

  /** The LookupRoute method descriptor with this path's marshallers. */
  public MethodDescriptor<LookupCall, LookupCall> method() {
    return method;
  }

  /** The server call handler for {@link #method()}. */
  public ServerCallHandler<LookupCall, LookupCall> callHandler() {
    return ServerCalls.asyncUnaryCall(this::invoke);
  }

  private LookupCall newCall() {
    final LookupCall c = new LookupCall(this);
    c.onDrained = () -> pool.release(c);
    return c;
  }

  LookupCall acquire() {
    return pool.acquire().resetCall();
  }

  void release(final LookupCall c) {
    pool.release(c);
  }

  /** Live pooled calls the watchdog scans (every one ever created and not yet let go). */
  int trackedCalls() {
    return pool.tracked();
  }

  /** Pooled calls back in the pool, none of them in flight (for tests). */
  int idleCalls() {
    return pool.idle();
  }

  /** The shared deadline watchdog (for tests). */
  DeadlineWatchdog watchdog() {
    return watchdog;
  }

  /** Router, through {@link LookupCall#deadlineResolved}: {@code c} now has a deadline. */
  void armed(final LookupCall c) {
    watchdog.armed(c);
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
          c.parse(c.view, 0, total, LookupRouter.MAX_PROMPT_TEXT_BYTES);
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
      c.parse(c.view, 0, n, LookupRouter.MAX_PROMPT_TEXT_BYTES);
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
      handler.handle(c.input, c.output, c, start);
    }
    c.encode();
  }

  private void invoke(final LookupCall c, final StreamObserver<LookupCall> observer) {
    final long start = nanoTime.getAsLong();
    final ServerCallStreamObserver<LookupCall> obs =
        (ServerCallStreamObserver<LookupCall>) observer;
    obs.setOnCancelHandler(IGNORE_CANCEL);
    final Context ctx = Context.current();
    c.grpcContext = ctx;
    c.observer = observer;
    final Deadline d = ctx.getDeadline();
    c.deadlineNanos = d == null ? Long.MAX_VALUE : start + d.timeRemaining(TimeUnit.NANOSECONDS);
    // Watched from here: the router arms the watchdog with the call's whole deadline (caller,
    // policy, default tokenize timeout) through LookupCall.deadlineResolved.
    c.watch.start(start);
    answer(c, start);
    if (!c.claim()) {
      return; // the watchdog answered TIMEOUT; this object is abandoned (not pooled)
    }
    c.watch.answered();
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

  /** Watchdog thread: {@code c} missed its deadline; answer TIMEOUT in its place. */
  void timedOut(final LookupCall c, final long now) {
    final LookupCall reply = new LookupCall(null).resetCall();
    final long latency = Math.max(0, now - c.watch.startNanos());
    reply.output.answer(ReasonCodes.TIMEOUT, latency / 1000);
    reply.encode();
    metrics.record(modelOf(c), ReasonCodes.TIMEOUT, false, latency);
    c.observer.onNext(reply);
    c.observer.onCompleted();
  }

  /** A one-off NO_HINT response (for calls shed under overload; not pooled). */
  LookupCall noHintReply() {
    final LookupCall reply = new LookupCall(null).resetCall();
    reply.output.answer(ReasonCodes.NO_HINT, 0);
    reply.encode();
    return reply;
  }

  private String modelOf(final LookupCall c) {
    return c.input.request().model().toString();
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
