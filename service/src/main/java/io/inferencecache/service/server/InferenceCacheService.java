package io.inferencecache.service.server;

import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.ServiceDescriptor;
import io.grpc.Status;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.CacheStateView;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.engine.RouteCall;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.engine.RouteResult;
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
import io.inferencecache.service.ingest.IngestForwarder;
import io.inferencecache.service.ingest.IngestMapper;
import io.inferencecache.service.ingest.IngestMessage;
import io.inferencecache.service.ingest.IngestRules;
import io.inferencecache.service.ingest.ReportCall;
import io.inferencecache.service.lookup.DeadlineWatchdog;
import io.inferencecache.service.lookup.LookupCall;
import io.inferencecache.service.lookup.LookupMetrics;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.lookup.ProtoLookupCodec;
import io.inferencecache.service.lookup.WatchdogTicker;
import io.inferencecache.service.lookup.WatchedCall;
import io.inferencecache.service.lookup.ZeroCopyLookupRoute;
import io.inferencecache.service.streams.StreamingFeeds;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code inferencecache.v1alpha1.InferenceCache} service over the engine. {@link #definition()}
 * binds LookupRoute to the zero-copy path ({@link ZeroCopyLookupRoute}) and ReportCacheState to a
 * validating marshaller; the other RPCs use the generated messages. The overridden {@link
 * #lookupRoute} is the default-protobuf path (used when the zero-copy path is switched off).
 */
public final class InferenceCacheService extends InferenceCacheGrpc.InferenceCacheImplBase {
  private static final Logger LOG = LoggerFactory.getLogger(InferenceCacheService.class);

  private final CacheIndex index;
  private final LookupRouteHandler handler;
  private final LongSupplier nanoTime;
  private final LookupMetrics metrics;
  private volatile boolean zeroCopyBound;
  private final DeadlineWatchdog watchdog;
  private final ZeroCopyLookupRoute zeroCopy;
  private final DeadlineWatchdog.Pool<ProtoCall> protoCalls;
  private final StreamingFeeds feeds;
  private final IngestRules ingestRules;
  private volatile IngestForwarder forwarder;
  private final Set<ReportCall> openReports = ConcurrentHashMap.newKeySet();

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
        WatchdogTicker.IDLE_NANOS_DEFAULT,
        WatchdogTicker.IDLE_AFTER_TICKS_DEFAULT);
  }

  /** As the public constructor, with the deadline watchdog's idle pace (see WatchdogTicker). */
  InferenceCacheService(
      final CacheIndex index,
      final LookupRouteHandler handler,
      final LookupMetrics metrics,
      final LongSupplier nanoTime,
      final StreamingFeeds feeds,
      final long watchdogIdleNanos,
      final int watchdogIdleAfterTicks) {
    this.index = index;
    this.handler = handler;
    this.nanoTime = nanoTime;
    this.metrics = metrics;
    this.feeds = feeds;
    this.ingestRules = new IngestRules(nanoTime);
    this.watchdog =
        new DeadlineWatchdog(
            nanoTime,
            new WatchdogTicker(
                DeadlineWatchdog.TICK_NANOS, watchdogIdleNanos, watchdogIdleAfterTicks));
    this.zeroCopy = new ZeroCopyLookupRoute(handler, metrics, nanoTime, 1024, watchdog);
    this.protoCalls = watchdog.pool(1024, ProtoCall::new);
  }

  /** Stops the deadline watchdog of both LookupRoute paths. */
  public void shutdown() {
    watchdog.close();
  }

  /** The one deadline watchdog of both LookupRoute paths (for tests). */
  DeadlineWatchdog watchdog() {
    return watchdog;
  }

  /** Live pooled calls of the protobuf path (for tests). */
  int protoTrackedCalls() {
    return protoCalls.tracked();
  }

  /**
   * Sends ReportCacheState and PublishEvent content to {@code forwarder} first; what it does not
   * take is applied here as without one; a sender it says owes a resync has its ReportCacheState
   * call ended (see {@link ReportCall}). Set before the server starts.
   */
  public void forwardIngest(final IngestForwarder forwarder) {
    this.forwarder = forwarder;
    forwarder.whenResyncDue(this::askOwingSenders);
  }

  /** What ReportCacheState drops, and its counters. */
  public IngestRules ingestRules() {
    return ingestRules;
  }

  /** The zero-copy LookupRoute path (for in-process benchmarks). */
  public ZeroCopyLookupRoute zeroCopy() {
    return zeroCopy;
  }

  /**
   * The service definition to register: the zero-copy LookupRoute when {@code zeroCopyLookup}, else
   * the default protobuf one; ReportCacheState always validating.
   */
  public ServerServiceDefinition definition(final boolean zeroCopyLookup) {
    zeroCopyBound = zeroCopyLookup;
    final ServerServiceDefinition generated = bindService();
    final ServiceDescriptor gd = generated.getServiceDescriptor();
    final MethodDescriptor<IngestMessage, Ack> report =
        InferenceCacheGrpc.getReportCacheStateMethod().toBuilder(
                new IngestMessage.Marshaller(),
                io.grpc.protobuf.ProtoUtils.marshaller(Ack.getDefaultInstance()))
            .build();
    final ServiceDescriptor.Builder sd =
        ServiceDescriptor.newBuilder(gd.getName()).setSchemaDescriptor(gd.getSchemaDescriptor());
    final ServerServiceDefinition.Builder b;
    for (MethodDescriptor<?, ?> m : gd.getMethods()) {
      if (m.getFullMethodName().equals(report.getFullMethodName())) {
        sd.addMethod(report);
      } else if (zeroCopyLookup
          && m.getFullMethodName().equals(zeroCopy.method().getFullMethodName())) {
        sd.addMethod(zeroCopy.method());
      } else {
        sd.addMethod(m);
      }
    }
    b = ServerServiceDefinition.builder(sd.build());
    for (io.grpc.ServerMethodDefinition<?, ?> def : generated.getMethods()) {
      final String name = def.getMethodDescriptor().getFullMethodName();
      if (name.equals(report.getFullMethodName())) {
        b.addMethod(report, ServerCalls.asyncClientStreamingCall(this::reportValidated));
      } else if (zeroCopyLookup && name.equals(zeroCopy.method().getFullMethodName())) {
        b.addMethod(zeroCopy.method(), zeroCopy.callHandler());
      } else {
        b.addMethod(def);
      }
    }
    return b.build();
  }

  /**
   * Answers a LookupRoute the server shed under overload: NO_HINT with status OK (fail-open), not
   * an error; other methods are left to the server's RESOURCE_EXHAUSTED. Register it with {@link
   * io.inferencecache.service.server.GrpcServer.Builder#onShed}.
   */
  @SuppressWarnings("unchecked")
  public boolean answerShed(final io.grpc.ServerCall<?, ?> call) {
    if (!call.getMethodDescriptor()
        .getFullMethodName()
        .equals(InferenceCacheGrpc.getLookupRouteMethod().getFullMethodName())) {
      return false;
    }
    metrics.record("", ReasonCodes.NO_HINT, false, 0);
    call.sendHeaders(new io.grpc.Metadata());
    if (zeroCopyBound) {
      ((io.grpc.ServerCall<?, LookupCall>) call).sendMessage(zeroCopy.noHintReply());
    } else {
      ((io.grpc.ServerCall<?, LookupRouteResponse>) call)
          .sendMessage(LookupRouteResponse.newBuilder().setReasonCode(ReasonCodes.NO_HINT).build());
    }
    call.close(Status.OK, new io.grpc.Metadata());
    return true;
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
    final long start = nanoTime.getAsLong();
    final ProtoCall call = protoCalls.acquire();
    ProtoLookupCodec.fill(request, call.in);
    final io.grpc.Context ctx = io.grpc.Context.current();
    final io.grpc.Deadline d = ctx.getDeadline();
    call.ctx = ctx;
    call.out = out;
    call.model = request.getModelId();
    call.callerDeadline =
        d == null
            ? Long.MAX_VALUE
            : start + d.timeRemaining(java.util.concurrent.TimeUnit.NANOSECONDS);
    // Like the zero-copy path: the watchdog answers TIMEOUT at the router's deadline even if the
    // handler thread is stuck (index, tokenizer); whoever claims the call first answers it.
    call.watch.start(start);
    handler.handle(call.in, call.result, call, start);
    if (!call.claim()) {
      return; // the watchdog answered TIMEOUT; the call is abandoned (not pooled)
    }
    call.watch.answered();
    final LookupRouteResponse response =
        ProtoLookupCodec.toProto(call.result, request.getAdapterId());
    protoCalls.release(call);
    out.onNext(response);
    out.onCompleted();
  }

  /** One protobuf-path LookupRoute call as the router and the deadline watchdog see it; pooled. */
  private final class ProtoCall implements RouteCall, DeadlineWatchdog.Call {
    final RouteRequest in = new RouteRequest();
    final RouteResult result = new RouteResult();
    final WatchedCall watch = new WatchedCall();
    io.grpc.Context ctx;
    long callerDeadline = Long.MAX_VALUE;
    StreamObserver<LookupRouteResponse> out;
    String model = "";

    @Override
    public long deadlineNanos() {
      return callerDeadline;
    }

    @Override
    public boolean cancelled() {
      return ctx.isCancelled();
    }

    @Override
    public void deadlineResolved(final long deadline) {
      if (deadline != Long.MAX_VALUE) {
        watch.arm(deadline);
        watchdog.armed(this);
      }
    }

    @Override
    public boolean claim() {
      return watch.claim();
    }

    @Override
    public WatchedCall watch() {
      return watch;
    }

    @Override
    public void timedOut(final long now) {
      final long latency = Math.max(0, now - watch.startNanos());
      metrics.record(model, ReasonCodes.TIMEOUT, false, latency);
      out.onNext(
          LookupRouteResponse.newBuilder()
              .setReasonCode(ReasonCodes.TIMEOUT)
              .setLookupLatencyUs(latency / 1000)
              .build());
      out.onCompleted();
    }
  }

  @Override
  public void lookupPDRoute(
      final LookupPDRouteRequest request, final StreamObserver<LookupPDRouteResponse> out) {
    out.onNext(LookupPDRouteResponse.newBuilder().setReasonCode(ReasonCodes.NO_HINT).build());
    out.onCompleted();
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

  /** ReportCacheState: one {@link ReportCall} per call. */
  private StreamObserver<IngestMessage> reportValidated(final StreamObserver<Ack> out) {
    return new ReportCall(out, forwarder, this::applyLocally, openReports);
  }

  /** An update this server indexes itself (no forwarder, or the forwarder did not take it). */
  private void applyLocally(final io.inferencecache.proto.v1alpha1.CacheStateUpdate u) {
    final io.inferencecache.engine.IngestUpdate admitted = ingestRules.admit(u);
    if (admitted == null) {
      return;
    }
    index.ingest(admitted);
    if (feeds != null) {
      feeds.onIngested(u);
    }
  }

  /** The forwarder can take messages again: ends the open calls of senders that owe a resync. */
  private void askOwingSenders() {
    for (ReportCall c : openReports) {
      c.resyncIfDue();
    }
  }

  @Override
  public void publishEvent(final CacheEvent request, final StreamObserver<Ack> out) {
    final IngestForwarder f = forwarder;
    if (f != null && f.forwardEvent(request)) {
      out.onNext(Ack.newBuilder().setAccepted(true).build());
      out.onCompleted();
      return;
    }
    if (ingestRules.admitEvent(request)) {
      index.applyEvent(IngestMapper.toEvent(request));
      if (feeds != null) {
        feeds.onEvent(request);
      }
    }
    out.onNext(Ack.newBuilder().setAccepted(true).build());
    out.onCompleted();
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
