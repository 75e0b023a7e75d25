package io.inferencecache.subscriber.sink;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.proto.v1alpha1.GetCacheStateRequest;
import io.inferencecache.proto.v1alpha1.GetCacheStateResponse;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.service.server.GrpcServer;
import io.inferencecache.service.server.GrpcServerConfig;
import io.inferencecache.service.server.InferenceCacheService;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A real inference-cache server in this JVM: index, LookupRoute handler (engine block size 16) and
 * the gRPC service on the Netty listener at 127.0.0.1. It can be stopped and started again on the
 * same port around the same index (the process survives, the listener does not), and it has its own
 * client channel for lookups.
 */
final class LoopbackServer implements AutoCloseable {
  final CacheIndex index;
  final InferenceCacheService service;
  private GrpcServer server;
  private int port;
  private ManagedChannel channel;
  private InferenceCacheGrpc.InferenceCacheBlockingStub stub;

  LoopbackServer() throws IOException {
    index = CacheIndex.open(new IndexConfig().maxEntries(100_000));
    index.start();
    final LookupRouteHandler handler =
        new LookupRouteHandler(
            index, PromptTokenizer.NONE, 16, LookupMetrics.NOOP, System::nanoTime);
    service = new InferenceCacheService(index, handler, LookupMetrics.NOOP, System::nanoTime, null);
    start();
  }

  /** Binds 127.0.0.1 on the same port as before (any port the first time). */
  void start() throws IOException {
    server =
        GrpcServer.builder(
                GrpcServerConfig.builder()
                    .bindAddress("127.0.0.1:" + port)
                    .executorThreads(4)
                    .eventLoopThreads(1)
                    .shutdownDrainTimeout(Duration.ofMillis(500))
                    .build())
            .addService(service.definition(true))
            .build()
            .start();
    port = server.port();
    if (channel == null) {
      channel = NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
      stub = InferenceCacheGrpc.newBlockingStub(channel);
    }
  }

  /** Closes the listener (cancelling open streams after a short drain); the index stays. */
  void stop() {
    server.close();
  }

  String target() {
    return "127.0.0.1:" + port;
  }

  /** LookupRoute by token ids (the server fingerprints them with block size 16). */
  LookupRouteResponse lookup(
      final String tenant, final String model, final String scheme, final int[] tokens) {
    final LookupRouteRequest.Builder q =
        LookupRouteRequest.newBuilder().setTenantId(tenant).setModelId(model).setHashScheme(scheme);
    for (int t : tokens) {
      q.addTokenIds(t);
    }
    return stub.withDeadlineAfter(5, TimeUnit.SECONDS).lookupRoute(q.build());
  }

  /** Matched tokens of {@code replica} in a lookup of {@code tokens}, 0 if it is not ranked. */
  int matched(final String tenant, final String model, final String replica, final int[] tokens) {
    final LookupRouteResponse r = lookup(tenant, model, "vllm", tokens);
    if (!r.getReasonCode().equals("PREFIX_MATCH")) {
      return 0;
    }
    for (ReplicaScore s : r.getReplicaScoresList()) {
      if (s.getReplicaId().equals(replica)) {
        return s.getMatchedTokens();
      }
    }
    return 0;
  }

  GetCacheStateResponse cacheState(final String tenant, final String model) {
    return stub.withDeadlineAfter(5, TimeUnit.SECONDS)
        .getCacheState(
            GetCacheStateRequest.newBuilder().setTenantId(tenant).setModelId(model).build());
  }

  @Override
  public void close() {
    if (channel != null) {
      channel.shutdownNow();
    }
    server.close();
    service.shutdown();
    index.close();
  }
}
