package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A LookupPDRoute the server sheds under overload is answered NO_HINT with status OK and a message
 * (fail-open), never RESOURCE_EXHAUSTED: a one-thread server whose only handler thread is held by a
 * blocked LookupRoute, a queue of one.
 */
@Timeout(60)
class LookupPdRouteShedIT {
  @Test
  void aLookupPdRouteShedUnderOverloadIsAnsweredNoHintWithStatusOk() throws Exception {
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicInteger recorded = new AtomicInteger();
    try (CacheIndex index = CacheIndex.open(new IndexConfig().maxEntries(10_000))) {
      index.start();
      final LookupRouteHandler handler =
          new LookupRouteHandler(
              index, PromptTokenizer.NONE, 16, new RecordingLookupMetrics(), System::nanoTime);
      handler
          .router()
          .indexHook(
              () -> {
                entered.countDown();
                release.await(30, TimeUnit.SECONDS);
              });
      final InferenceCacheService service =
          new InferenceCacheService(
              index, handler, new RecordingLookupMetrics(), System::nanoTime, null);
      service.pdRoutes().metrics((reason, nanos) -> recorded.incrementAndGet());
      try (GrpcServer server =
          GrpcServer.builder(
                  GrpcServerConfig.builder()
                      .executorQueueCapacity(1)
                      .maxQueueDelay(Duration.ofMinutes(1))
                      .bindAddress("127.0.0.1:0")
                      .executorThreads(1)
                      .shutdownDrainTimeout(Duration.ofMillis(200))
                      .build())
              .addService(service.definition(true))
              .onShed(service::answerShed)
              .build()
              .start()) {
        final ManagedChannel channel =
            NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        try {
          final InferenceCacheGrpc.InferenceCacheFutureStub stub =
              InferenceCacheGrpc.newFutureStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
          final ListenableFuture<LookupRouteResponse> busy =
              stub.lookupRoute(
                  LookupRouteRequest.newBuilder()
                      .setTenantId("t")
                      .setModelId("m")
                      .setHashScheme("vllm")
                      .setPrefixHash(com.google.protobuf.ByteString.copyFromUtf8("p"))
                      .build());
          assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
          final List<ListenableFuture<LookupPDRouteResponse>> pd = new ArrayList<>();
          for (int i = 0; i < 8; i++) {
            pd.add(
                stub.lookupPDRoute(
                    LookupPDRouteRequest.newBuilder().setTenantId("t").setModelId("m").build()));
          }
          int shed = 0;
          for (ListenableFuture<LookupPDRouteResponse> f : pd) {
            if (waitShort(f)) {
              assertThat(f.get().getReasonCode()).isEqualTo("NO_HINT");
              assertThat(f.get().getPrefillReplicaId()).isEmpty();
              assertThat(f.get().getMessage()).startsWith("shed");
              shed++;
            }
          }
          assertThat(shed).as("calls shed while the handler was blocked").isGreaterThanOrEqualTo(6);
          release.countDown();
          assertThat(busy.get(10, TimeUnit.SECONDS).getReasonCode()).isNotEmpty();
          for (ListenableFuture<LookupPDRouteResponse> f : pd) {
            assertThat(f.get(10, TimeUnit.SECONDS).getReasonCode()).isNotEmpty(); // status OK
          }
          assertThat(recorded.get()).isEqualTo(pd.size()); // shed and answered, once each
        } finally {
          release.countDown();
          channel.shutdownNow();
          service.shutdown();
        }
      }
    }
  }

  private static boolean waitShort(final ListenableFuture<LookupPDRouteResponse> f) {
    try {
      f.get(2, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
