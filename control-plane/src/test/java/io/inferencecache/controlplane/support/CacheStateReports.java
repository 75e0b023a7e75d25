package io.inferencecache.controlplane.support;

import io.grpc.Channel;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** One ReportCacheState stream over a real channel: the updates, then the server's one Ack. */
public final class CacheStateReports {
  private CacheStateReports() {}

  /**
   * Sends {@code updates} on one stream, half-closes it and waits up to {@code seconds} for the
   * Ack.
   */
  public static Ack send(
      final Channel channel, final long seconds, final CacheStateUpdate... updates)
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
    return ack.get(seconds, TimeUnit.SECONDS);
  }
}
