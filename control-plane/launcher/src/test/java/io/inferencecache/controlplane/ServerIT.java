package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.call;
import static io.inferencecache.controlplane.support.Http.get;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.PromText;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.engine.Outcome;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The whole server (authentication off) on ephemeral loopback ports. */
@Timeout(120)
class ServerIT {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final String MODEL = "llama-3.1-8b";
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    server =
        TestServer.start(
            ServeOverrides.NONE.insecure(),
            "index:\n  maxEntries: ${IC_TEST_UNSET_VARIABLE:-20000}\n  sweepInterval: 1h\n");
  }

  @AfterAll
  static void stop() throws Exception {
    server.close();
  }

  private static byte[] hash(final int i) {
    return new byte[] {(byte) i, 1, 2, 3, 4, 5, 6, (byte) (i >> 8)};
  }

  private static void ingest(final String tenant, final String replica, final int block) {
    server
        .index()
        .ingest(
            new IngestUpdate(
                replica,
                MODEL,
                tenant,
                "vllm",
                0,
                "",
                List.of(IngestPrefix.chain(List.of(hash(block)), new int[] {16}, 0)),
                new IngestStats(2048, 0.8f, 0.25f, 600, 1000)));
  }

  private static Outcome lookupRoute(final String tenant, final int block) {
    final LookupResult result = new LookupResult();
    server
        .index()
        .lookupAndClassify(
            new LookupRequest()
                .reset()
                .keys(tenant, MODEL, "vllm", "")
                .addBlockHash(hash(block))
                .addBlockTokenCount(16),
            result);
    return result.outcome();
  }

  @Test
  void healthAndReadinessAnswerOk() throws Exception {
    for (final String path : List.of("/healthz", "/readyz")) {
      final HttpResponse<String> r = get(server.publicUrl(path));
      assertThat(r.statusCode()).isEqualTo(200);
      assertThat(r.body()).isEqualTo("ok\n");
    }
    assertThat(server.wiring().readiness().ready()).isTrue();
  }

  @Test
  void eachListenerServesOnlyItsOwnPaths() throws Exception {
    for (final String path : List.of("/snapshot", "/policy", "/probe", "/", "/healthz/")) {
      final HttpResponse<String> r = get(server.publicUrl(path));
      assertThat(r.statusCode()).as(path).isEqualTo(404);
      assertThat(r.body()).isEqualTo("404 page not found\n");
    }
    for (final String path : List.of("/healthz", "/readyz", "/metrics", "/")) {
      assertThat(get(server.snapshotUrl(path)).statusCode()).as(path).isEqualTo(404);
    }
  }

  @Test
  void snapshotIsGetOnly() throws Exception {
    for (final String method : List.of("POST", "PUT", "DELETE", "HEAD", "PATCH")) {
      final HttpResponse<String> r = call(method, server.snapshotUrl("/snapshot"), null, null);
      assertThat(r.statusCode()).as(method).isEqualTo(405);
      assertThat(r.headers().firstValue("Allow")).hasValue("GET");
    }
    final HttpResponse<String> r = get(server.snapshotUrl("/snapshot"));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(r.body()).endsWith("\n");
  }

  @Test
  void snapshotMapsIndexRowsAndHidesTheProbeTenant() throws Exception {
    ingest("snap-tenant", "vllm-0", 1);
    ingest("snap-tenant", "vllm-0", 2);
    assertThat(call("POST", server.snapshotUrl("/probe"), probe("b1"), null).statusCode())
        .isEqualTo(200);
    final JsonNode root = MAPPER.readTree(get(server.snapshotUrl("/snapshot")).body());
    JsonNode row = null;
    for (final JsonNode r : root.get("replicas")) {
      assertThat(r.get("replicaId").asText()).doesNotStartWith("__probe-");
      if (r.path("tenant").asText().equals("snap-tenant")) {
        row = r;
      }
    }
    assertThat(row).isNotNull();
    assertThat(row.get("replicaId").asText()).isEqualTo("vllm-0");
    assertThat(row.get("cacheMemoryBytes").asLong()).isEqualTo(2048);
    assertThat(row.get("hitRate").toString()).isEqualTo("0.8");
    assertThat(row.get("pressure").toString()).isEqualTo("0.25");
    assertThat(row.get("prefixCount").asLong()).isEqualTo(2);
    assertThat(row.get("statsReported").asBoolean()).isTrue();
    assertThat(row.get("t2HitTokens").asLong()).isEqualTo(600);
    assertThat(row.get("lastUpdate").asText()).endsWith("Z");
    for (final JsonNode t : root.get("tenants")) {
      assertThat(t.get("tenantId").asText()).isNotEqualTo(CacheIndex.RESERVED_TENANT);
    }
  }

  @Test
  void policyAcceptsPostAndPutAndRejectsBadBodies() throws Exception {
    final String url = server.snapshotUrl("/policy");
    final HttpResponse<String> wrong = call("DELETE", url, null, null);
    assertThat(wrong.statusCode()).isEqualTo(405);
    assertThat(wrong.headers().firstValue("Allow")).hasValue("GET, HEAD, POST, PUT");
    final String ok = "{\"version\":7,\"policies\":[{\"namespace\":\"team-z\"}]}";
    for (final String method : List.of("POST", "PUT")) {
      final HttpResponse<String> r = call(method, url, ok, null);
      assertThat(r.statusCode()).isEqualTo(204);
      assertThat(r.body()).isEmpty();
    }
    final HttpResponse<String> held = call("GET", url, null, null);
    assertThat(held.statusCode()).isEqualTo(200);
    assertThat(held.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("application/json");
    assertThat(held.body()).isEqualTo(ok);
    final HttpResponse<String> version = call("POST", url, "{\"version\":99}", null);
    assertThat(version.statusCode()).isEqualTo(400);
    assertThat(version.body()).isEqualTo("unsupported policy snapshot version\n");
    assertThat(version.headers().firstValue("Content-Type").orElseThrow())
        .startsWith("text/plain")
        .contains("charset=utf-8");
    assertThat(call("POST", url, "{\"version\":2}", null).statusCode()).isEqualTo(400);
    final HttpResponse<String> garbage = call("POST", url, "not json", null);
    assertThat(garbage.statusCode()).isEqualTo(400);
    assertThat(garbage.body()).startsWith("decode policy snapshot: ").endsWith("\n");
    final HttpResponse<String> unknown = call("POST", url, "{\"version\":7,\"x\":1}", null);
    assertThat(unknown.body()).isEqualTo("decode policy snapshot: json: unknown field \"x\"\n");
    final HttpResponse<String> big =
        call("POST", url, "{\"version\":7,\"policies\":[" + " ".repeat(1 << 20) + "]}", null);
    assertThat(big.statusCode()).isEqualTo(400);
    assertThat(big.body()).isEqualTo("decode policy snapshot: http: request body too large\n");
  }

  @Test
  void policyPushChangesTheIndexAnswer() throws Exception {
    ingest("quota-tenant", "vllm-q", 40);
    assertThat(lookupRoute("quota-tenant", 40)).isEqualTo(Outcome.PREFIX_MATCH);
    final HttpResponse<String> r =
        call(
            "POST",
            server.snapshotUrl("/policy"),
            "{\"version\":7,\"policies\":[{\"namespace\":\"quota-tenant\",\"routingFloorScore\":0,"
                + "\"affinityRouting\":false}],\"tenants\":[{\"tenantID\":\"quota-tenant\","
                + "\"maxIndexEntries\":0}]}",
            null);
    assertThat(r.statusCode()).isEqualTo(204);
    final var resolved = server.index().policyStore().resolve("quota-tenant");
    assertThat(resolved.routingFloorScore()).isZero();
    assertThat(resolved.affinityRouting()).isFalse();
    // The quota bites at the tenant's next ingest: every key goes, the answer changes.
    ingest("quota-tenant", "vllm-q", 41);
    assertThat(lookupRoute("quota-tenant", 40)).isNotEqualTo(Outcome.PREFIX_MATCH);
    // A v5 body without affinityRouting is normalized to the default (on).
    call(
        "POST",
        server.snapshotUrl("/policy"),
        "{\"version\":5,\"policies\":[{\"namespace\":\"quota-tenant\"}]}",
        null);
    assertThat(server.index().policyStore().resolve("quota-tenant").affinityRouting()).isTrue();
  }

  private static String probe(final String backend) {
    return "{\"backend\":\"" + backend + "\",\"model\":\"" + MODEL + "\",\"hashScheme\":\"vllm\"}";
  }

  @Test
  void probePassesAndValidatesInOrder() throws Exception {
    final String url = server.snapshotUrl("/probe");
    for (final String method : List.of("GET", "PUT", "DELETE")) {
      final HttpResponse<String> r = call(method, url, null, null);
      assertThat(r.statusCode()).isEqualTo(405);
      assertThat(r.headers().firstValue("Allow")).hasValue("POST");
    }
    final HttpResponse<String> ok = call("POST", url, probe("vllm-0"), null);
    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.headers().firstValue("Content-Type")).hasValue("application/json");
    assertThat(ok.body())
        .isEqualTo(
            "{\"backend\":\"vllm-0\",\"ingest\":\"ok\",\"routing\":\"ok\",\"t2\":\"skipped\"}\n");
    assertThat(call("POST", url, "{\"backend\":\"b\",\"bogus\":1}", null).body())
        .isEqualTo("decode probe request: json: unknown field \"bogus\"\n");
    assertThat(call("POST", url, "{\"backend\":\"b\"} x", null).body())
        .isEqualTo("probe request body has trailing content after the first JSON value\n");
    assertThat(call("POST", url, "{\"backend\":\"b\",\"model\":\"m\"}", null).body())
        .isEqualTo("probe request missing required field (backend, model, hashScheme)\n");
    assertThat(call("POST", url, "{bad", null).body()).startsWith("decode probe request: ");
    final HttpResponse<String> big =
        call("POST", url, "{\"backend\":\"" + "b".repeat(5000) + "\"}", null);
    assertThat(big.statusCode()).isEqualTo(400);
    assertThat(big.body()).isEqualTo("decode probe request: http: request body too large\n");
    assertThat(server.index().reservedEntries()).isZero();
  }

  @Test
  void metricsExposeEverySeriesAfterTraffic() throws Exception {
    ingest("metrics-tenant", "vllm-m", 70);
    server.wiring().routeMetrics().record(MODEL, "PREFIX_MATCH", true, 300_000);
    server.wiring().routeMetrics().record(MODEL, "NO_HINT", false, 0);
    call(
        "POST",
        server.snapshotUrl("/policy"),
        "{\"version\":7,\"tenants\":[{\"tenantID\":\"evict-tenant\",\"maxIndexEntries\":1}]}",
        null);
    ingest("evict-tenant", "r", 80);
    ingest("evict-tenant", "r", 81);
    final HttpResponse<String> r = get(server.publicUrl("/metrics"));
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElseThrow()).startsWith("text/plain");
    final PromText p = PromText.parse(r.body());
    assertThat(p.types)
        .containsEntry("inferencecache_server_up", "gauge")
        .containsEntry("inferencecache_server_grpc_tls_enabled", "gauge")
        .containsEntry("inferencecache_index_entries", "gauge")
        .containsEntry("inferencecache_lookup_route_calls_total", "counter")
        .containsEntry("inferencecache_lookup_route_latency_seconds", "histogram")
        .containsEntry("inferencecache_tenant_evictions_total", "counter");
    assertThat(p.value("inferencecache_server_up", Map.of())).isEqualTo(1.0);
    assertThat(p.value("inferencecache_server_grpc_tls_enabled", Map.of())).isEqualTo(0.0);
    assertThat(p.value("inferencecache_index_entries", Map.of("model", MODEL))).isPositive();
    assertThat(
            p.value(
                "inferencecache_lookup_route_calls_total",
                Map.of("model", MODEL, "reason_code", "PREFIX_MATCH", "hint_used", "true")))
        .isEqualTo(1.0);
    assertThat(
            p.value(
                "inferencecache_lookup_route_calls_total",
                Map.of("model", MODEL, "reason_code", "NO_HINT", "hint_used", "false")))
        .isEqualTo(1.0);
    assertThat(p.named("inferencecache_lookup_route_latency_seconds_bucket"))
        .extracting(s -> s.labels().get("le"))
        .containsExactly(
            "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05",
            "0.1", "+Inf");
    assertThat(
            p.value(
                "inferencecache_lookup_route_latency_seconds_bucket",
                Map.of("model", MODEL, "le", "0.0001")))
        .isEqualTo(1.0);
    assertThat(
            p.value(
                "inferencecache_lookup_route_latency_seconds_bucket",
                Map.of("model", MODEL, "le", "0.0005")))
        .isEqualTo(2.0);
    assertThat(p.value("inferencecache_lookup_route_latency_seconds_count", Map.of("model", MODEL)))
        .isEqualTo(2.0);
    assertThat(p.value("inferencecache_lookup_route_latency_seconds_sum", Map.of("model", MODEL)))
        .isCloseTo(0.0003, org.assertj.core.data.Offset.offset(1e-12));
    assertThat(
            p.value(
                "inferencecache_tenant_evictions_total",
                Map.of("tenant_id", "evict-tenant", "reason", "over_entries")))
        .isPositive();
    assertThat(p.types.keySet()).anyMatch(n -> n.startsWith("jvm_"));
    assertThat(p.types.keySet()).anyMatch(n -> n.startsWith("process_"));
    // Authentication is off: its counters never move, so their families are absent.
    assertThat(p.types).doesNotContainKey("inferencecache_snapshot_auth_total");
  }
}
