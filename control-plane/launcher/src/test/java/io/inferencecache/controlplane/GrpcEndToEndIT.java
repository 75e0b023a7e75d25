package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.call;
import static io.inferencecache.controlplane.support.Http.get;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.PromText;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The whole server over real gRPC on loopback: ingest and LookupRoute through the Netty listener, a
 * /policy push changing the answer, the health service, and the lookup metrics after traffic.
 */
@Timeout(120)
class GrpcEndToEndIT {
  private static final String MODEL = "llama-3.1-8b";
  private static TestServer server;
  private static ManagedChannel channel;
  private static InferenceCacheGrpc.InferenceCacheBlockingStub stub;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(ServeOverrides.NONE.insecure(), null);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    stub = InferenceCacheGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  private static ByteString hash(final int i) {
    return ByteString.copyFrom(new byte[] {7, 7, 7, 7, 0, 0, (byte) (i >>> 8), (byte) i});
  }

  private static void report(final String tenant, final String replica, final int blocks)
      throws Exception {
    final CacheStateUpdate update =
        CacheStateReports.chain(replica, MODEL, tenant, blocks, GrpcEndToEndIT::hash);
    assertThat(CacheStateReports.send(channel, 10, update).getAccepted()).isTrue();
  }

  private static LookupRouteResponse lookup(final String tenant, final int blocks) {
    final LookupRouteRequest.Builder q =
        LookupRouteRequest.newBuilder().setModelId(MODEL).setTenantId(tenant).setHashScheme("vllm");
    for (int i = 0; i < blocks; i++) {
      q.addBlockHashes(hash(i)).addBlockTokenCounts(16);
    }
    return stub.lookupRoute(q.build());
  }

  @Test
  void grpcHealthReportsServing() {
    final HealthCheckResponse r =
        HealthGrpc.newBlockingStub(channel).check(HealthCheckRequest.newBuilder().build());
    assertThat(r.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void reportedChainIsRoutedThenAPolicyPushRequiringAChainChangesTheAnswer() throws Exception {
    report("team-e2e", "vllm-0", 8);
    final LookupRouteResponse hit = lookup("team-e2e", 8);
    assertThat(hit.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(hit.getReplicaScores(0).getReplicaId()).isEqualTo("vllm-0");
    assertThat(hit.getReplicaScores(0).getMatchedTokens()).isEqualTo(128);

    final LookupRouteRequest legacy =
        LookupRouteRequest.newBuilder()
            .setModelId(MODEL)
            .setTenantId("team-e2e")
            .setHashScheme("vllm")
            .setPrefixHash(hash(7))
            .setPrefixTokenCount(128)
            .build();
    assertThat(stub.lookupRoute(legacy).getReasonCode()).isNotEqualTo("POLICY_REQUIRES_CHAIN");

    final var pushed =
        call(
            "POST",
            server.snapshotUrl("/policy"),
            "{\"version\":7,\"policies\":[{\"namespace\":\"team-e2e\","
                + "\"strategy\":{\"requireChain\":true}}]}",
            null);
    assertThat(pushed.statusCode()).isEqualTo(204);
    assertThat(stub.lookupRoute(legacy).getReasonCode()).isEqualTo("POLICY_REQUIRES_CHAIN");
    assertThat(lookup("team-e2e", 8).getReasonCode()).isEqualTo("PREFIX_MATCH");
  }

  @Test
  void aLowerMatchedTokensFloorPushedByPolicyTurnsAShortMatchIntoAPrefixMatch() throws Exception {
    report("team-floor", "vllm-1", 2);
    // 32 matched tokens < the default floor of 64: no prefix match, affinity (on by default)
    // answers
    assertThat(lookup("team-floor", 2).getReasonCode()).isEqualTo("AFFINITY_HINT");
    final var pushed =
        call(
            "PUT",
            server.snapshotUrl("/policy"),
            "{\"version\":7,\"policies\":[{\"namespace\":\"team-floor\",\"minimumMatchedTokens\":16,"
                + "\"affinityRouting\":false}]}",
            null);
    assertThat(pushed.statusCode()).isEqualTo(204);
    final LookupRouteResponse r = lookup("team-floor", 2);
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(32);
  }

  @Test
  void streamCacheEventsDeliversTheServersIndexChanges() throws Exception {
    final java.util.concurrent.BlockingQueue<io.inferencecache.proto.v1alpha1.CacheEvent> events =
        new java.util.concurrent.LinkedBlockingQueue<>();
    final io.grpc.Context.CancellableContext ctx = io.grpc.Context.current().withCancellation();
    try {
      ctx.run(
          () ->
              InferenceCacheGrpc.newStub(channel)
                  .streamCacheEvents(
                      io.inferencecache.proto.v1alpha1.StreamEventsRequest.newBuilder()
                          .setTenantId("team-stream")
                          .build(),
                      new StreamObserver<>() {
                        @Override
                        public void onNext(final io.inferencecache.proto.v1alpha1.CacheEvent e) {
                          events.add(e);
                        }

                        @Override
                        public void onError(final Throwable t) {}

                        @Override
                        public void onCompleted() {}
                      }));
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                report("team-stream", "vllm-9", 2);
                assertThat(events).isNotEmpty();
              });
      final io.inferencecache.proto.v1alpha1.CacheEvent first = events.take();
      assertThat(first.getType())
          .isEqualTo(io.inferencecache.proto.v1alpha1.CacheEvent.Type.PREFIX_ADDED);
      assertThat(first.getTenantId()).isEqualTo("team-stream");
      assertThat(first.getReplicaId()).isEqualTo("vllm-9");
      assertThat(first.getModelId()).isEqualTo(MODEL);
    } finally {
      ctx.cancel(null);
    }
  }

  @Test
  void lookupCallsAppearInTheMetricsWithModelReasonAndHintLabels() throws Exception {
    report("team-metrics", "vllm-2", 8);
    lookup("team-metrics", 8);
    lookup("team-metrics", 8);
    final PromText metrics = PromText.parse(get(server.publicUrl("/metrics")).body());
    assertThat(
            metrics.value(
                "inferencecache_lookup_route_calls_total",
                Map.of("model", MODEL, "reason_code", "PREFIX_MATCH", "hint_used", "true")))
        .isGreaterThanOrEqualTo(2.0);
    assertThat(metrics.value("inferencecache_server_up", Map.of())).isEqualTo(1.0);
    assertThat(metrics.value("inferencecache_server_grpc_tls_enabled", Map.of())).isEqualTo(0.0);
    assertThat(
            metrics.value(
                "inferencecache_lookup_route_latency_seconds_count", Map.of("model", MODEL)))
        .isGreaterThanOrEqualTo(2.0);
  }
}
