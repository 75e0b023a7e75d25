package io.inferencecache.perf;

import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import java.util.concurrent.CompletableFuture;

/**
 * The response side of one client-streaming call (ReportCacheState) as a future: completed with the
 * server's {@link Ack}, with {@code null} if the call ended without one, or exceptionally with the
 * call's error. Pass it as the response observer; wait on it after {@code onCompleted()}.
 */
public final class AckFuture extends CompletableFuture<Ack> implements StreamObserver<Ack> {
  @Override
  public void onNext(final Ack value) {
    complete(value);
  }

  @Override
  public void onError(final Throwable t) {
    completeExceptionally(t);
  }

  @Override
  public void onCompleted() {
    complete(null);
  }
}
