package io.inferencecache.controlplane.support;

import com.google.protobuf.ByteString;
import io.grpc.Channel;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/** One ReportCacheState stream over a real channel: the updates, then the server's one Ack. */
public final class CacheStateReports {
  private CacheStateReports() {}

  /**
   * One {@code vllm} update: {@code replica} of {@code tenant} holds a chain of {@code blocks}
   * blocks of 16 tokens, block {@code i} hashed as {@code hash.apply(i)}.
   */
  public static CacheStateUpdate chain(
      final String replica,
      final String model,
      final String tenant,
      final int blocks,
      final IntFunction<ByteString> hash) {
    final PrefixEntry.Builder chain = PrefixEntry.newBuilder();
    for (int i = 0; i < blocks; i++) {
      chain.addBlockHashes(hash.apply(i)).addBlockTokenCounts(16);
    }
    return CacheStateUpdate.newBuilder()
        .setReplicaId(replica)
        .setModelId(model)
        .setTenantId(tenant)
        .setHashScheme("vllm")
        .addPrefixes(chain)
        .build();
  }

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
