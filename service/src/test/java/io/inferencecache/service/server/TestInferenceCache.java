package io.inferencecache.service.server;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * A trivial {@code InferenceCache} for transport tests: {@code LookupRoute} answers {@code NO_HINT}
 * and echoes the adapter id; with tenant {@value #BLOCK} it first signals {@link #entered} and
 * waits (at most 30 s) for {@link #release}; with tenant {@value #SLOW} it first sleeps {@value
 * #SLOW_MILLIS} ms. Every other RPC is the generated UNIMPLEMENTED stub.
 */
final class TestInferenceCache extends InferenceCacheGrpc.InferenceCacheImplBase {
  static final String BLOCK = "block";
  static final String SLOW = "slow";
  static final long SLOW_MILLIS = 300;

  /** One permit per blocking call that reached the handler. */
  final Semaphore entered = new Semaphore(0);

  final CountDownLatch release = new CountDownLatch(1);

  @Override
  public void lookupRoute(
      final LookupRouteRequest request, final StreamObserver<LookupRouteResponse> response) {
    if (SLOW.equals(request.getTenantId())) {
      try {
        Thread.sleep(SLOW_MILLIS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
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
