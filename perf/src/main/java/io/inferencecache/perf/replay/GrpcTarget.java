package io.inferencecache.perf.replay;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.prompt.PromptTokenizer;
import io.inferencecache.service.server.GrpcServer;
import io.inferencecache.service.server.GrpcServerConfig;
import io.inferencecache.service.server.InferenceCacheService;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.Recorder;

/**
 * The replay over gRPC: the real server ({@link GrpcServer} on grpc-netty serving {@link
 * InferenceCacheService} with the zero-copy LookupRoute, assembled as {@code serve} does) started
 * in this JVM on 127.0.0.1:0, or a server already running at {@code host:port}; a plaintext Netty
 * client. LookupRoute is a blocking unary call; reports go on one client stream per sync epoch
 * (flow-controlled: a message is sent only when the stream is ready); evictions are async unary
 * PublishEvent calls, at most {@value #MAX_EVENTS_IN_FLIGHT} in flight, sent at {@link #sync} after
 * the epoch's report stream has been acknowledged (its Ack comes after every message of it was
 * ingested).
 */
final class GrpcTarget implements ReplayTarget {
  static final int MAX_EVENTS_IN_FLIGHT = 256;

  private final ReplayNames names;
  private final Map<String, Integer> replicaIndex = new HashMap<>();
  private final CacheIndex index;
  private final InferenceCacheService service;
  private final GrpcServer server;
  private final ManagedChannel channel;
  private final InferenceCacheGrpc.InferenceCacheBlockingStub blocking;
  private final InferenceCacheGrpc.InferenceCacheStub async;
  private final String where;
  private final Semaphore eventPermits = new Semaphore(MAX_EVENTS_IN_FLIGHT);
  private final AtomicReference<Throwable> eventError = new AtomicReference<>();
  private final List<CacheEvent> pendingEvents = new ArrayList<>();
  private ReportStream stream;
  private long streams;
  private Recorder handlerLatency;
  // The in-process index's clock: stats rows are stamped with the time they were reported, not the
  // later time the stream applies them (the cost model ages stats). Null for a remote server.
  private org.agrona.concurrent.EpochNanoClock clock;

  /** Starts the server in this JVM on 127.0.0.1 (ephemeral port) over a fresh index. */
  static GrpcTarget inProcess(final IndexConfig config, final ReplayNames names)
      throws IOException {
    final CacheIndex index = CacheIndex.open(config);
    index.start();
    // The handler's own latency of every call, as the server reports it to /metrics.
    final Recorder handlerLatency = new Recorder(3);
    final LookupMetrics metrics =
        (model, reasonCode, hintUsed, latencyNanos) ->
            handlerLatency.recordValue(Math.max(1, latencyNanos));
    final LookupRouteHandler handler =
        new LookupRouteHandler(
            index,
            PromptTokenizer.NONE,
            LookupRouter.DEFAULT_ENGINE_BLOCK_SIZE,
            metrics,
            System::nanoTime);
    final InferenceCacheService service =
        new InferenceCacheService(index, handler, metrics, System::nanoTime, null);
    final GrpcServer server;
    try {
      server =
          GrpcServer.builder(GrpcServerConfig.builder().bindAddress("127.0.0.1:0").build())
              .addService(service.definition(true))
              .build()
              .start();
    } catch (IOException | RuntimeException e) {
      service.shutdown();
      index.close();
      throw e;
    }
    final GrpcTarget t =
        new GrpcTarget(
            names,
            index,
            service,
            server,
            "127.0.0.1",
            server.port(),
            "gRPC loopback, server in this JVM (GrpcServer 127.0.0.1:" + server.port() + ")");
    t.handlerLatency = handlerLatency;
    t.clock = config.clock();
    return t;
  }

  /** Connects to a running server at {@code host:port} (plaintext). */
  static GrpcTarget remote(final String hostPort, final ReplayNames names) {
    final int colon = hostPort.lastIndexOf(':');
    if (colon <= 0) {
      throw new IllegalArgumentException("--target must be host:port, not " + hostPort);
    }
    final String host = hostPort.substring(0, colon);
    final int port = Integer.parseInt(hostPort.substring(colon + 1));
    return new GrpcTarget(
        names, null, null, null, host, port, "gRPC to a running server at " + hostPort);
  }

  private GrpcTarget(
      final ReplayNames names,
      final CacheIndex index,
      final InferenceCacheService service,
      final GrpcServer server,
      final String host,
      final int port,
      final String where) {
    this.names = names;
    this.index = index;
    this.service = service;
    this.server = server;
    this.where = where;
    for (int r = 0; r < names.replicas.length; r++) {
      replicaIndex.put(names.replicas[r], r);
    }
    this.channel =
        NettyChannelBuilder.forAddress(host, port)
            .usePlaintext()
            .directExecutor()
            .maxInboundMessageSize(16 << 20)
            .build();
    this.blocking = InferenceCacheGrpc.newBlockingStub(channel);
    this.async = InferenceCacheGrpc.newStub(channel);
  }

  @Override
  public void lookup(final long[] chain, final Hint out) {
    final LookupRouteRequest.Builder b =
        LookupRouteRequest.newBuilder()
            .setModelId(names.model)
            .setTenantId(ReplayNames.TENANT)
            .setHashScheme(ReplayNames.SCHEME);
    for (long k : chain) {
      b.addBlockHashes(UnsafeByteOperations.unsafeWrap(MooncakeTraceFile.hashOf(k)));
      b.addBlockTokenCounts(MooncakeTraceFile.TOKENS_PER_BLOCK);
    }
    final LookupRouteResponse resp =
        blocking.withDeadlineAfter(30, TimeUnit.SECONDS).lookupRoute(b.build());
    out.clear();
    out.reasonCode = resp.getReasonCode();
    for (ReplicaScore s : resp.getReplicaScoresList()) {
      final Integer r = replicaIndex.get(s.getReplicaId());
      if (r != null) {
        out.add(r, s.getMatchedTokens() / MooncakeTraceFile.TOKENS_PER_BLOCK);
      }
    }
  }

  /** The ReportCacheState update of {@code chain} stored on {@code replica} (hashes wrapped). */
  static CacheStateUpdate chainUpdate(
      final ReplayNames names, final int replica, final long[] chain) {
    final PrefixEntry.Builder e = PrefixEntry.newBuilder();
    for (long k : chain) {
      e.addBlockHashes(UnsafeByteOperations.unsafeWrap(MooncakeTraceFile.hashOf(k)));
      e.addBlockTokenCounts(MooncakeTraceFile.TOKENS_PER_BLOCK);
    }
    return CacheStateUpdate.newBuilder()
        .setReplicaId(names.replicas[replica])
        .setModelId(names.model)
        .setTenantId(ReplayNames.TENANT)
        .setHashScheme(ReplayNames.SCHEME)
        .addPrefixes(e)
        .build();
  }

  @Override
  public void report(final int replica, final long[] chain) {
    final CacheStateUpdate u = chainUpdate(names, replica, chain);
    send(u);
  }

  @Override
  public void stats(final int replica, final float pressure) {
    send(
        CacheStateUpdate.newBuilder()
            .setReplicaId(names.replicas[replica])
            .setModelId(names.model)
            .setTenantId(ReplayNames.TENANT)
            .setHashScheme(ReplayNames.SCHEME)
            .setStats(ReplicaStats.newBuilder().setPressure(pressure))
            .setTimestampUs(clock == null ? 0 : clock.nanoTime() / 1000)
            .build());
  }

  @Override
  public void policy(final PolicySnapshot snapshot) {
    if (index == null) {
      throw new IllegalStateException(
          "a remote server takes its policy on its /policy endpoint, not from the replay");
    }
    index.policyStore().replace(snapshot.normalized());
  }

  @Override
  public boolean evictionsPending() {
    return !pendingEvents.isEmpty();
  }

  private void send(final CacheStateUpdate u) {
    if (stream == null) {
      stream = new ReportStream();
      async.reportCacheState(stream);
      streams++;
    }
    stream.send(u);
  }

  @Override
  public void evict(final int replica, final long key) {
    pendingEvents.add(
        CacheEvent.newBuilder()
            .setType(CacheEvent.Type.PREFIX_EVICTED)
            .setReplicaId(names.replicas[replica])
            .setModelId(names.model)
            .setTenantId(ReplayNames.TENANT)
            .setPrefixHash(UnsafeByteOperations.unsafeWrap(MooncakeTraceFile.hashOf(key)))
            .build());
  }

  @Override
  public void sync() throws Exception {
    if (stream != null) {
      final ReportStream s = stream;
      stream = null;
      s.call().onCompleted();
      final Ack ack = s.done.get(60, TimeUnit.SECONDS);
      if (!ack.getAccepted()) {
        throw new IllegalStateException("ReportCacheState not accepted: " + ack.getReasonCode());
      }
    }
    for (CacheEvent ev : pendingEvents) {
      eventPermits.acquire();
      async.publishEvent(
          ev,
          new StreamObserver<>() {
            @Override
            public void onNext(final Ack value) {
              if (!value.getAccepted()) {
                eventError.compareAndSet(
                    null, new IllegalStateException("PublishEvent not accepted"));
              }
            }

            @Override
            public void onError(final Throwable t) {
              eventError.compareAndSet(null, t);
              eventPermits.release();
            }

            @Override
            public void onCompleted() {
              eventPermits.release();
            }
          });
    }
    pendingEvents.clear();
    if (!eventPermits.tryAcquire(MAX_EVENTS_IN_FLIGHT, 60, TimeUnit.SECONDS)) {
      throw new IllegalStateException("PublishEvent calls did not complete within 60 s");
    }
    eventPermits.release(MAX_EVENTS_IN_FLIGHT);
    final Throwable t = eventError.get();
    if (t != null) {
      throw new IllegalStateException("PublishEvent failed: " + t, t);
    }
  }

  @Override
  public Histogram serverLatency() {
    return handlerLatency == null ? null : handlerLatency.getIntervalHistogram();
  }

  @Override
  public void resetServerLatency() {
    if (handlerLatency != null) {
      handlerLatency.reset();
    }
  }

  /** Report streams opened (one per sync epoch with reports). */
  long streams() {
    return streams;
  }

  @Override
  public long offHeapBytes() {
    return index == null ? -1 : index.footprintBytes();
  }

  @Override
  public long totalEntries() {
    return index == null ? -1 : index.totalEntries();
  }

  @Override
  public long totalKeys() {
    return index == null ? -1 : index.totalKeys();
  }

  @Override
  public String describe() {
    return where;
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (server != null) {
      server.close();
    }
    if (service != null) {
      service.shutdown();
    }
    if (index != null) {
      index.close();
    }
  }

  /** One ReportCacheState client stream: sends when ready, completes {@link #done} with the Ack. */
  private static final class ReportStream implements ClientResponseObserver<CacheStateUpdate, Ack> {
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    private volatile ClientCallStreamObserver<CacheStateUpdate> call;

    @Override
    public void beforeStart(final ClientCallStreamObserver<CacheStateUpdate> requestStream) {
      this.call = requestStream;
    }

    ClientCallStreamObserver<CacheStateUpdate> call() {
      return call;
    }

    void send(final CacheStateUpdate u) {
      final ClientCallStreamObserver<CacheStateUpdate> c = call;
      long waited = 0;
      while (!c.isReady()) {
        if (done.isDone()) {
          throw new IllegalStateException(
              "ReportCacheState stream ended early: "
                  + done.handle((a, t) -> t != null ? t : a).join());
        }
        LockSupport.parkNanos(20_000);
        waited += 20_000;
        if (waited > TimeUnit.SECONDS.toNanos(60)) {
          throw new IllegalStateException("ReportCacheState stream not ready for 60 s");
        }
      }
      c.onNext(u);
    }

    @Override
    public void onNext(final Ack value) {
      done.complete(value);
    }

    @Override
    public void onError(final Throwable t) {
      done.completeExceptionally(t);
    }

    @Override
    public void onCompleted() {
      done.complete(Ack.newBuilder().setAccepted(false).setReasonCode("no ack").build());
    }
  }
}
