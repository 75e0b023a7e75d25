package io.inferencecache.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.PrometheusProcess;
import io.inferencecache.controlplane.support.ServeProcess;
import io.inferencecache.natslocal.NatsServerExtension;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.servelocal.ServeChild;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.index.PrefixRecord;
import io.inferencecache.subscriber.sink.JetStreamUpdateSink;
import io.inferencecache.subscriber.sink.SubscriberUpdate;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.impl.Headers;
import io.nats.client.impl.NatsMessage;
import java.nio.ByteBuffer;
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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication half of the alerts and the dashboard against the real tools: three {@code serve}
 * processes with replication on, a and b on the real nats-server 2.9 JetStream broker the load goes
 * to, c on a second, idle one (a replica that reads nothing new), a subscriber's publisher and
 * direct ReportCacheState to a as load, scraped by Debian's Prometheus. Every replication series an
 * alert reads exists, every dashboard query over them returns data, and each replication alert's
 * expression (its {@code for} aside) selects exactly the replicas it is about: c stalled, c's
 * broker killed, an unreadable stream message, the main broker killed, then restarted.
 */
@Timeout(360)
class ReplicationObservabilityIT {
  private static final String NAMESPACE = ObservabilityIT.NAMESPACE;
  private static final String JOB = "inference-cache-server";
  private static final String STREAM = "ic-obs";
  private static final Duration READY = Duration.ofSeconds(120);

  @RegisterExtension final NatsServerExtension nats = new NatsServerExtension();

  /** c's broker: connected, but nothing is published to it. */
  @RegisterExtension final NatsServerExtension idle = new NatsServerExtension();

  @TempDir Path dir;

  private ServeChild serve(final String name, final String natsUrl) {
    return ServeProcess.of(
            dir.resolve(name),
            "replication:\n  natsUrl: "
                + natsUrl
                + "\n  stream: "
                + STREAM
                + "\n  catchUpTimeout: 60s\nindex:\n  maxEntries: 20000\n")
        .start();
  }

  @Test
  void eachReplicationAlertSelectsTheReplicasItIsAboutAndEveryReplicationPanelHasData()
      throws Exception {
    final ServeChild a = serve("a", nats.url());
    final ServeChild b = serve("b", nats.url());
    final ServeChild c = serve("c", idle.url());
    final ScheduledExecutorService load = Executors.newSingleThreadScheduledExecutor();
    JetStreamUpdateSink sink = null;
    try {
      a.awaitReady(READY);
      b.awaitReady(READY);
      c.awaitReady(READY);
      sink = sink();
      final Traffic traffic = new Traffic(sink, a);
      try (PrometheusProcess prometheus =
          PrometheusProcess.start(prometheusConfig(Map.of("a", a, "b", b, "c", c)))) {
        load.scheduleWithFixedDelay(traffic::round, 0, 300, TimeUnit.MILLISECONDS);
        ObservabilityIT.assertDashboardQueriesReturnData(
            prometheus,
            ObservabilityFiles::readsReplication,
            () -> assertThat(traffic.failure.get()).as("traffic").isNull());
        assertAlertsFindTheirReplicationSeries(prometheus);
        // a and b follow the stream; c is connected and stays at sequence 0 while they move on.
        awaitSelected(prometheus, Map.of("ReplicationStalled", List.of("c")));

        idle.server().kill(); // c loses its broker: disconnected now, no longer "stalled"
        awaitSelected(prometheus, Map.of("ReplicationReplicaDisconnected", List.of("c")));

        publishUnreadable();
        awaitSelected(
            prometheus,
            Map.of(
                "ReplicationReplicaDisconnected", List.of("c"),
                "ReplicationMessagesUnreadable", List.of("a", "b")));

        load.shutdown();
        assertThat(load.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        assertThat(traffic.failure.get()).as("traffic").isNull();
        nats.server().kill();
        await("a and b lose the broker")
            .atMost(Duration.ofSeconds(30))
            .ignoreExceptions()
            .until(
                () ->
                    a.metric("inferencecache_replication_connected") == 0
                        && b.metric("inferencecache_replication_connected") == 0);
        CacheStateReports.send(
            a.channel(),
            10,
            CacheStateReports.chain("engine-2", "m", "t", 4, i -> ByteString.copyFrom(hash(-i))));
        assertThat(a.metric("inferencecache_replication_applied_locally_total")).isEqualTo(1);
        // No replica connected: the broker is down (one alert for the job), no replica "alone".
        awaitSelected(
            prometheus,
            Map.of(
                "ReplicationBrokerDown", List.of(JOB),
                "ReplicationAppliedLocally", List.of("a"),
                "ReplicationMessagesUnreadable", List.of("a", "b")));

        nats.server().start();
        awaitSelected(
            prometheus,
            Map.of(
                "ReplicationReplicaDisconnected", List.of("c"),
                "ReplicationAppliedLocally", List.of("a"),
                "ReplicationMessagesUnreadable", List.of("a", "b")));
      }
    } finally {
      load.shutdownNow();
      if (sink != null) {
        sink.close();
      }
      for (final ServeChild s : List.of(a, b, c)) {
        s.close();
      }
    }
  }

  private JetStreamUpdateSink sink() {
    final JetStreamUpdateSink sink =
        JetStreamUpdateSink.connect(
            SubscriberConfig.builder()
                .replicaId("engine-0")
                .modelId("m")
                .tenantId("t")
                .replicationNatsUrl(nats.url())
                .replicationStream(STREAM)
                .build());
    // connected (in the background), and the connection's resync request made: resyncRequested()
    // is already true before the first connection
    await().atMost(Duration.ofSeconds(20)).until(() -> sink.connections() > 0);
    sink.resync(new SubscriberUpdate("engine-0", "m", "t", "vllm", 0, List.of()));
    return sink;
  }

  /** One message on the stream whose kind header no replica knows. */
  private void publishUnreadable() throws Exception {
    final Connection nc = Nats.connect(nats.url());
    try {
      nc.jetStream()
          .publish(
              NatsMessage.builder()
                  .subject(StreamRecord.subject(STREAM, "t", "m", "engine-9"))
                  .headers(new Headers().put(StreamRecord.KIND_HEADER, "no-such-kind"))
                  .data(new byte[] {1, 2, 3})
                  .build());
    } finally {
      nc.close();
    }
  }

  private static String prometheusConfig(final Map<String, ServeChild> replicas) {
    final StringBuilder targets = new StringBuilder();
    replicas.forEach(
        (pod, s) ->
            targets
                .append("      - targets: ['")
                .append(s.http("").replace("http://", ""))
                .append("']\n        labels: {namespace: ")
                .append(NAMESPACE)
                .append(", pod: ")
                .append(pod)
                .append("}\n"));
    return "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        + "rule_files:\n  - "
        + ObservabilityFiles.RULES
        + "\nscrape_configs:\n  - job_name: "
        + JOB
        + "\n    static_configs:\n"
        + targets;
  }

  private static void assertAlertsFindTheirReplicationSeries(final PrometheusProcess prometheus)
      throws Exception {
    int checked = 0;
    for (final ObservabilityFiles.Alert alert : ObservabilityFiles.alerts()) {
      for (final String series : alert.replicationSeries()) {
        assertThat(
                prometheus
                    .query("count(" + series + "{namespace=\"" + NAMESPACE + "\"})")
                    .at("/data/result/0/value/1")
                    .asText())
            .as(alert.name() + " reads " + series + ", which each of the three replicas exports")
            .isEqualTo("3");
        checked++;
      }
    }
    assertThat(checked).as("replication series read by alerts").isGreaterThanOrEqualTo(6);
  }

  /**
   * Waits (90 s) until, of the replication alerts, exactly those in {@code expected} have an
   * expression that selects something (the {@code for} duration aside), each the replicas (pod
   * label, or job for a per-job alert) given.
   */
  private static void awaitSelected(
      final PrometheusProcess prometheus, final Map<String, List<String>> expected) {
    await("replication alerts selecting " + expected)
        .atMost(Duration.ofSeconds(90))
        .pollInterval(Duration.ofSeconds(1))
        .untilAsserted(() -> assertThat(selected(prometheus)).isEqualTo(new TreeMap<>(expected)));
  }

  private static Map<String, List<String>> selected(final PrometheusProcess prometheus)
      throws Exception {
    final Map<String, List<String>> out = new TreeMap<>();
    for (final ObservabilityFiles.Alert alert : ObservabilityFiles.alerts()) {
      if (!ObservabilityFiles.readsReplication(alert.expr())) {
        continue;
      }
      final JsonNode r = prometheus.query(alert.expr());
      assertThat(r.path("status").asText()).as(alert.name() + " -> " + r).isEqualTo("success");
      final List<String> subjects = new ArrayList<>();
      for (final JsonNode series : r.at("/data/result")) {
        final JsonNode m = series.path("metric");
        subjects.add(m.has("pod") ? m.path("pod").asText() : m.path("job").asText());
      }
      if (!subjects.isEmpty()) {
        subjects.sort(null);
        out.put(alert.name(), subjects);
      }
    }
    return out;
  }

  private static byte[] hash(final int i) {
    return ByteBuffer.allocate(8).putLong(0x0B5E_0000_0000L + i).array();
  }

  /** A subscriber publishing to the stream, and ReportCacheState sent to replica a (forwarded). */
  private static final class Traffic {
    private final JetStreamUpdateSink sink;
    private final ServeChild direct;
    final AtomicReference<Exception> failure = new AtomicReference<>();
    private int round;

    Traffic(final JetStreamUpdateSink sink, final ServeChild direct) {
      this.sink = sink;
      this.direct = direct;
    }

    void round() {
      if (failure.get() != null) {
        return;
      }
      try {
        final int r = round++;
        final List<PrefixRecord> prefixes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
          prefixes.add(new PrefixRecord(hash(r * 4 + i), 64, "", PrefixRecord.TIER_T1));
        }
        sink.report(new SubscriberUpdate("engine-0", "m", "t", "vllm", 0, prefixes));
        CacheStateReports.send(
            direct.channel(),
            10,
            CacheStateReports.chain(
                "engine-1", "m", "t", 4, i -> ByteString.copyFrom(hash(1_000_000 + r * 4 + i))));
      } catch (Exception e) {
        failure.compareAndSet(null, e);
      }
    }
  }
}
