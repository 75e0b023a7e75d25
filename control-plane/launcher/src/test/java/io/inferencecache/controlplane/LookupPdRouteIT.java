package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.call;
import static io.inferencecache.controlplane.support.Http.get;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.server.resources.PdTopologyEndpoint;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.PromText;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupPDRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupPDRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * LookupPDRoute end to end over real gRPC on loopback: topologies POSTed to {@code /pd-topologies}
 * (and read back), chains and stats of 8 prefill and 8 decode replicas reported with
 * ReportCacheState, then the pair, the decode-local case, an unknown and an ambiguous topology, an
 * empty pool, bad input, a legacy (upstream) request and the metrics.
 */
@Timeout(120)
class LookupPdRouteIT {
  private static final String MODEL = "llama-3.1-8b";
  private static final String TENANT = "team-pd";
  private static final int BLOCKS = 64;
  private static TestServer server;
  private static ManagedChannel channel;
  private static InferenceCacheGrpc.InferenceCacheBlockingStub stub;

  @BeforeAll
  static void start() throws Exception {
    server = TestServer.start(ServeOverrides.NONE.insecure(), null);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
    stub = InferenceCacheGrpc.newBlockingStub(channel).withDeadlineAfter(30, TimeUnit.SECONDS);
    final HttpResponse<String> pushed =
        call("POST", server.snapshotUrl("/pd-topologies"), topologies(), null);
    assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(204);
  }

  /**
   * Reports every replica afresh before each test: a new stats report starts the count of answers
   * that named a replica since its last one (the router's own load estimate), so each test sees an
   * idle fleet.
   */
  @BeforeEach
  void report() {
    // 8 prefill and 8 decode replicas, pf-i and dc-i on node-i; pf-3 holds 48 of the prompt's 64
    // blocks, pf-5 16, dc-6 60; everyone reports its stats (pressure 0.1: no queue).
    final List<CacheStateUpdate> updates = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      for (final String role : List.of("pf-", "dc-")) {
        final int held = role.equals("pf-") ? (i == 3 ? 48 : i == 5 ? 16 : 0) : (i == 6 ? 60 : 0);
        final CacheStateUpdate chain =
            CacheStateReports.chain(role + i, MODEL, TENANT, held, LookupPdRouteIT::hash);
        updates.add(
            (held > 0 ? chain.toBuilder() : chain.toBuilder().clearPrefixes())
                .setStats(ReplicaStats.newBuilder().setPressure(0.1f).setHitRate(0.5f))
                .build());
      }
    }
    assertThat(
            CacheStateReports.send(channel, 10, updates.toArray(new CacheStateUpdate[0]))
                .getAccepted())
        .isTrue();
  }

  @AfterAll
  static void stop() throws Exception {
    channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  private static ByteString hash(final int i) {
    return ByteString.copyFrom(new byte[] {9, 9, 4, 2, 0, 0, (byte) (i >>> 8), (byte) i});
  }

  private static String members(final String prefix, final String nodePrefix) {
    final StringBuilder b = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      b.append(i == 0 ? "" : ",")
          .append("{\"replicaId\":\"")
          .append(prefix)
          .append(i)
          .append("\",\"node\":\"")
          .append(nodePrefix)
          .append(i)
          .append("\"}");
    }
    return b.toString();
  }

  private static String topology(
      final String ns, final String name, final int decodeLocal, final String decodeMembers) {
    return "{\"namespace\":\""
        + ns
        + "\",\"name\":\""
        + name
        + "\",\"transport\":\"NIXL\",\"decodeLocalPrefillTokens\":"
        + decodeLocal
        + ",\"prefillPools\":[{\"name\":\"prefill\",\"acceleratorType\":\"h100\",\"members\":["
        + members("pf-", "node-")
        + "]}],\"decodePools\":[{\"name\":\"decode\",\"acceleratorType\":\"h100\",\"members\":["
        + decodeMembers
        + "]}],\"acceleratorTypes\":[{\"name\":\"h100\",\"vendor\":\"nvidia\",\"model\":\"H100\"}]}";
  }

  private static String topologies() {
    final String dc = members("dc-", "node-");
    return "{\"version\":1,\"topologies\":["
        + String.join(
            ",",
            topology(TENANT, "llama-pd", 0, dc),
            topology("team-local", "local", 512, dc),
            topology("team-local", "ghosts", 0, "{\"replicaId\":\"dc-ghost\"}"),
            topology("team-two", "a", 0, dc),
            topology("team-two", "b", 0, dc))
        + "]}";
  }

  private static LookupPDRouteRequest.Builder request(final String tenant, final int blocks) {
    final LookupPDRouteRequest.Builder q =
        LookupPDRouteRequest.newBuilder()
            .setModelId(MODEL)
            .setTenantId(tenant)
            .setHashScheme("vllm");
    for (int i = 0; i < blocks; i++) {
      q.addBlockHashes(hash(i)).addBlockTokenCounts(16);
    }
    return q;
  }

  private static void assertNoPair(final LookupPDRouteResponse r, final String reason) {
    assertThat(r.getReasonCode()).isEqualTo(reason);
    assertThat(r.getPrefillReplicaId()).isEmpty();
    assertThat(r.getDecodeReplicaId()).isEmpty();
    assertThat(r.getMessage()).isNotEmpty();
  }

  @Test
  void theCachedPrefillReplicaIsPairedWithTheDecodeReplicaOnItsNode() {
    final LookupPDRouteResponse r = stub.lookupPDRoute(request(TENANT, BLOCKS).build());
    assertThat(r.getReasonCode()).isEqualTo("PD_PAIR");
    assertThat(r.getPrefillReplicaId()).isEqualTo("pf-3");
    assertThat(r.getPrefillMatchedTokens()).isEqualTo(48 * 16);
    assertThat(r.getDecodeReplicaId()).isEqualTo("dc-3");
    assertThat(r.getPrefillPool()).isEqualTo("prefill");
    assertThat(r.getDecodePool()).isEqualTo("decode");
    assertThat(r.getTransportHint()).isEqualTo("NIXL");
    assertThat(r.getPdTopology()).isEqualTo("team-pd/llama-pd");
    assertThat(r.getMessage()).isEmpty();
    // The same with the ref spelled out (dc-3 now carries one answer more than the other decode
    // replicas, so the decode side may move; the prefill side does not).
    final LookupPDRouteResponse byRef =
        stub.lookupPDRoute(request(TENANT, BLOCKS).setPdTopologyRef("team-pd/llama-pd").build());
    assertThat(byRef.getPrefillReplicaId()).isEqualTo("pf-3");
  }

  @Test
  void aSmallUncachedPartIsPrefilledOnTheDecodeReplica() {
    // 64 uncached tokens on dc-6 < the 512 of team-local/local, and cheaper there (6.4 ms of
    // prefill + its batch's stall) than 256 tokens on pf-3 (25.6 ms) and the transfer.
    final LookupPDRouteResponse r =
        stub.lookupPDRoute(request(TENANT, BLOCKS).setPdTopologyRef("team-local/local").build());
    assertThat(r.getReasonCode()).isEqualTo("PD_DECODE_LOCAL");
    assertThat(r.getPrefillReplicaId()).isEqualTo("dc-6").isEqualTo(r.getDecodeReplicaId());
    assertThat(r.getPrefillPool()).isEqualTo("decode");
  }

  @Test
  void anUnknownOrAmbiguousTopologyAndAnEmptyPoolFailOpen() {
    final LookupPDRouteResponse unknown =
        stub.lookupPDRoute(request(TENANT, BLOCKS).setPdTopologyRef("team-pd/nope").build());
    assertNoPair(unknown, "PD_TOPOLOGY_NOT_FOUND");
    assertThat(unknown.getTransportHint()).isEmpty();
    assertNoPair(stub.lookupPDRoute(request("team-none", 4).build()), "PD_TOPOLOGY_NOT_FOUND");
    assertNoPair(stub.lookupPDRoute(request("team-two", 4).build()), "PD_TOPOLOGY_AMBIGUOUS");
    final LookupPDRouteResponse empty =
        stub.lookupPDRoute(request(TENANT, BLOCKS).setPdTopologyRef("team-local/ghosts").build());
    assertNoPair(empty, "PD_POOL_EMPTY");
    assertThat(empty.getMessage()).contains("decode");
  }

  @Test
  void badInputIsNoHintWithAMessage() {
    final LookupPDRouteResponse malformed =
        stub.lookupPDRoute(request(TENANT, 2).addBlockHashes(hash(2)).build());
    assertNoPair(malformed, "NO_HINT");
    assertThat(malformed.getMessage()).contains("block_token_counts");
    final LookupPDRouteResponse badRef =
        stub.lookupPDRoute(request(TENANT, 2).setPdTopologyRef("llama-pd").build());
    assertNoPair(badRef, "NO_HINT");
    assertThat(badRef.getMessage()).contains("pd_topology_ref");
    assertNoPair(stub.lookupPDRoute(request(TENANT, 2).setPromptTokenCount(-5).build()), "NO_HINT");
  }

  @Test
  void anUpstreamRequestWithTheLegacyKeyAndNoSchemeIsRouted() {
    final LookupPDRouteResponse r =
        stub.lookupPDRoute(
            LookupPDRouteRequest.newBuilder()
                .setModelId(MODEL)
                .setTenantId(TENANT)
                .setPrefixHash(hash(47))
                .setPrefixTokenCount(48 * 16)
                .setPdTopologyRef("team-pd/llama-pd")
                .build());
    assertThat(r.getReasonCode()).isEqualTo("PD_PAIR");
    assertThat(r.getPrefillReplicaId()).isEqualTo("pf-3");
    assertThat(r.getDecodeReplicaId()).isEqualTo("dc-3");
  }

  @Test
  void theEndpointReadsBackWhatItHoldsAndTheMetricsCountTheCalls() throws Exception {
    final HttpResponse<String> held = get(server.snapshotUrl("/pd-topologies"));
    assertThat(held.statusCode()).isEqualTo(200);
    assertThat(held.body()).contains("\"team-pd\"").contains("\"crossGBps\":10.0");
    stub.lookupPDRoute(request(TENANT, BLOCKS).build());
    final PromText metrics = PromText.parse(get(server.publicUrl("/metrics")).body());
    assertThat(metrics.value("inferencecache_pd_route_total", Map.of("reason", "PD_PAIR")))
        .isGreaterThanOrEqualTo(1.0);
    assertThat(
            metrics.value(
                "inferencecache_pd_pool_replicas",
                Map.of(
                    "namespace", "team-pd",
                    "topology", "llama-pd",
                    "pool", "decode",
                    "role", "decode")))
        .isEqualTo(8.0);
    assertThat(metrics.types).containsEntry("inferencecache_pd_route_latency_seconds", "histogram");
  }

  @Test
  void theEndpointTakesPostAndPutRefusesBadBodiesAndOtherMethods() throws Exception {
    final String url = server.snapshotUrl("/pd-topologies");
    final HttpResponse<String> wrong = call("DELETE", url, null, null);
    assertThat(wrong.statusCode()).isEqualTo(405);
    assertThat(wrong.headers().firstValue("Allow")).hasValue("GET, HEAD, POST, PUT");
    final HttpResponse<String> bad =
        call(
            "PUT",
            url,
            "{\"version\":1,\"topologies\":[{\"namespace\":\"x\",\"name\":\"y\","
                + "\"prefillPools\":[{\"name\":\"p\",\"members\":[{\"node\":\"n\"}]}],"
                + "\"decodePools\":[{\"name\":\"d\"}]}]}",
            null);
    assertThat(bad.statusCode()).isEqualTo(400);
    assertThat(bad.body())
        .isEqualTo(
            "decode pd topologies: topologies[0].prefillPools[0].members[0].replicaId: must be a"
                + " non-empty string\n");
    final HttpResponse<String> big =
        call(
            "POST",
            url,
            "{\"version\":1,\"topologies\":["
                + " ".repeat(PdTopologyEndpoint.MAX_BODY_BYTES)
                + "]}",
            null);
    assertThat(big.statusCode()).isEqualTo(400);
    assertThat(big.body()).isEqualTo("decode pd topologies: http: request body too large\n");
    // A bad body changes nothing; HEAD answers the length of what GET would.
    final HttpResponse<String> head = call("HEAD", url, null, null);
    assertThat(head.statusCode()).isEqualTo(200);
    assertThat(get(url).body()).contains("\"llama-pd\"");
    assertThat(get(server.publicUrl("/pd-topologies")).statusCode()).isEqualTo(404);
    // PUT replaces the whole set, as POST does.
    final String held = get(url).body();
    assertThat(call("PUT", url, held, null).statusCode()).isEqualTo(204);
    assertThat(get(url).body()).isEqualTo(held);
  }
}
