package io.inferencecache.service.lookup;

import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerMethodDefinition;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.util.function.LongSupplier;

/**
 * Both LookupRoute paths of one service over one {@link LookupRouteHandler}: the zero-copy path
 * ({@link ZeroCopyLookupRoute}, the default binding) and the default-protobuf path, with the one
 * {@link DeadlineWatchdog} and the call pools they share, and the fail-open answer to a LookupRoute
 * the server shed under overload. Thread-safe; {@link #close()} stops the watchdog.
 */
public final class LookupRoutes implements AutoCloseable {
  /** The watchdog's sleep once no call is watched: 100 ms. */
  public static final long WATCHDOG_IDLE_NANOS_DEFAULT = WatchdogTicker.IDLE_NANOS_DEFAULT;

  /** Empty scans (at 1 ms each) before the watchdog goes idle. */
  public static final int WATCHDOG_IDLE_AFTER_TICKS_DEFAULT =
      WatchdogTicker.IDLE_AFTER_TICKS_DEFAULT;

  private static final int POOL_SIZE = 1024;

  private final LookupMetrics metrics;
  private final DeadlineWatchdog watchdog;
  private final ZeroCopyLookupRoute zeroCopy;
  private final ProtoLookupRoute proto;
  private volatile boolean zeroCopyBound;

  /**
   * Both paths on {@code nanoTime}'s clock, the watchdog ticking every 1 ms while a call is watched
   * and sleeping {@code watchdogIdleNanos} after {@code watchdogIdleAfterTicks} empty scans.
   */
  public LookupRoutes(
      final LookupRouteHandler handler,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final long watchdogIdleNanos,
      final int watchdogIdleAfterTicks) {
    this.metrics = metrics;
    this.watchdog =
        new DeadlineWatchdog(
            nanoTime,
            new WatchdogTicker(
                DeadlineWatchdog.TICK_NANOS, watchdogIdleNanos, watchdogIdleAfterTicks));
    this.zeroCopy = new ZeroCopyLookupRoute(handler, metrics, nanoTime, POOL_SIZE, watchdog);
    this.proto = new ProtoLookupRoute(handler, metrics, nanoTime, POOL_SIZE, watchdog);
  }

  /** The zero-copy path (for in-process benchmarks and tests). */
  public ZeroCopyLookupRoute zeroCopy() {
    return zeroCopy;
  }

  /**
   * The LookupRoute method to register instead of the generated one: the zero-copy path (same full
   * name and schema) when {@code zeroCopy}, else null (keep the generated protobuf one). A shed
   * LookupRoute is answered in the encoding of the path bound last.
   */
  public ServerMethodDefinition<?, ?> bindLookupRoute(final boolean zeroCopy) {
    zeroCopyBound = zeroCopy;
    return zeroCopy
        ? ServerMethodDefinition.create(this.zeroCopy.method(), this.zeroCopy.callHandler())
        : null;
  }

  /** Answers one LookupRoute on the default-protobuf path. */
  public void answerProto(
      final LookupRouteRequest request, final StreamObserver<LookupRouteResponse> out) {
    proto.answer(request, out);
  }

  /**
   * Answers a LookupRoute the server shed under overload: NO_HINT with status OK (fail-open), not
   * an error; returns false for other methods (left to the server's RESOURCE_EXHAUSTED).
   */
  @SuppressWarnings("unchecked")
  public boolean answerShed(final ServerCall<?, ?> call) {
    if (!call.getMethodDescriptor()
        .getFullMethodName()
        .equals(InferenceCacheGrpc.getLookupRouteMethod().getFullMethodName())) {
      return false;
    }
    metrics.record("", ReasonCodes.NO_HINT, false, 0);
    call.sendHeaders(new Metadata());
    if (zeroCopyBound) {
      ((ServerCall<?, LookupCall>) call).sendMessage(zeroCopy.noHintReply());
    } else {
      ((ServerCall<?, LookupRouteResponse>) call)
          .sendMessage(LookupRouteResponse.newBuilder().setReasonCode(ReasonCodes.NO_HINT).build());
    }
    call.close(Status.OK, new Metadata());
    return true;
  }

  /** The one deadline watchdog of both paths (for tests). */
  DeadlineWatchdog watchdog() {
    return watchdog;
  }

  /** Live pooled calls of the protobuf path (for tests). */
  int protoTrackedCalls() {
    return proto.trackedCalls();
  }

  /** Stops the deadline watchdog of both paths. */
  @Override
  public void close() {
    watchdog.close();
  }
}
