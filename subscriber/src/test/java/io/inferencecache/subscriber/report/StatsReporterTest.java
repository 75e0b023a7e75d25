package io.inferencecache.subscriber.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.inferencecache.subscriber.LogCapture;
import io.inferencecache.subscriber.config.CacheTier;
import io.inferencecache.subscriber.decode.ScrapeException;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.source.MetricsProfile;
import io.inferencecache.subscriber.source.StatsScraper;
import io.inferencecache.subscriber.source.StatsScraperTest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class StatsReporterTest {
  private static final String OK = StatsScraperTest.vllm(2.0, 2.0, 0.5, 1.0, 2.0);

  /** Serves queued responses; {@code null} = a failed fetch. */
  private final Deque<String> responses = new ArrayDeque<>();

  private final RecordingSink sink = new RecordingSink();
  private final Clock clock =
      Clock.fixed(Instant.ofEpochSecond(1_700_000_000, 123_456_000), ZoneOffset.UTC);

  private StatsReporter reporter() {
    final StatsScraper scraper =
        new StatsScraper(
            MetricsProfile.VLLM,
            CacheTier.AUTO,
            "",
            1000,
            8,
            () -> {
              final String body = responses.poll();
              if (body == null) {
                throw new ScrapeException("scrape http://engine/metrics: connection refused");
              }
              return body;
            });
    return new StatsReporter(scraper, sink, Duration.ofSeconds(10), clock);
  }

  @Test
  void deliversSamplesStampedWithTheClock() {
    final StatsReporter r = reporter();
    responses.add(OK);

    r.tick();

    assertThat(sink.stats)
        .singleElement()
        .satisfies(
            s -> {
              assertThat(s.timestampMicros()).isEqualTo(1_700_000_000_123_456L);
              assertThat(s.sample()).isEqualTo(new StatsSample(500, 0f, 0.5f, 123, 456));
            });
    assertThat(r.delivered()).isEqualTo(1);
  }

  @Test
  void threeConsecutiveNonDeliveriesLogOneStaleErrorAndRecoveryLogsOnce() {
    final StatsReporter r = reporter();
    try (LogCapture logs = LogCapture.of(StatsReporter.class)) {
      responses.add(OK);
      r.tick(); // delivered
      r.tick(); // 1: WARN
      r.tick(); // 2: WARN
      r.tick(); // 3: ERROR stale
      r.tick(); // 4: DEBUG
      r.tick(); // 5: DEBUG
      assertThat(logs.messages(Level.WARN)).hasSize(2);
      assertThat(logs.messages(Level.ERROR))
          .singleElement()
          .asString()
          .startsWith("event=load_signal_stale consecutive_failures=3")
          .contains("ages out")
          .contains("connection refused");
      assertThat(logs.messages(Level.DEBUG)).hasSize(2);
      assertThat(r.consecutiveFailures()).isEqualTo(5);

      responses.add(OK);
      r.tick();

      assertThat(logs.messages(Level.INFO))
          .containsExactly(
              "event=load_signal_recovered after_failures=5 engine load stats recovered");
      assertThat(r.consecutiveFailures()).isZero();
      assertThat(r.failed()).isEqualTo(5);
    }
  }

  @Test
  void staleBeforeAnyDeliveryIsWordedAsUndelivered() {
    final StatsReporter r = reporter();
    try (LogCapture logs = LogCapture.of(StatsReporter.class)) {
      r.tick();
      r.tick();
      r.tick();

      assertThat(logs.messages(Level.ERROR))
          .singleElement()
          .asString()
          .contains("event=load_signal_stale")
          .contains("undelivered since startup");
    }
  }

  @Test
  void shortOutageDoesNotLogStaleOrRecovered() {
    final StatsReporter r = reporter();
    try (LogCapture logs = LogCapture.of(StatsReporter.class)) {
      r.tick();
      r.tick();
      responses.add(OK);
      r.tick();

      assertThat(logs.messages(Level.ERROR)).isEmpty();
      assertThat(logs.messages(Level.INFO)).isEmpty();
    }
  }

  @Test
  void sinkFailureAndInvalidExpositionCountAsNonDeliveries() {
    final StatsReporter r = reporter();
    try (LogCapture logs = LogCapture.of(StatsReporter.class)) {
      sink.failing.set(true);
      responses.add(OK);
      r.tick();
      sink.failing.set(false);
      responses.add("# TYPE up gauge\nup 1\n");
      r.tick();
      responses.add("vllm:num_requests_running{ 1\n");
      r.tick();

      assertThat(r.consecutiveFailures()).isEqualTo(3);
      assertThat(logs.messages(Level.WARN))
          .satisfiesExactly(
              m -> assertThat(m).contains("deliver stats").contains("sink unavailable"),
              m -> assertThat(m).contains("no recognized vllm metric families"));
      assertThat(logs.messages(Level.ERROR)).singleElement().asString().contains("metrics line 1");
    }
  }

  @Test
  void rejectsNonPositiveInterval() {
    assertThatThrownBy(
            () ->
                new StatsReporter(
                    new StatsScraper(MetricsProfile.VLLM, CacheTier.AUTO, "", 0, 1, () -> ""),
                    sink,
                    Duration.ZERO,
                    clock))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
