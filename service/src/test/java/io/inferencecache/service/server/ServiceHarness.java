package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.service.streams.StreamingFeeds;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

/**
 * An index, the LookupRoute handler and the gRPC service on a server (in-process, or grpc-netty on
 * 127.0.0.1 with an ephemeral port), with blocking, future and async stubs. Closes everything it
 * made.
 *
 * <p>The in-process server runs handlers on a thread pool (not the caller's thread), so that an
 * answer sent by another thread (the deadline watchdog) reaches a client whose handler is still
 * blocked.
 */
public final class ServiceHarness implements AutoCloseable {
  /** Where the service runs and which LookupRoute path it binds. */
  public enum Transport {
    IN_PROCESS_ZERO_COPY,
    IN_PROCESS_PROTOBUF,
    NETTY_ZERO_COPY
  }

  /** Harness settings; every field has a default. */
  public static final class Options {
    public IndexConfig config = new IndexConfig().maxEntries(100_000);
    public PromptTokenizer tokenizer = PromptTokenizer.NONE;
    public int blockSize = 16;
    public LookupMetrics metrics = LookupMetrics.NOOP;
    public LongSupplier nanoTime = System::nanoTime;
    public Transport transport = Transport.IN_PROCESS_ZERO_COPY;
    public StreamingFeeds feeds;
    public final List<ServerInterceptor> interceptors = new ArrayList<>();

    public Options feeds(final StreamingFeeds f) {
      this.feeds = f;
      return this;
    }

    public Options config(final IndexConfig c) {
      this.config = c;
      return this;
    }

    public Options tokenizer(final PromptTokenizer t) {
      this.tokenizer = t;
      return this;
    }

    public Options blockSize(final int bs) {
      this.blockSize = bs;
      return this;
    }

    public Options metrics(final LookupMetrics m) {
      this.metrics = m;
      return this;
    }

    public Options nanoTime(final LongSupplier clock) {
      this.nanoTime = clock;
      return this;
    }

    public Options transport(final Transport t) {
      this.transport = t;
      return this;
    }

    public Options intercept(final ServerInterceptor i) {
      interceptors.add(i);
      return this;
    }
  }

  public final Transport transport;
  public final CacheIndex index;
  public final LookupRouteHandler handler;
  public final InferenceCacheService service;
  public final ManagedChannel channel;
  public final InferenceCacheGrpc.InferenceCacheBlockingStub stub;
  public final InferenceCacheGrpc.InferenceCacheFutureStub futureStub;
  public final InferenceCacheGrpc.InferenceCacheStub asyncStub;
  private final Server server;
  private final GrpcServer grpcServer;
  private final ExecutorService executor;

  public ServiceHarness(
      final IndexConfig config,
      final PromptTokenizer tokenizer,
      final int blockSize,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final boolean zeroCopy)
      throws IOException {
    this(
        new Options()
            .config(config)
            .tokenizer(tokenizer)
            .blockSize(blockSize)
            .metrics(metrics)
            .nanoTime(nanoTime)
            .transport(zeroCopy ? Transport.IN_PROCESS_ZERO_COPY : Transport.IN_PROCESS_PROTOBUF));
  }

  public ServiceHarness(final Options o) throws IOException {
    transport = o.transport;
    index = CacheIndex.open(o.config);
    index.start();
    handler = new LookupRouteHandler(index, o.tokenizer, o.blockSize, o.metrics, o.nanoTime);
    // Watchdogs that go idle after one empty scan and would then sleep a minute: every deadline
    // test here runs against an idle watchdog, so it also checks that arming a call wakes it.
    service =
        new InferenceCacheService(
            index, handler, o.metrics, o.nanoTime, o.feeds, 60_000_000_000L, 1);
    final boolean zeroCopy = o.transport != Transport.IN_PROCESS_PROTOBUF;
    if (o.transport == Transport.NETTY_ZERO_COPY) {
      executor = null;
      server = null;
      final GrpcServer.Builder b =
          GrpcServer.builder(
              GrpcServerConfig.builder()
                  .bindAddress("127.0.0.1:0")
                  .executorThreads(96)
                  .shutdownDrainTimeout(Duration.ofMillis(200))
                  .build());
      b.addService(service.definition(zeroCopy));
      for (ServerInterceptor i : o.interceptors) {
        b.intercept(i);
      }
      grpcServer = b.build().start();
      channel =
          NettyChannelBuilder.forAddress("127.0.0.1", grpcServer.port())
              .usePlaintext()
              .maxInboundMessageSize(16 << 20)
              .build();
    } else {
      grpcServer = null;
      final AtomicInteger n = new AtomicInteger();
      executor =
          Executors.newCachedThreadPool(
              r -> {
                final Thread t = new Thread(r, "harness-handler-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
              });
      final String name = "ic-" + UUID.randomUUID();
      server =
          InProcessServerBuilder.forName(name)
              .executor(executor)
              .addService(
                  ServerInterceptors.intercept(service.definition(zeroCopy), o.interceptors))
              .build()
              .start();
      channel = InProcessChannelBuilder.forName(name).build();
    }
    stub = InferenceCacheGrpc.newBlockingStub(channel);
    futureStub = InferenceCacheGrpc.newFutureStub(channel);
    asyncStub = InferenceCacheGrpc.newStub(channel);
  }

  public static ServiceHarness defaults(final boolean zeroCopy) throws IOException {
    return new ServiceHarness(
        new Options()
            .transport(zeroCopy ? Transport.IN_PROCESS_ZERO_COPY : Transport.IN_PROCESS_PROTOBUF));
  }

  /** Replaces the policy store with a v7 snapshot of {@code specs} (no tenant quotas). */
  public void policies(final PolicySpec... specs) {
    index.policyStore().replace(new PolicySnapshot(7, List.of(specs), List.of()));
  }

  /** Streams {@code updates} over ReportCacheState and waits for the Ack. */
  public void report(final CacheStateUpdate... updates) throws Exception {
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> in =
        asyncStub.reportCacheState(
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
    channel.shutdownNow();
    if (grpcServer != null) {
      grpcServer.close();
    } else {
      server.shutdownNow();
      executor.shutdownNow();
    }
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    service.shutdown();
    index.close();
  }
}
