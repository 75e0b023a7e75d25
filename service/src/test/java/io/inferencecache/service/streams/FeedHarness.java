package io.inferencecache.service.streams;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IndexListeners;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.service.server.GrpcServer;
import io.inferencecache.service.server.GrpcServerConfig;
import io.inferencecache.service.server.InferenceCacheService;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.agrona.concurrent.EpochNanoClock;

/**
 * An index whose listener is a change feed plus the index metric source, the service with that feed
 * on an in-process server (direct executor) or on the real Netty listener on 127.0.0.1, and stubs.
 */
final class FeedHarness implements AutoCloseable {
  /** A settable index clock starting at 2023-11-14T22:13:20Z. */
  static final class Clock implements EpochNanoClock {
    final AtomicLong now = new AtomicLong(TimeUnit.SECONDS.toNanos(1_700_000_000L));

    @Override
    public long nanoTime() {
      return now.get();
    }
  }

  final Clock clock = new Clock();
  final IndexMetricSource metrics = new IndexMetricSource();
  final IndexChangeFeed feed;
  final CacheIndex index;
  final InferenceCacheService service;
  final Server inProcess;
  final GrpcServer netty;
  final ManagedChannel channel;
  final InferenceCacheGrpc.InferenceCacheBlockingStub blocking;
  final InferenceCacheGrpc.InferenceCacheStub async;

  FeedHarness(final IndexChangeFeed.Builder feedOptions, final boolean overNetty)
      throws IOException {
    feed = feedOptions.metricSource(metrics).build();
    index =
        CacheIndex.open(
            new IndexConfig()
                .maxEntries(200_000)
                .clock(clock)
                .listener(IndexListeners.compose(metrics, feed)));
    metrics.bind(index);
    index.start();
    final LookupRouteHandler handler =
        new LookupRouteHandler(
            index, PromptTokenizer.NONE, 16, LookupMetrics.NOOP, System::nanoTime);
    service = new InferenceCacheService(index, handler, LookupMetrics.NOOP, System::nanoTime, feed);
    if (overNetty) {
      inProcess = null;
      netty =
          GrpcServer.builder(
                  GrpcServerConfig.builder()
                      .bindAddress("127.0.0.1:0")
                      .executorThreads(4)
                      .eventLoopThreads(1)
                      .shutdownDrainTimeout(java.time.Duration.ofSeconds(1))
                      .build())
              .addService(service.definition(true))
              .build()
              .start();
      channel = NettyChannelBuilder.forAddress("127.0.0.1", netty.port()).usePlaintext().build();
    } else {
      netty = null;
      final String name = "feeds-" + UUID.randomUUID();
      inProcess =
          InProcessServerBuilder.forName(name)
              .directExecutor()
              .addService(service.definition(true))
              .build()
              .start();
      channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    }
    blocking = InferenceCacheGrpc.newBlockingStub(channel);
    async = InferenceCacheGrpc.newStub(channel);
  }

  static ByteString hash(final String s) {
    return ByteString.copyFrom(s, StandardCharsets.UTF_8);
  }

  /** One legacy entry per hash, for (tenant, model, replica), scheme vllm. */
  static CacheStateUpdate update(
      final String tenant, final String model, final String replica, final String... hashes) {
    final CacheStateUpdate.Builder b =
        CacheStateUpdate.newBuilder()
            .setTenantId(tenant)
            .setModelId(model)
            .setReplicaId(replica)
            .setHashScheme("vllm");
    for (String h : hashes) {
      b.addPrefixes(PrefixEntry.newBuilder().setPrefixHash(hash(h)).setTokenCount(16));
    }
    return b.build();
  }

  /** Sends {@code updates} on one ReportCacheState stream and waits for the Ack. */
  void report(final CacheStateUpdate... updates) throws Exception {
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> in =
        async.reportCacheState(
            new StreamObserver<>() {
              @Override
              public void onNext(final Ack value) {
                done.complete(value);
              }

              @Override
              public void onError(final Throwable t) {
                done.completeExceptionally(t);
              }

              @Override
              public void onCompleted() {}
            });
    for (CacheStateUpdate u : updates) {
      in.onNext(u);
    }
    in.onCompleted();
    assertThat(done.get(10, TimeUnit.SECONDS).getAccepted()).isTrue();
  }

  @Override
  public void close() {
    feed.close();
    channel.shutdownNow();
    if (inProcess != null) {
      inProcess.shutdownNow();
    }
    if (netty != null) {
      netty.close();
    }
    service.shutdown();
    index.close();
  }
}
