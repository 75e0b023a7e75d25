package io.inferencecache.service.grpc;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.service.lookup.LookupRouteHandler;
import io.inferencecache.service.lookup.PromptTokenizer;
import io.inferencecache.service.lookup.RecordingLookupMetrics;
import io.inferencecache.service.server.GrpcServer;
import io.inferencecache.service.server.GrpcServerConfig;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Under overload the server sheds new calls at once; a shed LookupRoute is answered NO_HINT with
 * status OK (fail-open), never RESOURCE_EXHAUSTED, on both LookupRoute paths.
 */
@Timeout(60)
class LookupRouteShedIT {

  @Test
  void aLookupRouteShedUnderOverloadIsAnsweredNoHintWithStatusOk() throws Exception {
    for (boolean zeroCopy : new boolean[] {true, false}) {
      final RecordingLookupMetrics metrics = new RecordingLookupMetrics();
      try (CacheIndex index = CacheIndex.open(new IndexConfig().maxEntries(10_000))) {
        index.start();
        final LookupRouteHandler handler =
            new LookupRouteHandler(index, PromptTokenizer.NONE, 16, metrics, System::nanoTime);
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        handler.indexHook(
            () -> {
              entered.countDown();
              release.await(30, TimeUnit.SECONDS);
            });
        final InferenceCacheService service =
            new InferenceCacheService(index, handler, metrics, System::nanoTime, null);
        final GrpcServer server =
            GrpcServer.builder(
                    GrpcServerConfig.builder()
                        .bindAddress("127.0.0.1:0")
                        .executorThreads(1)
                        .executorQueueCapacity(1)
                        .shutdownDrainTimeout(Duration.ofMillis(200))
                        .build())
                .addService(service.definition(zeroCopy))
                .onShed(service::answerShed)
                .build()
                .start();
        final ManagedChannel channel =
            NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
        try {
          final InferenceCacheGrpc.InferenceCacheFutureStub stub =
              InferenceCacheGrpc.newFutureStub(channel);
          final LookupRouteRequest req =
              LookupRouteRequest.newBuilder()
                  .setTenantId("t")
                  .setModelId("m")
                  .setHashScheme("vllm")
                  .setPrefixHash(com.google.protobuf.ByteString.copyFromUtf8("p"))
                  .build();
          final ListenableFuture<LookupRouteResponse> busy = stub.lookupRoute(req);
          assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
          final List<ListenableFuture<LookupRouteResponse>> more = new ArrayList<>();
          for (int i = 0; i < 8; i++) {
            more.add(stub.lookupRoute(req));
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
          assertThat(server.rejectedCalls()).isGreaterThanOrEqualTo(shed);
          release.countDown();
          assertThat(busy.get(10, TimeUnit.SECONDS).getReasonCode()).isNotEmpty();
          for (ListenableFuture<LookupRouteResponse> f : more) {
            assertThat(f.get(10, TimeUnit.SECONDS).getReasonCode()).isNotEmpty(); // all status OK
          }
          assertThat(metrics.calls().stream().filter(c -> c.reasonCode().equals("NO_HINT")).count())
              .isGreaterThanOrEqualTo(shed);
        } finally {
          release.countDown();
          channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
          server.close();
          service.shutdown();
        }
      }
    }
  }

  private static boolean waitShort(final ListenableFuture<LookupRouteResponse> f) {
    try {
      f.get(2, TimeUnit.SECONDS);
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
