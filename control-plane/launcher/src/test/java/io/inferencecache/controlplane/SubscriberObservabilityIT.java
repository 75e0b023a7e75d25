package io.inferencecache.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.inferencecache.controlplane.support.Executables;
import io.inferencecache.controlplane.support.PrometheusProcess;
import io.inferencecache.subscriber.KvEventSubscriber;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.fake.FakeEngine;
import io.inferencecache.subscriber.sink.GrpcUpdateSink;
import io.inferencecache.subscriber.sink.SubscriberUpdate;
import io.inferencecache.subscriber.sink.UpdateSink;
import java.io.OutputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The subscriber half of the alerts and the dashboard against the real tools: three in-process
 * subscribers on loopback HTTP ports scraped by Debian's Prometheus as pods of one namespace — e-0
 * receives a fake engine's events but its server is unreachable and its send buffer overflows, e-1
 * has no engine and no server, e-2 delivers to a sink that accepts everything. Every dashboard
 * query over subscriber series returns data, SubscriberDeliveryFailing's expression (its {@code
 * for} aside) selects exactly e-0 and e-1, and promtool finds nothing to warn about on the page.
 */
@Timeout(180)
class SubscriberObservabilityIT {
  private static final String NAMESPACE = ObservabilityIT.NAMESPACE;
  private static final String DEAD_SERVER = "127.0.0.1:1";

  private final List<AutoCloseable> open = new ArrayList<>();

  @AfterEach
  void closeAll() throws Exception {
    for (int i = open.size() - 1; i >= 0; i--) {
      open.get(i).close();
    }
  }

  /** Accepts everything at once: a sink that is always connected. */
  private static final class AcceptingSink implements UpdateSink {
    @Override
    public void report(final SubscriberUpdate update) {}

    @Override
    public void prefixEvicted(final byte[] prefixHash, final String adapterId, final long ts) {}

    @Override
    public void allCleared(final long timestampMicros) {}

    @Override
    public void stats(final StatsSample sample, final long timestampMicros) {}
  }

  private KvEventSubscriber subscriber(
      final String pod, final String engine, final UpdateSink sink) {
    final SubscriberConfig config =
        SubscriberConfig.builder()
            .replicaId(pod)
            .modelId("m")
            .tenantId(NAMESPACE)
            .engineEndpoint(engine)
            .server(DEAD_SERVER)
            .serverBufferUpdates(1)
            .window("10ms")
            .engineMetricsUrl("")
            .httpAddress("127.0.0.1:0")
            .build();
    final KvEventSubscriber s =
        sink == null ? new KvEventSubscriber(config) : new KvEventSubscriber(config, sink);
    open.add(s);
    s.start();
    return s;
  }

  private static String target(final KvEventSubscriber s) {
    return "127.0.0.1:" + s.httpAddress().getPort();
  }

  @Test
  void prometheusFindsTheSubscribersThatCannotDeliverAndFeedsTheSubscriberPanels()
      throws Exception {
    final FakeEngine engine =
        FakeEngine.builder().endpoint("tcp://127.0.0.1:*").blockSize(16).numBlocks(2).bind();
    open.add(engine);
    final KvEventSubscriber failing = subscriber("e-0", engine.endpoint(), null);
    final KvEventSubscriber orphan = subscriber("e-1", "tcp://127.0.0.1:1", null);
    final KvEventSubscriber healthy = subscriber("e-2", engine.endpoint(), new AcceptingSink());

    // The engine stores its prefix and evicts its last block, again and again, from this thread
    // (the
    // engine socket's): with a one-update buffer and no server, e-0 keeps dropping what it cannot
    // send.
    final GrpcUpdateSink sink = (GrpcUpdateSink) failing.sink();
    engine.awaitSubscriber(Duration.ofSeconds(5));
    await()
        .pollInSameThread()
        .pollInterval(Duration.ofMillis(100))
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              engine.publishStored();
              engine.publishBlockRemoved(FakeEngine.fakeBlockHash(1));
              return sink.counters().updatesDropped() + sink.counters().eventsDropped() > 2
                  && healthy.source().messagesReceived() > 0;
            });

    final String page = get("http://" + target(failing) + "/metrics");
    assertThat(page).contains("inferencecache_subscriber_deliveries_dropped_total");
    final Process promtool =
        new ProcessBuilder(
                Executables.onPath("promtool", "prometheus").toString(), "check", "metrics")
            .redirectErrorStream(true)
            .start();
    try (OutputStream in = promtool.getOutputStream()) {
      in.write(page.getBytes(StandardCharsets.UTF_8));
    }
    final String lint =
        new String(promtool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(promtool.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(lint).as("promtool check metrics output").isEmpty();

    final StringBuilder config =
        new StringBuilder(
            "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nrule_files:\n  - "
                + ObservabilityFiles.RULES
                + "\nscrape_configs:\n  - job_name: kvevent-subscriber\n    static_configs:\n");
    final String[] pods = {"e-0", "e-1", "e-2"};
    final KvEventSubscriber[] all = {failing, orphan, healthy};
    for (int i = 0; i < pods.length; i++) {
      config
          .append("      - targets: ['")
          .append(target(all[i]))
          .append("']\n        labels: {namespace: ")
          .append(NAMESPACE)
          .append(", pod: ")
          .append(pods[i])
          .append("}\n");
    }
    try (PrometheusProcess prometheus = PrometheusProcess.start(config.toString())) {
      assertThat(ObservabilityFiles.dashboardQueries().values().stream())
          .filteredOn(ObservabilityFiles::readsSubscriber)
          .hasSizeGreaterThanOrEqualTo(6);
      ObservabilityIT.assertDashboardQueriesReturnData(
          prometheus, ObservabilityFiles::readsSubscriber, () -> {});
      final ObservabilityFiles.Alert alert =
          ObservabilityFiles.alerts().stream()
              .filter(a -> a.name().equals("SubscriberDeliveryFailing"))
              .findFirst()
              .orElseThrow();
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> assertThat(pods(prometheus.query(alert.expr()))).containsExactly("e-0", "e-1"));
      // the drop branch on its own: e-0 keeps dropping while scraped (published from this thread)
      await()
          .pollInSameThread()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                engine.publishStored();
                engine.publishBlockRemoved(FakeEngine.fakeBlockHash(1));
                assertThat(
                        pods(
                            prometheus.query(
                                "increase(inferencecache_subscriber_deliveries_dropped_total[5m]) > 0")))
                    .containsExactly("e-0");
              });
      await("Prometheus evaluated the subscriber rule")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofSeconds(1))
          .untilAsserted(
              () -> {
                final List<JsonNode> rules = new ArrayList<>();
                for (final JsonNode g : prometheus.ruleGroups()) {
                  if (g.path("name").asText().equals(alert.group())) {
                    g.path("rules").forEach(rules::add);
                  }
                }
                assertThat(rules).hasSize(1);
                assertThat(rules.get(0).path("health").asText())
                    .as(rules.get(0).path("lastError").asText())
                    .isEqualTo("ok");
                assertThat(rules.get(0).path("state").asText()).isEqualTo("pending");
              });
    }
  }

  private static Set<String> pods(final JsonNode answer) {
    assertThat(answer.path("status").asText()).as(answer.toString()).isEqualTo("success");
    final Set<String> out = new TreeSet<>();
    answer.at("/data/result").forEach(r -> out.add(r.at("/metric/pod").asText()));
    return out;
  }

  private static String get(final String url) throws Exception {
    final HttpResponse<String> r =
        HttpClient.newHttpClient()
            .send(
                HttpRequest.newBuilder(URI.create(url)).build(),
                HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(200);
    return r.body();
  }
}
