package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http2.DefaultHttp2PingFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2GoAwayFrame;
import io.netty.handler.codec.http2.Http2PingFrame;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** A real server on 127.0.0.1, port 0, driven by real clients. */
@Timeout(60)
class GrpcServerIT {
  private static final String SERVICE = "inferencecache.v1alpha1.InferenceCache";

  private final TestInferenceCache service = new TestInferenceCache();
  private final List<GrpcServer> servers = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void tearDown() throws InterruptedException {
    service.release.countDown();
    for (final ManagedChannel channel : channels) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    for (final GrpcServer server : servers) {
      server.close();
    }
  }

  private static GrpcServerConfig.Builder loopback() {
    return GrpcServerConfig.builder()
        .bindAddress("127.0.0.1:0")
        .executorThreads(2)
        .eventLoopThreads(1);
  }

  private GrpcServer start(final GrpcServerConfig config, final ServerInterceptor... interceptors)
      throws IOException {
    final GrpcServer.Builder b = GrpcServer.builder(config).addService(service);
    for (final ServerInterceptor i : interceptors) {
      b.intercept(i);
    }
    final GrpcServer server = b.build();
    servers.add(server);
    return server.start();
  }

  private ManagedChannel channel(final GrpcServer server) {
    final ManagedChannel channel =
        NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    channels.add(channel);
    return channel;
  }

  private static InferenceCacheGrpc.InferenceCacheBlockingStub blocking(final ManagedChannel c) {
    return InferenceCacheGrpc.newBlockingStub(c).withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  private static LookupRouteRequest lookup(final String tenant) {
    return LookupRouteRequest.newBuilder()
        .setModelId("m")
        .setTenantId(tenant)
        .setHashScheme("vllm")
        .build();
  }

  private static ServingStatus health(final ManagedChannel channel, final String service) {
    return HealthGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.newBuilder().setService(service).build())
        .getStatus();
  }

  @Test
  void bindsAnEphemeralLoopbackPortAndReportsServing() throws Exception {
    final GrpcServer server = start(loopback().build());
    assertThat(server.port()).isBetween(1, 65535);
    assertThat(server.isServing()).isTrue();
    assertThat(server.tlsEnabled()).isFalse();
    server.close();
    assertThat(server.isServing()).isFalse();
  }

  @Test
  void usesNettyNativeEpollWhenAvailable() throws Exception {
    final GrpcServer server = start(loopback().build());
    assertThat(server.transport()).isEqualTo(Epoll.isAvailable() ? "epoll" : "nio");
    if ("Linux".equals(System.getProperty("os.name"))
        && "amd64".equals(System.getProperty("os.arch"))) {
      // The linux-x86_64 native classifier is a runtime dependency: it must load here.
      assertThat(Epoll.isAvailable()).as("%s", Epoll.unavailabilityCause()).isTrue();
      assertThat(server.transport()).isEqualTo("epoll");
    }
    assertThat(health(channel(server), "")).isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void healthCheckReportsTheOverallServiceServing() throws Exception {
    final ManagedChannel channel = channel(start(loopback().build()));

    assertThat(health(channel, "")).isEqualTo(ServingStatus.SERVING);
    final StatusRuntimeException unknown =
        catchThrowableOfType(
            StatusRuntimeException.class, () -> health(channel, "no.such.Service"));
    assertThat(unknown.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void registeredServiceAnswersOnTheUpstreamMethodPath() throws Exception {
    final ManagedChannel channel = channel(start(loopback().build()));

    final LookupRouteResponse response =
        blocking(channel).lookupRoute(lookup("t").toBuilder().setAdapterId("lora-1").build());

    assertThat(InferenceCacheGrpc.getLookupRouteMethod().getFullMethodName())
        .isEqualTo(SERVICE + "/LookupRoute");
    assertThat(response.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(response.getAdapterId()).isEqualTo("lora-1");
  }

  @Test
  void serverReflectionV1ListsOurServiceHealthAndReflection() throws Exception {
    final ManagedChannel channel = channel(start(loopback().build()));

    final List<ServerReflectionResponse> responses = new ArrayList<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final StreamObserver<ServerReflectionRequest> requests =
        ServerReflectionGrpc.newStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .serverReflectionInfo(collect(responses, done));
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("").build());
    requests.onNext(ServerReflectionRequest.newBuilder().setFileContainingSymbol(SERVICE).build());
    requests.onCompleted();
    done.get(10, TimeUnit.SECONDS);

    assertThat(responses).hasSize(2);
    assertThat(responses.get(0).getListServicesResponse().getServiceList())
        .extracting(ServiceResponse::getName)
        .contains(
            SERVICE,
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection");
    final FileDescriptorProto file =
        FileDescriptorProto.parseFrom(
            responses.get(1).getFileDescriptorResponse().getFileDescriptorProto(0));
    assertThat(file.getName()).isEqualTo("inferencecache/v1alpha1/inferencecache.proto");
    assertThat(file.getPackage()).isEqualTo("inferencecache.v1alpha1");
  }

  @Test
  void serverReflectionV1AlphaListsOurServiceAndHealth() throws Exception {
    final ManagedChannel channel = channel(start(loopback().build()));

    final List<io.grpc.reflection.v1alpha.ServerReflectionResponse> responses = new ArrayList<>();
    final CompletableFuture<Void> done = new CompletableFuture<>();
    final StreamObserver<io.grpc.reflection.v1alpha.ServerReflectionRequest> requests =
        io.grpc.reflection.v1alpha.ServerReflectionGrpc.newStub(channel)
            .withDeadlineAfter(10, TimeUnit.SECONDS)
            .serverReflectionInfo(collect(responses, done));
    requests.onNext(
        io.grpc.reflection.v1alpha.ServerReflectionRequest.newBuilder()
            .setListServices("")
            .build());
    requests.onCompleted();
    done.get(10, TimeUnit.SECONDS);

    assertThat(responses.get(0).getListServicesResponse().getServiceList())
        .extracting(io.grpc.reflection.v1alpha.ServiceResponse::getName)
        .contains(SERVICE, "grpc.health.v1.Health");
  }

  private static <T> StreamObserver<T> collect(
      final List<T> into, final CompletableFuture<Void> done) {
    return new StreamObserver<>() {
      @Override
      public void onNext(final T value) {
        synchronized (into) {
          into.add(value);
        }
      }

      @Override
      public void onError(final Throwable t) {
        done.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        done.complete(null);
      }
    };
  }

  @Test
  void interceptorsSeeEveryCallIncludingBuiltInServices() throws Exception {
    final Set<String> seen = ConcurrentHashMap.newKeySet();
    final ServerInterceptor recorder =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              final ServerCall<Q, R> call,
              final Metadata headers,
              final ServerCallHandler<Q, R> next) {
            seen.add(call.getMethodDescriptor().getFullMethodName());
            return next.startCall(call, headers);
          }
        };
    final ManagedChannel channel = channel(start(loopback().build(), recorder));

    health(channel, "");
    blocking(channel).lookupRoute(lookup("t"));

    assertThat(seen).contains("grpc.health.v1.Health/Check", SERVICE + "/LookupRoute");
  }

  @Test
  void bindingAPortInUseFailsStartWithAnIoException() throws Exception {
    final GrpcServer first = start(loopback().build());
    final GrpcServer second =
        GrpcServer.builder(loopback().bindAddress("127.0.0.1:" + first.port()).build()).build();
    servers.add(second);

    assertThatThrownBy(second::start).isInstanceOf(IOException.class);
    assertThat(second.isServing()).isFalse();
  }

  @Test
  void requestsLargerThanTheInboundLimitAreRejectedWithResourceExhausted() throws Exception {
    final ManagedChannel channel = channel(start(loopback().maxInboundMessageSize(1024).build()));

    final LookupRouteRequest small = lookup("t").toBuilder().setPromptText("x".repeat(512)).build();
    assertThat(blocking(channel).lookupRoute(small).getReasonCode()).isEqualTo("NO_HINT");

    final LookupRouteRequest big = lookup("t").toBuilder().setPromptText("x".repeat(2048)).build();
    final StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class, () -> blocking(channel).lookupRoute(big));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void metadataLargerThanTheInboundLimitNeverReachesTheHandler() throws Exception {
    final AtomicInteger reached = new AtomicInteger();
    final ServerInterceptor counter =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              final ServerCall<Q, R> call,
              final Metadata headers,
              final ServerCallHandler<Q, R> next) {
            reached.incrementAndGet();
            return next.startCall(call, headers);
          }
        };
    final ManagedChannel channel =
        channel(start(loopback().maxInboundMetadataSize(2048).build(), counter));
    final Metadata big = new Metadata();
    big.put(Metadata.Key.of("x-big", Metadata.ASCII_STRING_MARSHALLER), "y".repeat(4096));

    final StatusRuntimeException e =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () ->
                blocking(channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(big))
                    .lookupRoute(lookup("t")));

    assertThat(e.getStatus().getCode()).isNotEqualTo(Status.Code.OK);
    assertThat(reached).hasValue(0);
    assertThat(blocking(channel).lookupRoute(lookup("t")).getReasonCode()).isEqualTo("NO_HINT");
  }

  @Test
  void fullHandlerQueueRefusesNewCallsAtOnceWithoutBreakingAdmittedOnes() throws Exception {
    final Set<String> intercepted = ConcurrentHashMap.newKeySet();
    final ServerInterceptor recorder =
        new ServerInterceptor() {
          @Override
          public <Q, R> ServerCall.Listener<Q> interceptCall(
              final ServerCall<Q, R> call,
              final Metadata headers,
              final ServerCallHandler<Q, R> next) {
            intercepted.add(String.valueOf(headers.get(CALL_ID)));
            return next.startCall(call, headers);
          }
        };
    final GrpcServer server =
        start(
            loopback()
                .executorThreads(1)
                .executorQueueCapacity(1)
                .maxQueueDelay(Duration.ofMinutes(1)) // only the count bound here
                .build(),
            recorder);
    final ManagedChannel channel = channel(server);

    // A occupies the only thread, B waits in the queue, C finds the queue full.
    final ListenableFuture<LookupRouteResponse> a =
        future(channel, "a").lookupRoute(lookup(TestInferenceCache.BLOCK));
    assertThat(service.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    final ListenableFuture<LookupRouteResponse> b = future(channel, "b").lookupRoute(lookup("t"));
    final StatusRuntimeException c =
        catchThrowableOfType(
            StatusRuntimeException.class,
            () ->
                InferenceCacheGrpc.newBlockingStub(channel)
                    .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(callId("c")))
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .lookupRoute(lookup("t")));

    assertThat(c.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(c.getStatus().getDescription())
        .isEqualTo("server overloaded: call shed (handler queue full or too slow)");
    assertThat(a.isDone()).as("C was refused while A still held the only thread").isFalse();
    assertThat(b.isDone()).isFalse();
    assertThat(server.rejectedCalls()).isEqualTo(1);
    assertThat(intercepted).containsExactly("a");

    service.release.countDown();
    assertThat(a.get(10, TimeUnit.SECONDS).getReasonCode()).isEqualTo("NO_HINT");
    assertThat(b.get(10, TimeUnit.SECONDS).getReasonCode()).isEqualTo("NO_HINT");
    // B's answer can reach the client before B's last callback has left the queue: once it has,
    // new calls are admitted again.
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreException(StatusRuntimeException.class)
        .until(() -> blocking(channel).lookupRoute(lookup("t")).getReasonCode().equals("NO_HINT"));
    assertThat(intercepted).contains("a", "b").doesNotContain("c");
  }

  /**
   * A one-thread server, 200 ms queue delay, whose only thread is held by call "a" until release.
   */
  private GrpcServer oneThreadHeldByA(final Set<String> intercepted) throws Exception {
    return start(
        loopback()
            .executorThreads(1)
            .executorQueueCapacity(1000)
            .maxQueueDelay(Duration.ofMillis(200))
            .build(),
        recording(intercepted));
  }

  /** Call "a", which holds a handler thread until {@code service.release}; returns once it does. */
  private ListenableFuture<LookupRouteResponse> holdTheOnlyThread(final ManagedChannel channel)
      throws InterruptedException {
    final ListenableFuture<LookupRouteResponse> a =
        future(channel, "a").lookupRoute(lookup(TestInferenceCache.BLOCK));
    assertThat(service.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    return a;
  }

  private static void assertRefusedAsOverloaded(final ListenableFuture<?> call) {
    final ExecutionException e =
        catchThrowableOfType(ExecutionException.class, () -> call.get(10, TimeUnit.SECONDS));
    assertThat(Status.fromThrowable(e.getCause()).getCode())
        .isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
  }

  @Test
  void callsAreShedOnceTheOldestWaitingTaskOutlastsTheQueueDelay() throws Exception {
    final Set<String> intercepted = ConcurrentHashMap.newKeySet();
    final GrpcServer server = oneThreadHeldByA(intercepted);
    final ManagedChannel channel = channel(server);
    final ListenableFuture<LookupRouteResponse> a = holdTheOnlyThread(channel);
    // B waits in a queue that is far from full; once it has waited longer than 200 ms, new calls
    // are refused at once.
    final ListenableFuture<LookupRouteResponse> b = future(channel, "b").lookupRoute(lookup("t"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              try {
                blocking(channel).withDeadlineAfter(2, TimeUnit.SECONDS).lookupRoute(lookup("t"));
                return false;
              } catch (StatusRuntimeException e) {
                return e.getStatus().getCode() == Status.Code.RESOURCE_EXHAUSTED;
              }
            });
    assertThat(server.rejectedCalls()).isPositive();
    assertThat(a.isDone()).isFalse();

    service.release.countDown();
    assertThat(a.get(10, TimeUnit.SECONDS).getReasonCode()).isEqualTo("NO_HINT");
    assertRefusedAsOverloaded(b); // B itself waited past the delay (next test)
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreException(StatusRuntimeException.class)
        .until(() -> blocking(channel).lookupRoute(lookup("t")).getReasonCode().equals("NO_HINT"));
  }

  @Test
  void aCallReachedOnlyAfterTheQueueDelayIsShedInsteadOfServedLate() throws Exception {
    final Set<String> intercepted = ConcurrentHashMap.newKeySet();
    final GrpcServer server = oneThreadHeldByA(intercepted);
    final ManagedChannel channel = channel(server);
    final ListenableFuture<LookupRouteResponse> a = holdTheOnlyThread(channel);
    // B is admitted (nothing waits yet), then waits behind A for longer than the queue delay.
    final ListenableFuture<LookupRouteResponse> b = future(channel, "b").lookupRoute(lookup("t"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> HandlerQueue.allWaitedPastQueueDelay(server, 1));
    final long before = server.rejectedCalls();

    service.release.countDown();

    assertThat(a.get(10, TimeUnit.SECONDS).getReasonCode()).isEqualTo("NO_HINT");
    assertRefusedAsOverloaded(b);
    assertThat(server.rejectedCalls()).isEqualTo(before + 1);
    assertThat(intercepted).contains("a").doesNotContain("b"); // shed before any interceptor
    // A call that does not wait is served as usual.
    assertThat(blocking(channel).lookupRoute(lookup("t")).getReasonCode()).isEqualTo("NO_HINT");
  }

  @Test
  void aCallIsShedAtOnceWhenItsDeadlineIsNearerThanTheExpectedQueueWait() throws Exception {
    final GrpcServer server =
        start(
            loopback()
                .executorThreads(1)
                .executorQueueCapacity(1000)
                .maxQueueDelay(Duration.ofMinutes(1)) // neither delay rule can fire
                .build());
    final ManagedChannel channel = channel(server);
    // A backlog of slow calls (300 ms each, one thread): once four intervals between takes have
    // been measured while others waited (~1.5 s), the pool's pace is known and a queued call
    // expects seconds of wait.
    final List<ListenableFuture<LookupRouteResponse>> slow = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      slow.add(future(channel, "s" + i).lookupRoute(lookup(TestInferenceCache.SLOW)));
    }
    // A call with 150 ms left is refused at once, not left to time out in the queue.
    final Status.Code[] seen = new Status.Code[1];
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              try {
                blocking(channel)
                    .withDeadlineAfter(150, TimeUnit.MILLISECONDS)
                    .lookupRoute(lookup("t"));
                seen[0] = Status.Code.OK;
              } catch (StatusRuntimeException e) {
                seen[0] = e.getStatus().getCode();
              }
              return seen[0] == Status.Code.RESOURCE_EXHAUSTED;
            });
    assertThat(server.rejectedCalls()).isPositive();
    // Calls with time to wait are still admitted and served.
    final ListenableFuture<LookupRouteResponse> patient =
        future(channel, "p").lookupRoute(lookup("t"));
    assertThat(patient.get(20, TimeUnit.SECONDS).getReasonCode()).isEqualTo("NO_HINT");
    for (ListenableFuture<LookupRouteResponse> f : slow) {
      assertThat(f.get(20, TimeUnit.SECONDS).getReasonCode()).isEqualTo("NO_HINT");
    }
  }

  private static ServerInterceptor recording(final Set<String> intercepted) {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          final ServerCall<Q, R> call, final Metadata headers, final ServerCallHandler<Q, R> next) {
        intercepted.add(String.valueOf(headers.get(CALL_ID)));
        return next.startCall(call, headers);
      }
    };
  }

  @Test
  void clientCannotForgeTheInternalOverloadMark() throws Exception {
    final ManagedChannel channel = channel(start(loopback().build()));
    final Metadata forged = new Metadata();
    forged.put(
        Metadata.Key.of("x-inferencecache-internal-shed", Metadata.ASCII_STRING_MARSHALLER), "1");

    final LookupRouteResponse response =
        blocking(channel)
            .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(forged))
            .lookupRoute(lookup("t"));

    assertThat(response.getReasonCode()).isEqualTo("NO_HINT");
  }

  private static final Metadata.Key<String> CALL_ID =
      Metadata.Key.of("x-test-call", Metadata.ASCII_STRING_MARSHALLER);

  private static Metadata callId(final String id) {
    final Metadata m = new Metadata();
    m.put(CALL_ID, id);
    return m;
  }

  private static InferenceCacheGrpc.InferenceCacheFutureStub future(
      final ManagedChannel channel, final String id) {
    return InferenceCacheGrpc.newFutureStub(channel)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(callId(id)))
        .withDeadlineAfter(20, TimeUnit.SECONDS);
  }

  @Test
  void closeLetsAnInFlightCallFinishWhileRefusingNewOnes() throws Exception {
    final GrpcServer server =
        start(loopback().shutdownDrainTimeout(Duration.ofSeconds(20)).build());
    final ManagedChannel channel = channel(server);
    final ListenableFuture<LookupRouteResponse> inFlight =
        InferenceCacheGrpc.newFutureStub(channel)
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .lookupRoute(lookup(TestInferenceCache.BLOCK));
    assertThat(service.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();
    final int port = server.port();

    final CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
    await().atMost(Duration.ofSeconds(10)).until(() -> !server.isServing());

    final ManagedChannel late =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    channels.add(late);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(
                        catchThrowableOfType(
                                StatusRuntimeException.class,
                                () ->
                                    HealthGrpc.newBlockingStub(late)
                                        .withDeadlineAfter(2, TimeUnit.SECONDS)
                                        .check(HealthCheckRequest.getDefaultInstance()))
                            .getStatus()
                            .getCode())
                    .isEqualTo(Status.Code.UNAVAILABLE));
    assertThat(closing).isNotDone();
    assertThat(inFlight).isNotDone();

    service.release.countDown();

    assertThat(inFlight.get(10, TimeUnit.SECONDS).getReasonCode()).isEqualTo("NO_HINT");
    closing.get(10, TimeUnit.SECONDS);
  }

  @Test
  void closeCancelsCallsStillRunningWhenTheDrainTimeoutEnds() throws Exception {
    final GrpcServer server =
        start(loopback().shutdownDrainTimeout(Duration.ofMillis(300)).build());
    final ListenableFuture<LookupRouteResponse> stuck =
        InferenceCacheGrpc.newFutureStub(channel(server))
            .withDeadlineAfter(30, TimeUnit.SECONDS)
            .lookupRoute(lookup(TestInferenceCache.BLOCK));
    assertThat(service.entered.tryAcquire(10, TimeUnit.SECONDS)).isTrue();

    final long start = System.nanoTime();
    server.close();
    final Duration took = Duration.ofNanos(System.nanoTime() - start);

    assertThat(took).isLessThan(Duration.ofSeconds(10));
    final ExecutionException e =
        catchThrowableOfType(ExecutionException.class, () -> stuck.get(10, TimeUnit.SECONDS));
    assertThat(Status.fromThrowable(e.getCause()).getCode())
        .isIn(Status.Code.UNAVAILABLE, Status.Code.CANCELLED);
  }

  @Test
  void pingFloodOnAnIdleConnectionIsAnsweredWithGoAwayEnhanceYourCalm() throws Exception {
    final GrpcServer server = start(loopback().build());
    final CompletableFuture<String> goAway = new CompletableFuture<>();
    final Set<Long> acks = ConcurrentHashMap.newKeySet();
    final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
    try {
      final Channel raw =
          new Bootstrap()
              .group(group)
              .channel(NioSocketChannel.class)
              .handler(
                  new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(final Channel ch) {
                      ch.pipeline()
                          .addLast(
                              Http2FrameCodecBuilder.forClient().build(),
                              new ChannelInboundHandlerAdapter() {
                                @Override
                                public void channelRead(
                                    final ChannelHandlerContext ctx, final Object msg) {
                                  try {
                                    if (msg instanceof Http2PingFrame
                                        && ((Http2PingFrame) msg).ack()) {
                                      acks.add(((Http2PingFrame) msg).content());
                                    }
                                    if (msg instanceof Http2GoAwayFrame) {
                                      final Http2GoAwayFrame frame = (Http2GoAwayFrame) msg;
                                      goAway.complete(
                                          Http2Error.valueOf(frame.errorCode())
                                              + " "
                                              + frame
                                                  .content()
                                                  .toString(StandardCharsets.US_ASCII));
                                    }
                                  } finally {
                                    ReferenceCountUtil.release(msg);
                                  }
                                }

                                @Override
                                public void channelInactive(final ChannelHandlerContext ctx) {
                                  goAway.complete("closed without GOAWAY");
                                }
                              });
                    }
                  })
              .connect("127.0.0.1", server.port())
              .sync()
              .channel();

      // One ping at a time, each after the previous ack: the server then closes with nothing
      // unread, so its GOAWAY is not lost to a TCP reset.
      for (long i = 0; i < 10 && raw.isActive() && !goAway.isDone(); i++) {
        raw.writeAndFlush(new DefaultHttp2PingFrame(i)).await(5, TimeUnit.SECONDS);
        final long ping = i;
        await().atMost(Duration.ofSeconds(5)).until(() -> acks.contains(ping) || goAway.isDone());
      }

      assertThat(goAway.get(10, TimeUnit.SECONDS)).isEqualTo("ENHANCE_YOUR_CALM too_many_pings");
    } finally {
      group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }
    // The listener itself is unaffected.
    assertThat(health(channel(server), "")).isEqualTo(ServingStatus.SERVING);
  }
}
