package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.call;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.Executables;
import io.inferencecache.controlplane.support.FakeApiServer;
import io.inferencecache.controlplane.support.PrometheusProcess;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.awaitility.Awaitility;
import org.awaitility.core.ThrowingRunnable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The shipped alert rules and dashboard against the real tools: {@code promtool} checks and unit
 * tests the rules, and Debian's Prometheus, scraping a live server under light traffic, evaluates
 * every rule without error and returns data for every dashboard query that reads server series (the
 * controller's are {@code ControllerObservabilityIT}'s).
 */
@Timeout(240)
class ObservabilityIT {
  private static final String SA =
      "system:serviceaccount:inference-cache-system:inference-cache-controller-manager";
  static final String NAMESPACE = "inference-cache-system";
  private static final String MODEL = "llama-3.1-8b";
  private static final String BEARER = "Bearer controller";

  /** Queries over series every server exports (not the controller's, not replication's). */
  private static final Predicate<String> SERVER_ONLY =
      e ->
          !ObservabilityFiles.readsController(e)
              && !ObservabilityFiles.readsReplication(e)
              && !ObservabilityFiles.readsSubscriber(e);

  private static String run(final Path dir, final String... command) throws Exception {
    final Process p =
        new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    final String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(String.join(" ", command) + "\n" + out).isZero();
    return out;
  }

  @Test
  void promtoolChecksTheRulesAndPassesTheirUnitTests() throws Exception {
    final String promtool = Executables.onPath("promtool", "prometheus").toString();
    assertThat(
            run(
                ObservabilityFiles.ALERTS,
                promtool,
                "check",
                "rules",
                ObservabilityFiles.RULES.toString()))
        .contains("SUCCESS: " + ObservabilityFiles.alerts().size() + " rules found");
    assertThat(
            run(
                ObservabilityFiles.ALERTS,
                promtool,
                "test",
                "rules",
                ObservabilityFiles.RULE_TESTS.toString()))
        .contains("SUCCESS");
  }

  @Test
  void aLiveServerFeedsEveryDashboardQueryAndEveryAlertRule() throws Exception {
    try (FakeApiServer api =
            new FakeApiServer()
                .token(
                    "controller", SA, "inferencecache.io/controller", "inferencecache.io/policy");
        TestServer server =
            TestServer.start(
                ServeOverrides.NONE.allowing(SA),
                "kubernetes:\n  apiServerUrl: " + api.url() + "\nindex:\n  maxEntries: 200\n")) {
      final ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
      final Traffic traffic = new Traffic(server, channel);
      try (PrometheusProcess prometheus = PrometheusProcess.start(prometheusConfig(server))) {
        traffic.setUp();
        final ScheduledExecutorService load = Executors.newSingleThreadScheduledExecutor();
        load.scheduleWithFixedDelay(traffic::round, 0, 250, TimeUnit.MILLISECONDS);
        try {
          assertThat(ObservabilityFiles.dashboardQueries().values().stream().filter(SERVER_ONLY))
              .hasSizeGreaterThan(20);
          assertDashboardQueriesReturnData(
              prometheus,
              SERVER_ONLY,
              () -> assertThat(traffic.failure.get()).as("traffic").isNull());
          assertEveryRuleIsValidAndItsServerSeriesExist(prometheus);
          assertReplicationAlertsFindNothingWithReplicationOff(prometheus);
          assertPrometheusEvaluatesEveryRuleGroup(prometheus);
          assertThat(traffic.failure.get()).as("traffic").isNull();
        } finally {
          load.shutdownNow();
          load.awaitTermination(10, TimeUnit.SECONDS);
        }
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  private static String prometheusConfig(final TestServer server) {
    final String target = server.publicUrl("").replace("http://", "");
    return "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        + "rule_files:\n  - "
        + ObservabilityFiles.RULES
        + "\n"
        + "scrape_configs:\n  - job_name: inference-cache-server\n"
        + "    static_configs:\n      - targets: ['"
        + target
        + "']\n"
        + "        labels: {namespace: "
        + NAMESPACE
        + "}\n";
  }

  /**
   * Waits (120 s) until every dashboard query {@code which} selects answers with data, the
   * variables set for {@link #NAMESPACE}; {@code healthy} asserts the load is still fine each time.
   */
  static void assertDashboardQueriesReturnData(
      final PrometheusProcess prometheus,
      final Predicate<String> which,
      final ThrowingRunnable healthy) {
    final Map<String, String> queries = new TreeMap<>();
    ObservabilityFiles.dashboardQueries()
        .forEach(
            (title, expr) -> {
              if (which.test(expr)) {
                queries.put(title, ObservabilityFiles.substitute(expr, NAMESPACE, "15s"));
              }
            });
    assertThat(queries).isNotEmpty();
    Awaitility.await("every dashboard query returns data")
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              healthy.run();
              final List<String> empty = new ArrayList<>();
              for (final Map.Entry<String, String> q : queries.entrySet()) {
                final JsonNode r = prometheus.query(q.getValue());
                assertThat(r.path("status").asText())
                    .as(q.getKey() + ": " + q.getValue() + " -> " + r)
                    .isEqualTo("success");
                if (r.at("/data/result").isEmpty()) {
                  empty.add(q.getKey() + ": " + q.getValue());
                }
              }
              assertThat(empty).as("dashboard queries without data").isEmpty();
            });
  }

  private static void assertEveryRuleIsValidAndItsServerSeriesExist(
      final PrometheusProcess prometheus) throws Exception {
    for (final ObservabilityFiles.Alert alert : ObservabilityFiles.alerts()) {
      final JsonNode r = prometheus.query(alert.expr());
      assertThat(r.path("status").asText()).as(alert.name() + " -> " + r).isEqualTo("success");
      for (final String series : alert.serverSeries()) {
        assertThat(
                prometheus
                    .query("count(" + series + "{namespace=\"" + NAMESPACE + "\"})")
                    .at("/data/result"))
            .as(alert.name() + " reads " + series + ", which the live server exports")
            .isNotEmpty();
      }
    }
  }

  /**
   * {@code replication.natsUrl} is empty here: the server exports no replication series at all, so
   * no replication alert's expression returns anything.
   */
  private static void assertReplicationAlertsFindNothingWithReplicationOff(
      final PrometheusProcess prometheus) throws Exception {
    assertThat(
            prometheus
                .query(
                    "count({__name__=~\"" + ObservabilityFiles.REPLICATION_SERIES_PREFIX + ".*\"})")
                .at("/data/result"))
        .as("replication series of a server with replication off")
        .isEmpty();
    int checked = 0;
    for (final ObservabilityFiles.Alert alert : ObservabilityFiles.alerts()) {
      if (ObservabilityFiles.readsReplication(alert.expr())) {
        assertThat(prometheus.query(alert.expr()).at("/data/result"))
            .as(alert.name() + " with replication off")
            .isEmpty();
        checked++;
      }
    }
    assertThat(checked).as("replication alerts").isGreaterThanOrEqualTo(6);
  }

  private static void assertPrometheusEvaluatesEveryRuleGroup(final PrometheusProcess prometheus) {
    Awaitility.await("Prometheus evaluated every rule once")
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              final List<JsonNode> groups = prometheus.ruleGroups();
              assertThat(groups).as(prometheus.log()).hasSize(ObservabilityFiles.groupCount());
              for (final JsonNode g : groups) {
                for (final JsonNode rule : g.path("rules")) {
                  assertThat(rule.path("health").asText())
                      .as(rule.path("name").asText() + " " + rule.path("lastError").asText())
                      .isEqualTo("ok");
                }
              }
            });
  }

  /** Light, steady traffic that makes every series of the dashboard move. */
  private static final class Traffic {
    private final TestServer server;
    private final ManagedChannel channel;
    private final InferenceCacheGrpc.InferenceCacheBlockingStub stub;
    final AtomicReference<Exception> failure = new AtomicReference<>();
    private int round;

    Traffic(final TestServer server, final ManagedChannel channel) {
      this.server = server;
      this.channel = channel;
      this.stub = InferenceCacheGrpc.newBlockingStub(channel);
    }

    private static ByteString hash(final int chain, final int block) {
      return ByteString.copyFrom(
          new byte[] {
            9, (byte) (chain >>> 16), (byte) (chain >>> 8), (byte) chain, 0, (byte) block
          });
    }

    /** A policy with a tenant quota, and one update with a hash over the 256-byte limit. */
    void setUp() throws Exception {
      final var pushed =
          call(
              "POST",
              server.snapshotUrl("/policy"),
              "{\"version\":7,\"policies\":[{\"namespace\":\"team-q\"}],"
                  + "\"tenants\":[{\"tenantID\":\"team-q\",\"maxIndexEntries\":4}]}",
              BEARER);
      assertThat(pushed.statusCode()).as(pushed.body()).isEqualTo(204);
      report(
          update("team-a", "vllm-0")
              .addPrefixes(
                  PrefixEntry.newBuilder()
                      .setPrefixHash(ByteString.copyFrom(new byte[257]))
                      .setTokenCount(64))
              .build());
    }

    private static CacheStateUpdate.Builder update(final String tenant, final String replica) {
      return CacheStateUpdate.newBuilder()
          .setTenantId(tenant)
          .setModelId(MODEL)
          .setReplicaId(replica)
          .setHashScheme("vllm");
    }

    private void report(final CacheStateUpdate u) throws Exception {
      assertThat(CacheStateReports.send(channel, 10, u).getAccepted()).isTrue();
    }

    private LookupRouteRequest lookup(final String tenant, final int chain, final int blocks) {
      final LookupRouteRequest.Builder q =
          LookupRouteRequest.newBuilder()
              .setTenantId(tenant)
              .setModelId(MODEL)
              .setHashScheme("vllm");
      for (int b = 0; b < blocks; b++) {
        q.addBlockHashes(hash(chain, b)).addBlockTokenCounts(16);
      }
      return q.build();
    }

    /**
     * One round: a new 4-block chain in team-a (the global cap of 200 soon evicts), five prefixes
     * in team-q (its quota of 4 evicts), an evicted-prefix event, lookups that hit and miss, and
     * bridge calls with and without a token.
     */
    void round() {
      if (failure.get() != null) {
        return;
      }
      try {
        roundOnce();
      } catch (Exception e) {
        failure.compareAndSet(null, e);
      }
    }

    private void roundOnce() throws Exception {
      final int r = round++;
      final PrefixEntry.Builder chain = PrefixEntry.newBuilder();
      for (int b = 0; b < 4; b++) {
        chain.addBlockHashes(hash(r, b)).addBlockTokenCounts(16);
      }
      report(update("team-a", "vllm-" + (r % 3)).addPrefixes(chain).build());
      final CacheStateUpdate.Builder quota = update("team-q", "vllm-0");
      for (int i = 0; i < 5; i++) {
        quota.addPrefixes(
            PrefixEntry.newBuilder()
                .setPrefixHash(hash(1_000_000 + r * 5 + i, 0))
                .setTokenCount(64));
      }
      report(quota.build());
      stub.withDeadlineAfter(5, TimeUnit.SECONDS)
          .publishEvent(
              CacheEvent.newBuilder()
                  .setType(CacheEvent.Type.PREFIX_EVICTED)
                  .setTenantId("team-a")
                  .setModelId(MODEL)
                  .setReplicaId("vllm-" + (r % 3))
                  .setPrefixHash(hash(r, 0))
                  .build());
      for (int i = 0; i < 10; i++) {
        stub.withDeadlineAfter(5, TimeUnit.SECONDS)
            .lookupRoute(lookup("team-a", Math.max(0, r - i), 4)); // hits while the chain is held
        stub.withDeadlineAfter(5, TimeUnit.SECONDS)
            .lookupRoute(lookup("team-a", -1 - i, 4)); // never reported: a miss
      }
      call("GET", server.snapshotUrl("/snapshot"), null, BEARER);
      call("GET", server.snapshotUrl("/snapshot"), null, null); // 401: unauth
      call("POST", server.snapshotUrl("/probe"), "{}", BEARER);
    }
  }
}
