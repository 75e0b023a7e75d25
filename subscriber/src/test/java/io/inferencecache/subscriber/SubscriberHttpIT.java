package io.inferencecache.subscriber;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.inferencecache.natslocal.NatsServerExtension;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.fake.FakeEngine;
import io.inferencecache.subscriber.fake.SlowJoiner;
import io.inferencecache.subscriber.http.HttpProbe;
import io.inferencecache.subscriber.http.SubscriberMetrics;
import io.inferencecache.subscriber.report.RecordingSink;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The sidecar's HTTP endpoint ({@code --http-address 127.0.0.1:0}) scraped while a fake engine
 * publishes: real counts after real events, and {@code /readyz} following the engine connection and
 * the sink (a JetStream sink against a real nats-server that is stopped and started again).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class SubscriberHttpIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String JS = "inferencecache_subscriber_jetstream_";

  @RegisterExtension final NatsServerExtension nats = new NatsServerExtension();

  private FakeEngine engine;
  private KvEventSubscriber subscriber;

  @AfterEach
  void stop() {
    if (subscriber != null) {
      subscriber.close();
    }
    if (engine != null) {
      engine.close();
    }
  }

  private SubscriberConfig.Builder config() {
    engine = FakeEngine.builder().endpoint("tcp://127.0.0.1:*").blockSize(16).numBlocks(3).bind();
    return SubscriberConfig.builder()
        .replicaId("pod-0")
        .modelId("llama")
        .tenantId("team-a")
        .engineEndpoint(engine.endpoint())
        .window("10ms")
        .engineMetricsUrl("")
        .httpAddress("127.0.0.1:0");
  }

  private void awaitFirstMessage() {
    assertThat(SlowJoiner.awaitFirstMessage(engine, subscriber, WAIT))
        .as("subscriber connected")
        .isTrue();
  }

  /** Waits until {@code /readyz} answers 503 with exactly {@code body}. */
  private static void awaitUnready(final HttpProbe http, final String body) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              final HttpProbe.Answer r = http.get("/readyz");
              assertThat(r.status()).isEqualTo(503);
              assertThat(r.body()).isEqualTo(body);
            });
  }

  @Test
  void jetStreamSubscriberExportsRealCountsAndIsUnreadyWhileTheBrokerIsDown() {
    subscriber =
        new KvEventSubscriber(
            config()
                .replicationNatsUrl(nats.url())
                .replicationStream("http-it")
                .replicationPublishTimeout("500ms")
                .build());
    subscriber.start();
    final HttpProbe http = new HttpProbe(subscriber.httpAddress());
    awaitFirstMessage();
    await().atMost(WAIT).until(() -> http.get("/readyz").status() == 200);
    assertThat(http.get("/readyz").body()).isEqualTo("ready\n");

    final long before = subscriber.source().messagesReceived();
    engine.publishStored();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(http.metric("inferencecache_subscriber_prefixes_reported_total"))
                  .isEqualTo(3);
              assertThat(http.metric("inferencecache_subscriber_updates_reported_total"))
                  .isEqualTo(1);
            });
    final String page = http.get("/metrics").body();
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_messages_received_total"))
        .isEqualTo(before + 1);
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_batches_decoded_total"))
        .isEqualTo(before + 1);
    assertThat(HttpProbe.value(page, "inferencecache_subscriber_engine_connected")).isEqualTo(1);
    assertThat(HttpProbe.value(page, SubscriberMetrics.SINK_READY)).isEqualTo(1);
    assertThat(HttpProbe.value(page, JS + "connections_total")).isEqualTo(1);
    // the full state at connection (a resync), then the update with the three prefixes
    final double states = HttpProbe.value(page, JS + "states_published_total");
    assertThat(states).isPositive();
    assertThat(HttpProbe.value(page, JS + "publishes_total{result=\"ok\",}"))
        .isGreaterThanOrEqualTo(states + 1);
    // (a publish racing the stream's creation at start may have failed and been dropped already)
    final double failedBefore = HttpProbe.value(page, JS + "publishes_total{result=\"failed\",}");
    final double droppedBefore = HttpProbe.value(page, SubscriberMetrics.DROPPED);
    assertThat(droppedBefore).isLessThanOrEqualTo(failedBefore);

    nats.server().stop();
    awaitUnready(
        http, "sink: jetstream sink to the replication broker cannot deliver: not connected\n");
    engine.publishBlockRemoved(FakeEngine.fakeBlockHash(2));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(http.metric(SubscriberMetrics.DROPPED)).isGreaterThan(droppedBefore));
    final String down = http.get("/metrics").body();
    assertThat(HttpProbe.value(down, JS + "publishes_total{result=\"failed\",}"))
        .isGreaterThan(failedBefore);
    assertThat(HttpProbe.value(down, "inferencecache_subscriber_sink_calls_failed_total"))
        .isEqualTo(HttpProbe.value(down, SubscriberMetrics.DROPPED));
    assertThat(HttpProbe.value(down, SubscriberMetrics.SINK_READY)).isZero();
    assertThat(HttpProbe.value(down, "inferencecache_subscriber_engine_connected")).isEqualTo(1);

    nats.server().start();
    await().atMost(Duration.ofSeconds(60)).until(() -> http.get("/readyz").status() == 200);
    // the reconnection asks for the replica's whole state again
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(http.metric(JS + "states_published_total")).isGreaterThan(states));
    assertThat(http.metric(JS + "connections_total")).isEqualTo(2);
  }

  @Test
  void readyzFollowsTheEngineConnectionAndOtherPathsAndMethodsGetClearAnswers() {
    final RecordingSink sink = new RecordingSink();
    subscriber = new KvEventSubscriber(config().build(), sink);
    subscriber.start();
    final HttpProbe http = new HttpProbe(subscriber.httpAddress());
    awaitFirstMessage();
    await().atMost(WAIT).until(() -> http.get("/readyz").status() == 200);

    final HttpProbe.Answer health = http.get("/healthz");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.body()).isEqualTo("ok\n");
    final HttpProbe.Answer metrics = http.get("/metrics");
    assertThat(metrics.contentType()).startsWith("text/plain; version=0.0.4");
    assertThat(metrics.body())
        .contains("# TYPE inferencecache_subscriber_messages_received_total counter")
        .contains("# HELP inferencecache_subscriber_engine_connected ");
    final HttpProbe.Answer missing = http.get("/metrics/extra");
    assertThat(missing.status()).isEqualTo(404);
    assertThat(missing.body())
        .isEqualTo(
            "no such path: /metrics/extra (this endpoint serves /metrics, /healthz, /readyz)\n");
    final HttpProbe.Answer post = http.send("POST", "/metrics");
    assertThat(post.status()).isEqualTo(405);
    assertThat(post.body()).isEqualTo("method POST not allowed; use GET\n");
    assertThat(http.send("HEAD", "/readyz").status()).isEqualTo(200);

    sink.ready.set(false);
    assertThat(http.get("/readyz").body()).contains("sink: sink RecordingSink cannot deliver");
    sink.ready.set(true);

    engine.close();
    awaitUnready(
        http, "engine: no connection with a completed handshake to " + engine.endpoint() + "\n");
    assertThat(http.metric("inferencecache_subscriber_engine_connected")).isZero();
    assertThat(http.get("/healthz").status()).as("alive without its engine").isEqualTo(200);
  }
}
