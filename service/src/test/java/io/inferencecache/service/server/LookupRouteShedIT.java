package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupPDRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupPDRouteResponse;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.lookup.RecordingLookupMetrics;
import io.inferencecache.service.prompt.PromptTokenizer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Under overload the server sheds calls; a shed LookupRoute is answered NO_HINT with status OK
 * (fail-open), never RESOURCE_EXHAUSTED, on both LookupRoute paths: refused at admission, or
 * reached by a handler thread only after waiting past the queue delay; a shed LookupPDRoute too
 * (with a message).
 */
@Timeout(60)
class LookupRouteShedIT {

  private static final LookupRouteRequest REQUEST =
      LookupRouteRequest.newBuilder()
          .setTenantId("t")
          .setModelId("m")
          .setHashScheme("vllm")
          .setPrefixHash(com.google.protobuf.ByteString.copyFromUtf8("p"))
          .build();

  /** A real service on a one-thread server whose index blocks the first lookup until released. */
  private static final class Blocked implements AutoCloseable {
    final RecordingLookupMetrics metrics = new RecordingLookupMetrics();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final CacheIndex index = CacheIndex.open(new IndexConfig().maxEntries(10_000));
    final InferenceCacheService service;
    final GrpcServer server;
    final ManagedChannel channel;
    final InferenceCacheGrpc.InferenceCacheFutureStub stub;

    Blocked(final boolean zeroCopy, final GrpcServerConfig.Builder config) throws Exception {
      index.start();
      final LookupRouteHandler handler =
          new LookupRouteHandler(index, PromptTokenizer.NONE, 16, metrics, System::nanoTime);
      handler
          .router()
          .indexHook(
              () -> {
                entered.countDown();
                release.await(30, TimeUnit.SECONDS);
              });
      service = new InferenceCacheService(index, handler, metrics, System::nanoTime, null);
      server =
          GrpcServer.builder(
                  config
                      .bindAddress("127.0.0.1:0")
                      .executorThreads(1)
                      .shutdownDrainTimeout(Duration.ofMillis(200))
                      .build())
              .addService(service.definition(zeroCopy))
              .onShed(service::answerShed)
              .build()
              .start();
      channel = NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
      stub = InferenceCacheGrpc.newFutureStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    }

    long noHintsRecorded() {
      return metrics.calls().stream().filter(c -> c.reasonCode().equals("NO_HINT")).count();
    }

    @Override
    public void close() {
      release.countDown();
      channel.shutdownNow();
      server.close();
      service.shutdown();
      index.close();
    }
  }

  @Test
  void aLookupRouteShedUnderOverloadIsAnsweredNoHintWithStatusOk() throws Exception {
    for (boolean zeroCopy : new boolean[] {true, false}) {
      try (Blocked b =
          new Blocked(
              zeroCopy,
              GrpcServerConfig.builder()
                  .executorQueueCapacity(1)
                  .maxQueueDelay(Duration.ofMinutes(1)))) {
        final ListenableFuture<LookupRouteResponse> busy = b.stub.lookupRoute(REQUEST);
        assertThat(b.entered.await(10, TimeUnit.SECONDS)).isTrue();
        final List<ListenableFuture<LookupRouteResponse>> more = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
          more.add(b.stub.lookupRoute(REQUEST));
        }
        // At least the calls beyond the one queued slot are shed: each is answered at once.
        int shed = 0;
        for (ListenableFuture<LookupRouteResponse> f : more) {
          if (f.isDone() || waitShort(f)) {
            assertThat(f.get().getReasonCode()).isEqualTo("NO_HINT");
            assertThat(f.get().getReplicaScoresCount()).isZero();
            shed++;
          }
        }
        assertThat(shed).as("calls shed while the handler was blocked").isGreaterThanOrEqualTo(6);
        assertThat(b.server.rejectedCalls()).isGreaterThanOrEqualTo(shed);
        b.release.countDown();
        assertThat(busy.get(10, TimeUnit.SECONDS).getReasonCode()).isNotEmpty();
        for (ListenableFuture<LookupRouteResponse> f : more) {
          assertThat(f.get(10, TimeUnit.SECONDS).getReasonCode()).isNotEmpty(); // all status OK
        }
        assertThat(b.noHintsRecorded()).isGreaterThanOrEqualTo(shed);
      }
    }
  }

  @Test
  void aLookupRouteReachedAfterTheQueueDelayIsAnsweredNoHintWithoutRunningTheLookup()
      throws Exception {
    for (boolean zeroCopy : new boolean[] {true, false}) {
      try (Blocked b =
          new Blocked(
              zeroCopy,
              GrpcServerConfig.builder()
                  .executorQueueCapacity(1000)
                  .maxQueueDelay(Duration.ofMillis(200)))) {
        final ListenableFuture<LookupRouteResponse> busy = b.stub.lookupRoute(REQUEST);
        assertThat(b.entered.await(10, TimeUnit.SECONDS)).isTrue();
        // Admitted while nothing waited yet; then they wait behind the blocked call.
        final List<ListenableFuture<LookupRouteResponse>> queued = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
          queued.add(b.stub.lookupRoute(REQUEST));
        }
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> HandlerQueue.allWaitedPastQueueDelay(b.server, queued.size()));
        final long rejected = b.server.rejectedCalls();
        b.release.countDown();
        assertThat(busy.get(10, TimeUnit.SECONDS).getReasonCode()).isNotEmpty();
        for (ListenableFuture<LookupRouteResponse> f : queued) {
          final LookupRouteResponse r = f.get(10, TimeUnit.SECONDS); // status OK
          assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
          assertThat(r.getReplicaScoresCount()).isZero();
        }
        // Each had waited past 200 ms, so the thread that reached it shed it (recorded without a
        // model) instead of running the lookup (which records model "m").
        assertThat(b.server.rejectedCalls()).isEqualTo(rejected + queued.size());
        assertThat(b.metrics.calls().stream().filter(c -> c.model().isEmpty()).count())
            .isEqualTo(queued.size());
        assertThat(b.metrics.calls().stream().filter(c -> c.model().equals("m")).count())
            .isEqualTo(1); // the blocked call only
      }
    }
  }

  @Test
  void aLookupPdRouteShedUnderOverloadIsAnsweredNoHintWithStatusOk() throws Exception {
    try (Blocked b =
        new Blocked(
            true,
            GrpcServerConfig.builder()
                .executorQueueCapacity(1)
                .maxQueueDelay(Duration.ofMinutes(1)))) {
      final java.util.concurrent.atomic.AtomicInteger recorded =
          new java.util.concurrent.atomic.AtomicInteger();
      b.service.pdRoutes().metrics((reason, nanos) -> recorded.incrementAndGet());
      final ListenableFuture<LookupRouteResponse> busy = b.stub.lookupRoute(REQUEST);
      assertThat(b.entered.await(10, TimeUnit.SECONDS)).isTrue();
      final List<ListenableFuture<LookupPDRouteResponse>> pd = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        pd.add(
            b.stub.lookupPDRoute(
                LookupPDRouteRequest.newBuilder().setTenantId("t").setModelId("m").build()));
      }
      int shed = 0;
      for (ListenableFuture<LookupPDRouteResponse> f : pd) {
        if (f.isDone() || waitShort(f)) {
          assertThat(f.get().getReasonCode()).isEqualTo("NO_HINT");
          assertThat(f.get().getPrefillReplicaId()).isEmpty();
          assertThat(f.get().getMessage()).startsWith("shed");
          shed++;
        }
      }
      assertThat(shed).as("calls shed while the handler was blocked").isGreaterThanOrEqualTo(6);
      b.release.countDown();
      assertThat(busy.get(10, TimeUnit.SECONDS).getReasonCode()).isNotEmpty();
      for (ListenableFuture<LookupPDRouteResponse> f : pd) {
        assertThat(f.get(10, TimeUnit.SECONDS).getReasonCode()).isNotEmpty(); // all status OK
      }
      assertThat(recorded.get()).isEqualTo(pd.size()); // shed or answered, once each
    }
  }

  private static boolean waitShort(final ListenableFuture<?> f) {
    try {
      f.get(2, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
