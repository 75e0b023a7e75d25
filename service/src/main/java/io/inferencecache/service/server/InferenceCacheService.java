package io.inferencecache.service.server;

import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerMethodDefinition;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.CacheStateView;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheSummary;
import io.inferencecache.proto.v1alpha1.GetCacheStateRequest;
import io.inferencecache.proto.v1alpha1.GetCacheStateResponse;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupPDRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupPDRouteResponse;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.RenderTemplateRequest;
import io.inferencecache.proto.v1alpha1.RenderTemplateResponse;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import io.inferencecache.service.ingest.IngestEndpoint;
import io.inferencecache.service.ingest.IngestForwarder;
import io.inferencecache.service.ingest.IngestRules;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.lookup.LookupRoutes;
import io.inferencecache.service.lookup.ZeroCopyLookupRoute;
import io.inferencecache.service.pd.LookupPdRoutes;
import io.inferencecache.service.streams.StreamingFeeds;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

/**
 * The {@code inferencecache.v1alpha1.InferenceCache} service: binds each RPC to the feature that
 * owns it. LookupRoute goes to {@link LookupRoutes}, LookupPDRoute to {@link LookupPdRoutes} (the
 * zero-copy path when {@link #definition(boolean)} asks for it, else the overridden {@link
 * #lookupRoute}, the default-protobuf path); ReportCacheState (with a validating marshaller) and
 * PublishEvent to {@link IngestEndpoint}; the two streams to the {@link StreamingFeeds};
 * GetCacheState reads the index.
 */
public final class InferenceCacheService extends InferenceCacheGrpc.InferenceCacheImplBase {
  private final CacheIndex index;
  private final LookupRoutes lookup;
  private final IngestEndpoint ingest;
  private final StreamingFeeds feeds;
  private final LookupPdRoutes pd;

  public InferenceCacheService(
      final CacheIndex index,
      final LookupRouteHandler handler,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final StreamingFeeds feeds) {
    this(
        index,
        handler,
        metrics,
        nanoTime,
        feeds,
        LookupRoutes.WATCHDOG_IDLE_NANOS_DEFAULT,
        LookupRoutes.WATCHDOG_IDLE_AFTER_TICKS_DEFAULT);
  }

  /**
   * As the public constructor, with the deadline watchdog's idle pace (see {@link LookupRoutes}).
   */
  InferenceCacheService(
      final CacheIndex index,
      final LookupRouteHandler handler,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final StreamingFeeds feeds,
      final long watchdogIdleNanos,
      final int watchdogIdleAfterTicks) {
    this.index = index;
    this.feeds = feeds;
    this.ingest = new IngestEndpoint(index, feeds, nanoTime);
    this.lookup =
        new LookupRoutes(handler, metrics, nanoTime, watchdogIdleNanos, watchdogIdleAfterTicks);
    this.pd = new LookupPdRoutes(index, nanoTime);
  }

  /** LookupPDRoute (its metrics are set there before the server starts). */
  public LookupPdRoutes pdRoutes() {
    return pd;
  }

  /** Stops the deadline watchdog of both LookupRoute paths. */
  public void shutdown() {
    lookup.close();
  }

  /** Both LookupRoute paths and their watchdog (for tests). */
  public LookupRoutes lookupRoutes() {
    return lookup;
  }

  /**
   * Sends ReportCacheState and PublishEvent content to {@code forwarder} first (see {@link
   * IngestEndpoint#forwardTo}). Set before the server starts.
   */
  public void forwardIngest(final IngestForwarder forwarder) {
    ingest.forwardTo(forwarder);
  }

  /** What ReportCacheState drops, and its counters. */
  public IngestRules ingestRules() {
    return ingest.rules();
  }

  /** The zero-copy LookupRoute path (for in-process benchmarks). */
  public ZeroCopyLookupRoute zeroCopy() {
    return lookup.zeroCopy();
  }

  /**
   * The service definition to register: the zero-copy LookupRoute when {@code zeroCopyLookup}, else
   * the default protobuf one; ReportCacheState always validating.
   */
  public ServerServiceDefinition definition(final boolean zeroCopyLookup) {
    final ServerServiceDefinition generated = bindService();
    final ServiceDescriptor gd = generated.getServiceDescriptor();
    final ServerMethodDefinition<?, ?> report = ingest.reportDefinition();
    final ServerMethodDefinition<?, ?> route = lookup.bindLookupRoute(zeroCopyLookup);
    final ServiceDescriptor.Builder sd =
        ServiceDescriptor.newBuilder(gd.getName()).setSchemaDescriptor(gd.getSchemaDescriptor());
    final List<ServerMethodDefinition<?, ?>> methods = new ArrayList<>();
    // the .proto's method order (the generated definition's own map is in hash order)
    for (final MethodDescriptor<?, ?> md : gd.getMethods()) {
      final String name = md.getFullMethodName();
      final ServerMethodDefinition<?, ?> def = generated.getMethod(name);
      if (name.equals(report.getMethodDescriptor().getFullMethodName())) {
        methods.add(report);
      } else if (route != null && name.equals(route.getMethodDescriptor().getFullMethodName())) {
        methods.add(route);
      } else {
        methods.add(def);
      }
    }
    for (ServerMethodDefinition<?, ?> m : methods) {
      sd.addMethod(m.getMethodDescriptor());
    }
    final ServerServiceDefinition.Builder b = ServerServiceDefinition.builder(sd.build());
    for (ServerMethodDefinition<?, ?> m : methods) {
      b.addMethod(m);
    }
    return b.build();
  }

  /**
   * Answers a LookupRoute or LookupPDRoute the server shed under overload: NO_HINT with status OK
   * (fail-open), not an error; other methods are left to the server's RESOURCE_EXHAUSTED. Register
   * it with {@link GrpcServer.Builder#onShed}.
   */
  public boolean answerShed(final ServerCall<?, ?> call) {
    return lookup.answerShed(call) || pd.answerShed(call);
  }

  @Override
  public void renderTemplate(
      final RenderTemplateRequest request, final StreamObserver<RenderTemplateResponse> out) {
    out.onNext(RenderTemplateResponse.newBuilder().setReasonCode(ReasonCodes.OK).build());
    out.onCompleted();
  }

  @Override
  public void lookupRoute(
      final LookupRouteRequest request, final StreamObserver<LookupRouteResponse> out) {
    lookup.answerProto(request, out);
  }

  @Override
  public void lookupPDRoute(
      final LookupPDRouteRequest request, final StreamObserver<LookupPDRouteResponse> out) {
    pd.answer(request, out);
  }

  @Override
  public void getCacheState(
      final GetCacheStateRequest request, final StreamObserver<GetCacheStateResponse> out) {
    final GetCacheStateResponse.Builder b = GetCacheStateResponse.newBuilder();
    if (CacheIndex.RESERVED_TENANT.equals(request.getTenantId())) {
      out.onNext(b.setSummary(CacheSummary.getDefaultInstance()).build());
      out.onCompleted();
      return;
    }
    final CacheStateView v = index.cacheState(request.getTenantId(), request.getModelId());
    for (CacheStateView.ReplicaStatsRow r : v.replicas()) {
      b.addReplicas(
          ReplicaStats.newBuilder()
              .setReplicaId(r.replicaId())
              .setCacheMemoryBytes(r.cacheMemoryBytes())
              .setHitRate(r.hitRate())
              .setPressure(r.pressure())
              .setT2HitTokens(r.t2HitTokens())
              .setT2QueryTokens(r.t2QueryTokens()));
    }
    b.setSummary(CacheSummary.newBuilder().setTotalPrefixes(v.totalPrefixes()).setHotPrefixes(0));
    out.onNext(b.build());
    out.onCompleted();
  }

  @Override
  public void publishEvent(final CacheEvent request, final StreamObserver<Ack> out) {
    ingest.publishEvent(request, out);
  }

  @Override
  public void streamCacheEvents(
      final io.inferencecache.proto.v1alpha1.StreamEventsRequest request,
      final StreamObserver<CacheEvent> out) {
    if (feeds == null) {
      out.onCompleted();
      return;
    }
    feeds.subscribeEvents(request, out);
  }

  @Override
  public void streamMetrics(
      final io.inferencecache.proto.v1alpha1.StreamMetricsRequest request,
      final StreamObserver<io.inferencecache.proto.v1alpha1.Metric> out) {
    if (feeds == null) {
      out.onCompleted();
      return;
    }
    feeds.subscribeMetrics(request, out);
  }
}
