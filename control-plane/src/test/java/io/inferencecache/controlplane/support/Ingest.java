package io.inferencecache.controlplane.support;

import io.grpc.Channel;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** ReportCacheState from a test: one stream, the updates, half-close, the server's Ack. */
public final class Ingest {
  private Ingest() {}

  /** Sends {@code updates} on one ReportCacheState stream and returns the Ack (10 s at most). */
  public static Ack report(final Channel channel, final CacheStateUpdate... updates)
      throws Exception {
    final CompletableFuture<Ack> ack = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> in =
        InferenceCacheGrpc.newStub(channel)
            .reportCacheState(
                new StreamObserver<>() {
                  @Override
                  public void onNext(final Ack value) {
                    ack.complete(value);
                  }

                  @Override
                  public void onError(final Throwable t) {
                    ack.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    for (final CacheStateUpdate u : updates) {
      in.onNext(u);
    }
    in.onCompleted();
    return ack.get(10, TimeUnit.SECONDS);
  }
}
