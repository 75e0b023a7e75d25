package io.inferencecache.subscriber;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.ScrapeException;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.fake.FakeEngine;
import io.inferencecache.subscriber.report.RecordingSink;
import io.inferencecache.subscriber.source.HttpMetricsFetcher;
import io.inferencecache.subscriber.source.StatsScraperTest;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The wired sidecar against a fake engine and a loopback /metrics server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KvEventSubscriberIT {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private HttpServer metrics;
  private boolean metricsStopped;
  private final AtomicInteger scrapes = new AtomicInteger();

  @BeforeEach
  void startMetricsServer() throws IOException {
    metrics = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    metrics.createContext(
        "/metrics",
        exchange -> {
          final int n = scrapes.incrementAndGet();
          final byte[] body =
              StatsScraperTest.vllm(4.0, 4.0, 0.5, 10.0 * n, 20.0 * n)
                  .getBytes(StandardCharsets.UTF_8);
          exchange.getResponseHeaders().add("Content-Type", "text/plain; version=0.0.4");
          exchange.sendResponseHeaders(200, body.length);
          try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
          }
        });
    metrics.createContext(
        "/missing",
        exchange -> {
          exchange.sendResponseHeaders(404, -1);
          exchange.close();
        });
    metrics.start();
  }

  @AfterEach
  void stopMetricsServer() {
    if (!metricsStopped) {
      metrics.stop(0);
    }
  }

  private String url(final String path) {
    return "http://127.0.0.1:" + metrics.getAddress().getPort() + path;
  }

  @Test
  void sidecarReportsPrefixesAndStats() {
    final RecordingSink sink = new RecordingSink();
    try (FakeEngine engine =
        FakeEngine.builder().endpoint("tcp://127.0.0.1:*").blockSize(16).numBlocks(3).bind()) {
      final SubscriberConfig config =
          SubscriberConfig.builder()
              .replicaId("r1")
              .modelId("m1")
              .tenantId("t1")
              .engineEndpoint(engine.endpoint())
              .window("10ms")
              .engineMetricsUrl(url("/metrics"))
              .statsInterval("50ms")
              .engineCacheSizeBytes(1000)
              .maxConcurrencyCeiling(16)
              .build();
      final KvEventSubscriber subscriber = new KvEventSubscriber(config, sink);
      subscriber.start();
      try {
        assertThat(engine.awaitSubscriber(WAIT)).isTrue();
        engine.publishStored();
        await().atMost(WAIT).until(() -> sink.allPrefixes().size() == 3 && sink.stats.size() >= 2);
      } finally {
        subscriber.close();
      }
      assertThat(sink.updates.get(0).tenantId()).isEqualTo("t1");
      assertThat(sink.allPrefixes().get(2).prefixHash())
          .isEqualTo(engine.expectations().get(2).wire());
      assertThat(sink.stats.get(0).sample()).isEqualTo(new StatsSample(500, 0f, 0.5f, 123, 456));
      assertThat(sink.stats.get(1).sample().hitRate()).isEqualTo(0.5f);
      assertThat(subscriber.source().isRunning()).isFalse();
      assertThat(subscriber.reporter().isRunning()).isFalse();
    }
  }

  @Test
  void httpFetcherReportsStatusAndConnectionFailures() throws Exception {
    assertThat(new HttpMetricsFetcher(url("/metrics")).fetch())
        .contains("vllm:num_requests_running");
    assertThatThrownBy(() -> new HttpMetricsFetcher(url("/missing")).fetch())
        .isInstanceOf(ScrapeException.class)
        .hasMessageContaining("status 404");
    final int port = metrics.getAddress().getPort();
    metrics.stop(0);
    metricsStopped = true;
    assertThatThrownBy(
            () ->
                new HttpMetricsFetcher(
                        URI.create("http://127.0.0.1:" + port + "/metrics"), Duration.ofSeconds(2))
                    .fetch())
        .isInstanceOf(ScrapeException.class)
        .hasMessageContaining("scrape http://127.0.0.1:" + port);
  }
}
