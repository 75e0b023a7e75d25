package io.inferencecache.subscriber.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.subscriber.Msgpack;
import io.inferencecache.subscriber.config.CacheTier;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.EventBatch;
import io.inferencecache.subscriber.decode.KvEvent;
import io.inferencecache.subscriber.decode.ScrapeException;
import io.inferencecache.subscriber.index.PositionalIndex;
import io.inferencecache.subscriber.report.RecordingSink;
import io.inferencecache.subscriber.report.Reporter;
import io.inferencecache.subscriber.report.StatsReporter;
import io.inferencecache.subscriber.sink.GrpcUpdateSink;
import io.inferencecache.subscriber.sink.JetStreamUpdateSink;
import io.inferencecache.subscriber.sink.UpdateSink;
import io.inferencecache.subscriber.source.MetricsProfile;
import io.inferencecache.subscriber.source.ReceivedBatch;
import io.inferencecache.subscriber.source.SequenceTracker;
import io.inferencecache.subscriber.source.StatsScraper;
import io.inferencecache.subscriber.source.ZmqEventSource;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What {@link SubscriberMetrics} reads from each part, and the page it makes. */
class SubscriberMetricsTest {
  private final SubscriberConfig config =
      SubscriberConfig.builder().replicaId("pod-0").modelId("llama").tenantId("team-a").build();
  private final RecordingSink sink = new RecordingSink();
  private final BlockingQueue<ReceivedBatch> queue = new ArrayBlockingQueue<>(8);
  private final ZmqEventSource source = new ZmqEventSource("tcp://127.0.0.1:1", "", queue);
  private final Reporter reporter = new Reporter(config, sink, () -> 0L, new PositionalIndex());
  private final StatsReporter stats =
      new StatsReporter(
          new StatsScraper(
              MetricsProfile.VLLM,
              CacheTier.AUTO,
              "",
              0,
              8,
              () -> {
                throw new ScrapeException("scrape http://engine/metrics: connection refused");
              }),
          sink,
          Duration.ofSeconds(10),
          Clock.systemUTC());

  private static EventBatch stored(final long first, final int blocks) {
    final List<byte[]> hashes = new ArrayList<>();
    for (int i = 0; i < blocks; i++) {
      hashes.add(Fingerprint.toWire(first + i));
    }
    return new EventBatch(
        1.0,
        List.of(
            new KvEvent.BlockStored(
                hashes, null, Msgpack.tokens(0, 16 * blocks), 16, OptionalLong.empty())));
  }

  private static EventBatch removed(final long hash) {
    return new EventBatch(
        1.0, List.of(new KvEvent.BlockRemoved(List.of(Fingerprint.toWire(hash)))));
  }

  private String page(final SubscriberMetrics metrics) throws IOException {
    final CollectorRegistry registry = new CollectorRegistry();
    registry.register(metrics);
    final StringWriter out = new StringWriter();
    TextFormat.write004(out, registry.metricFamilySamples());
    return out.toString();
  }

  @Test
  void countsOfTheSourceTheReporterAndTheStatsPathAreExportedAsTheyStand() throws Exception {
    reporter.accept(stored(100, 3));
    reporter.flush();
    reporter.accept(removed(102));
    reporter.accept(
        new ReceivedBatch(
            new SequenceTracker.Discontinuity(SequenceTracker.Kind.GAP, 4, 9), stored(200, 1)));
    reporter.flush();
    sink.wantsResync.set(true);
    reporter.windowElapsed();
    stats.tick();
    stats.tick();
    queue.add(new ReceivedBatch(null, stored(300, 1)));
    queue.add(new ReceivedBatch(null, stored(400, 1)));

    final String page = page(new SubscriberMetrics(config, source, queue, reporter, stats, sink));

    assertThat(HttpProbe.value(page, "inferencecache_subscriber_updates_reported_total"))
        .isEqualTo(reporter.updatesReported())
        .isEqualTo(2);
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_prefixes_reported_total"))
        .isEqualTo(4);
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_evictions_published_total"))
        .isEqualTo(1);
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_clears_published_total"))
        .isEqualTo(1);
    assertThat(
            HttpProbe.value(page, "inferencecache_subscriber_resyncs_total{cause=\"sequence\",}"))
        .isEqualTo(1);
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_resyncs_total{cause=\"sink\",}"))
        .isEqualTo(reporter.sinkResyncs())
        .isEqualTo(1);
    assertThat(
            HttpProbe.value(
                page, "inferencecache_subscriber_stats_samples_total{result=\"failed\",}"))
        .isEqualTo(2);
    assertThat(
            HttpProbe.value(
                page, "inferencecache_subscriber_stats_samples_total{result=\"delivered\",}"))
        .isZero();
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_stats_consecutive_failures"))
        .isEqualTo(2);
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_queue_depth")).isEqualTo(2);
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_engine_connected")).isZero();
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_messages_received_total")).isZero();
    assertThat(HttpProbe.value(page, SubscriberMetrics.SINK_READY)).isEqualTo(1);
    assertThat(HttpProbe.value(page, SubscriberMetrics.DROPPED)).isZero();
    assertThat(page)
        .contains(
            "inferencecache_subscriber_info{replica_id=\"pod-0\",model_id=\"llama\","
                + "tenant_id=\"team-a\",sink=\"RecordingSink\",} 1.0");
  }

  @Test
  void failedSinkCallsCountAsDroppedDeliveriesAndAnUnreadySinkReadsZero() throws Exception {
    final RecordingSink broken = new RecordingSink();
    broken.ready.set(false);
    final Reporter failing = new Reporter(config, broken, () -> 0L, new PositionalIndex());
    broken.failing.set(true);
    failing.accept(stored(100, 2));
    failing.flush();
    failing.accept(removed(100));

    final String page = page(new SubscriberMetrics(config, source, queue, failing, null, broken));

    assertThat(HttpProbe.value(page, "inferencecache_subscriber_sink_calls_failed_total"))
        .isEqualTo(2);
    assertThat(HttpProbe.value(page, SubscriberMetrics.DROPPED)).isEqualTo(2);
    assertThat(HttpProbe.value(page, SubscriberMetrics.SINK_READY)).isZero();
    assertThat(page).as("no stats families without the stats path").doesNotContain("_stats_");
  }

  @Test
  void everyFamilyIsASubscriberSeriesWithHelpAndType() throws Exception {
    final String page = page(new SubscriberMetrics(config, source, queue, reporter, stats, sink));
    final Set<String> samples = new LinkedHashSet<>();
    final Set<String> typed = new LinkedHashSet<>();
    final Set<String> helped = new LinkedHashSet<>();
    for (final String line : page.split("\n")) {
      if (line.startsWith("# HELP ")) {
        helped.add(line.split(" ")[2]);
      } else if (line.startsWith("# TYPE ")) {
        typed.add(line.split(" ")[2]);
        assertThat(line.split(" ")[3]).as(line).isIn("counter", "gauge");
      } else {
        samples.add(line.split("[{ ]")[0]);
      }
    }
    assertThat(samples)
        .hasSizeGreaterThan(15)
        .allMatch(n -> n.startsWith("inferencecache_subscriber_"));
    assertThat(typed).isEqualTo(helped).containsAll(samples);
    assertThat(samples.stream().filter(n -> n.endsWith("_total")))
        .as("counters end in _total")
        .hasSizeGreaterThan(10);
  }

  @Test
  void theSidecarPageListsEveryFamilyOfBothSinks() throws Exception {
    final String doc =
        Files.readString(Path.of("..", "docs", "sidecar.md"), StandardCharsets.UTF_8);
    final int from = doc.indexOf("### HTTP endpoint and metrics (subscriber)");
    assertThat(from).as("the metrics section of docs/sidecar.md").isNotNegative();
    final int end = doc.indexOf("\n## ", from);
    final String section = doc.substring(from, end < 0 ? doc.length() : end);
    final Set<String> listed = new LinkedHashSet<>();
    final Matcher m = Pattern.compile("`(inferencecache_subscriber_[a-z_]+)[`{]").matcher(section);
    while (m.find()) {
      listed.add(m.group(1));
    }
    final SubscriberConfig streaming =
        SubscriberConfig.builder()
            .replicaId("pod-0")
            .modelId("llama")
            .replicationNatsUrl("nats://127.0.0.1:1") // nothing listens: connects in the background
            .build();
    final GrpcUpdateSink grpc = GrpcUpdateSink.builder(config).target("127.0.0.1:1").build();
    final JetStreamUpdateSink jetStream = JetStreamUpdateSink.connect(streaming);
    final Set<String> exported = new LinkedHashSet<>();
    try {
      for (final UpdateSink each : List.of(grpc, jetStream)) {
        final String page =
            page(new SubscriberMetrics(config, source, queue, reporter, stats, each));
        for (final String line : page.split("\n")) {
          if (line.startsWith("# TYPE ")) {
            exported.add(line.split(" ")[2]);
          }
        }
      }
    } finally {
      grpc.close();
      jetStream.close();
    }
    assertThat(exported)
        .contains(
            SubscriberMetrics.DROPPED,
            "inferencecache_subscriber_grpc_queued_updates",
            "inferencecache_subscriber_jetstream_publishes_total");
    assertThat(listed).containsExactlyInAnyOrderElementsOf(exported);
  }
}
