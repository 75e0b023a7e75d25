package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.call;
import static io.inferencecache.controlplane.support.Http.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.FakeApiServer;
import io.inferencecache.controlplane.support.PromText;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.Metric;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * StreamMetrics over real gRPC streams every {@code inferencecache_*} series of {@code /metrics}
 * with the same names, labels and values, and an ingest drop shows on both.
 */
@Timeout(120)
class StreamMetricsIT {
  private static final String SA =
      "system:serviceaccount:inference-cache-system:inference-cache-controller-manager";
  private static final String MODEL = "llama-3.1-8b";

  private FakeApiServer api;
  private TestServer server;
  private ManagedChannel channel;

  @BeforeEach
  void start() throws Exception {
    api = new FakeApiServer().token("controller", SA, "inferencecache.io/controller");
    server =
        TestServer.start(
            ServeOverrides.NONE.allowing(SA), "kubernetes:\n  apiServerUrl: " + api.url() + "\n");
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
    api.close();
  }

  private static ByteString hash(final int i) {
    return ByteString.copyFrom(new byte[] {9, 9, 9, 9, 0, 0, 0, (byte) i});
  }

  /** A chain of 8 blocks of 16 tokens (enough matched tokens for PREFIX_MATCH). */
  private static PrefixEntry chain() {
    final PrefixEntry.Builder b = PrefixEntry.newBuilder();
    for (int i = 0; i < 8; i++) {
      b.addBlockHashes(hash(i)).addBlockTokenCounts(16);
    }
    return b.build();
  }

  private Ack report(final CacheStateUpdate... updates) throws Exception {
    return CacheStateReports.send(channel, 10, updates);
  }

  @Test
  void everyRequestedSeriesArrivesWithTheValuesOfMetricsEndpoint() throws Exception {
    final CacheStateUpdate update =
        CacheStateUpdate.newBuilder()
            .setReplicaId("vllm-0")
            .setModelId(MODEL)
            .setTenantId("team-s")
            .setHashScheme("vllm")
            .addPrefixes(chain())
            .build();
    assertThat(report(update).getAccepted()).isTrue();
    final String reason =
        InferenceCacheGrpc.newBlockingStub(channel)
            .lookupRoute(
                LookupRouteRequest.newBuilder()
                    .setTenantId("team-s")
                    .setModelId(MODEL)
                    .setHashScheme("vllm")
                    .addAllBlockHashes(chain().getBlockHashesList())
                    .addAllBlockTokenCounts(chain().getBlockTokenCountsList())
                    .build())
            .getReasonCode();
    assertThat(reason).isEqualTo("PREFIX_MATCH");
    assertThat(call("GET", server.snapshotUrl("/snapshot"), null, null).statusCode())
        .isEqualTo(401);

    final List<String> names =
        List.of(
            "inferencecache_server_up",
            "inferencecache_lookup_route_calls_total",
            "inferencecache_lookup_route_latency_seconds",
            "inferencecache_snapshot_auth_total",
            "inferencecache_grpc_connections",
            "inferencecache_no_such_series");
    final List<Metric> tick = firstTick(names);
    final PromText scrape = PromText.parse(get(server.publicUrl("/metrics")).body());

    // Every sample /metrics has for the requested names arrives, and nothing else.
    final List<String> expected = new ArrayList<>();
    for (PromText.Sample s : scrape.samples) {
      if (selected(names, s.name())) {
        expected.add(key(s.name(), s.labels()) + " " + s.value());
      }
    }
    final List<String> streamed = new ArrayList<>();
    for (Metric m : tick) {
      streamed.add(key(m.getName(), m.getLabelsMap()) + " " + m.getValue());
    }
    assertThat(streamed).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(streamed)
        .contains(
            "inferencecache_server_up{} 1.0",
            "inferencecache_lookup_route_calls_total{hint_used=true,model="
                + MODEL
                + ",reason_code=PREFIX_MATCH} 1.0",
            "inferencecache_lookup_route_latency_seconds_count{model=" + MODEL + "} 1.0",
            "inferencecache_lookup_route_latency_seconds_bucket{le=+Inf,model=" + MODEL + "} 1.0",
            "inferencecache_snapshot_auth_total{result=unauth} 1.0");
    assertThat(streamed)
        .anyMatch(s -> s.startsWith("inferencecache_lookup_route_latency_seconds_sum{"));
    assertThat(streamed).anyMatch(s -> s.startsWith("inferencecache_grpc_connections{} "));
    assertThat(tick)
        .filteredOn(m -> m.getName().equals("inferencecache_lookup_route_calls_total"))
        .allMatch(m -> m.getType().equals("counter"));
    assertThat(tick)
        .filteredOn(m -> m.getName().startsWith("inferencecache_lookup_route_latency_seconds"))
        .allMatch(m -> m.getType().equals("histogram"));
  }

  @Test
  void anOversizedHashIsDroppedAndCountedOnMetricsAndStreamMetrics() throws Exception {
    final CacheStateUpdate update =
        CacheStateUpdate.newBuilder()
            .setReplicaId("vllm-1")
            .setModelId(MODEL)
            .setTenantId("team-d")
            .setHashScheme("vllm")
            .addPrefixes(
                PrefixEntry.newBuilder()
                    .setPrefixHash(ByteString.copyFrom(new byte[300]))
                    .setTokenCount(16))
            .addPrefixes(chain())
            .build();
    assertThat(report(update, update).getAccepted()).isTrue();
    assertThat(server.index().totalEntries()).isEqualTo(8);
    final String series = "inferencecache_ingest_entries_dropped_total";
    assertThat(
            PromText.parse(get(server.publicUrl("/metrics")).body())
                .value(series, Map.of("reason", "hash_too_long")))
        .isEqualTo(2.0);
    assertThat(firstTick(List.of(series)))
        .extracting(m -> key(m.getName(), m.getLabelsMap()) + " " + m.getValue())
        .containsExactlyInAnyOrder(
            series + "{reason=hash_too_long} 2.0", series + "{reason=chain_length_mismatch} 0.0");
  }

  /** The samples of the first StreamMetrics tick for {@code names} (waits for the second). */
  private List<Metric> firstTick(final List<String> names) {
    final List<Metric> got = new CopyOnWriteArrayList<>();
    InferenceCacheGrpc.newStub(channel)
        .streamMetrics(
            StreamMetricsRequest.newBuilder().addAllNames(names).build(),
            new StreamObserver<>() {
              @Override
              public void onNext(final Metric m) {
                got.add(m);
              }

              @Override
              public void onError(final Throwable t) {}

              @Override
              public void onCompleted() {}
            });
    // Two ticks: the first one complete, and the values settled (nothing moves in between).
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> got.stream().map(Metric::getTimestampUs).distinct().count() >= 2);
    final long first = got.get(0).getTimestampUs();
    return got.stream().filter(m -> m.getTimestampUs() == first).toList();
  }

  private static boolean selected(final List<String> names, final String sample) {
    for (String n : names) {
      if (sample.equals(n)
          || sample.equals(n + "_bucket")
          || sample.equals(n + "_sum")
          || sample.equals(n + "_count")) {
        return true;
      }
    }
    return false;
  }

  private static String key(final String name, final Map<String, String> labels) {
    final StringBuilder sb = new StringBuilder(name).append('{');
    boolean first = true;
    for (Map.Entry<String, String> e : new TreeMap<>(labels).entrySet()) {
      if (!first) {
        sb.append(',');
      }
      first = false;
      sb.append(e.getKey()).append('=').append(e.getValue());
    }
    return sb.append('}').toString();
  }
}
