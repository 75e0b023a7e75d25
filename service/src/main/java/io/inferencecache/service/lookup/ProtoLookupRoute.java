package io.inferencecache.service.lookup;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.engine.RouteCall;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.engine.RouteResult;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * LookupRoute on the default-protobuf path (used when the zero-copy path is switched off): the
 * generated request is copied into a pooled {@link RouteRequest}, the {@link LookupRouteHandler}
 * decides, and the result is built into a generated response. The shared {@link DeadlineWatchdog}
 * answers TIMEOUT on time when the handler is stuck, as on the zero-copy path.
 */
final class ProtoLookupRoute {
  private final LookupRouteHandler handler;
  private final LookupMetrics metrics;
  private final LongSupplier nanoTime;
  private final DeadlineWatchdog watchdog;
  private final DeadlineWatchdog.Pool<ProtoCall> pool;

  ProtoLookupRoute(
      final LookupRouteHandler handler,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final int poolSize,
      final DeadlineWatchdog watchdog) {
    this.handler = handler;
    this.metrics = metrics;
    this.nanoTime = nanoTime;
    this.watchdog = watchdog;
    this.pool = watchdog.pool(poolSize, ProtoCall::new);
  }

  /** Live pooled calls of this path (for tests). */
  int trackedCalls() {
    return pool.tracked();
  }

  /** Answers one LookupRoute on the calling gRPC handler thread. */
  void answer(final LookupRouteRequest request, final StreamObserver<LookupRouteResponse> out) {
    final long start = nanoTime.getAsLong();
    final ProtoCall call = pool.acquire();
    ProtoLookupCodec.fill(request, call.in);
    final Context ctx = Context.current();
    final Deadline d = ctx.getDeadline();
    call.ctx = ctx;
    call.out = out;
    call.model = request.getModelId();
    call.callerDeadline =
        d == null ? Long.MAX_VALUE : start + d.timeRemaining(TimeUnit.NANOSECONDS);
    // Like the zero-copy path: the watchdog answers TIMEOUT at the router's deadline even if the
    // handler thread is stuck (index, tokenizer); whoever claims the call first answers it.
    call.watch.start(start);
    handler.handle(call.in, call.result, call, start);
    if (!call.claim()) {
      return; // the watchdog answered TIMEOUT; the call is abandoned (not pooled)
    }
    call.watch.answered();
    final LookupRouteResponse response =
        ProtoLookupCodec.toProto(call.result, request.getAdapterId());
    pool.release(call);
    out.onNext(response);
    out.onCompleted();
  }

  /** One protobuf-path LookupRoute call as the router and the deadline watchdog see it; pooled. */
  private final class ProtoCall implements RouteCall, DeadlineWatchdog.Call {
    final RouteRequest in = new RouteRequest();
    final RouteResult result = new RouteResult();
    final WatchedCall watch = new WatchedCall();
    Context ctx;
    long callerDeadline = Long.MAX_VALUE;
    StreamObserver<LookupRouteResponse> out;
    String model = "";

    @Override
    public long deadlineNanos() {
      return callerDeadline;
    }

    @Override
    public boolean cancelled() {
      return ctx.isCancelled();
    }

    @Override
    public void deadlineResolved(final long deadline) {
      if (deadline != Long.MAX_VALUE) {
        watch.arm(deadline);
        watchdog.armed(this);
      }
    }

    @Override
    public boolean claim() {
      return watch.claim();
    }

    @Override
    public WatchedCall watch() {
      return watch;
    }

    @Override
    public void timedOut(final long now) {
      final long latency = Math.max(0, now - watch.startNanos());
      metrics.record(model, ReasonCodes.TIMEOUT, false, latency);
      out.onNext(
          LookupRouteResponse.newBuilder()
              .setReasonCode(ReasonCodes.TIMEOUT)
              .setLookupLatencyUs(latency / 1000)
              .build());
      out.onCompleted();
    }
  }
}
