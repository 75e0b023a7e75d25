package io.inferencecache.service.server;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A trivial {@code InferenceCache} for transport tests: {@code LookupRoute} answers {@code NO_HINT}
 * and echoes the adapter id; with tenant {@value #BLOCK} it first signals {@link #entered} and
 * waits (at most 30 s) for {@link #release}; with tenant {@value #SLOW} it first works (see {@link
 * #simulateSlowWork()}) for {@value #SLOW_MILLIS} ms. Every other RPC is the generated
 * UNIMPLEMENTED stub.
 */
final class TestInferenceCache extends InferenceCacheGrpc.InferenceCacheImplBase {
  static final String BLOCK = "block";
  static final String SLOW = "slow";
  static final long SLOW_MILLIS = 300;

  /** One permit per blocking call that reached the handler. */
  final Semaphore entered = new Semaphore(0);

  final CountDownLatch release = new CountDownLatch(1);

  /**
   * Deliberately slow work, not a wait for an event: the handler holds its thread for {@value
   * #SLOW_MILLIS} ms of real time, which gives the server's handler queue (timed on {@code
   * System.nanoTime}) a measurable pace. Ends early when the thread is interrupted.
   */
  private static void simulateSlowWork() {
    final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SLOW_MILLIS);
    for (long left = end - System.nanoTime();
        left > 0 && !Thread.currentThread().isInterrupted();
        left = end - System.nanoTime()) {
      LockSupport.parkNanos(left);
    }
  }

  @Override
  public void lookupRoute(
      final LookupRouteRequest request, final StreamObserver<LookupRouteResponse> response) {
    if (SLOW.equals(request.getTenantId())) {
      simulateSlowWork();
    }
    if (BLOCK.equals(request.getTenantId())) {
      entered.release();
      try {
        if (!release.await(30, TimeUnit.SECONDS)) {
          response.onError(
              Status.DEADLINE_EXCEEDED.withDescription("never released").asException());
          return;
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        response.onError(Status.CANCELLED.withDescription("interrupted").asException());
        return;
      }
    }
    response.onNext(
        LookupRouteResponse.newBuilder()
            .setReasonCode("NO_HINT")
            .setAdapterId(request.getAdapterId())
            .build());
    response.onCompleted();
  }
}
