package io.inferencecache.subscriber.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.inferencecache.subscriber.config.CacheTier;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.ScrapeException;
import io.inferencecache.subscriber.decode.StatsSample;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
public class StatsScraperTest {
  private static final long GIB = 1L << 30;
  private static final String MODEL = "Qwen/Qwen2.5-0.5B-Instruct";

  /** A vLLM (Python prometheus_client) exposition; {@code null} leaves a family out. */
  public static String vllm(
      final Double running,
      final Double waiting,
      final Double usage,
      final Double hits,
      final Double queries) {
    final String labels = "{engine=\"0\",model_name=\"" + MODEL + "\"}";
    final StringBuilder b = new StringBuilder();
    b.append("# HELP python_gc_objects_collected_total Objects collected during gc\n")
        .append("# TYPE python_gc_objects_collected_total counter\n")
        .append("python_gc_objects_collected_total{generation=\"0\"} 1234.0\n");
    if (running != null) {
      b.append("# HELP vllm:num_requests_running Number of requests in model execution.\n")
          .append("# TYPE vllm:num_requests_running gauge\n")
          .append("vllm:num_requests_running")
          .append(labels)
          .append(' ')
          .append(running)
          .append('\n');
    }
    if (waiting != null) {
      b.append("# HELP vllm:num_requests_waiting Number of requests waiting.\n")
          .append("# TYPE vllm:num_requests_waiting gauge\n")
          .append("vllm:num_requests_waiting")
          .append(labels)
          .append(' ')
          .append(waiting)
          .append('\n');
    }
    if (usage != null) {
      b.append("# HELP vllm:kv_cache_usage_perc KV-cache usage. 1 means 100 percent usage.\n")
          .append("# TYPE vllm:kv_cache_usage_perc gauge\n")
          .append("vllm:kv_cache_usage_perc")
          .append(labels)
          .append(' ')
          .append(usage)
          .append('\n');
    }
    if (queries != null) {
      b.append("# HELP vllm:prefix_cache_queries_total Prefix cache queries, in tokens.\n")
          .append("# TYPE vllm:prefix_cache_queries_total counter\n")
          .append("vllm:prefix_cache_queries_total")
          .append(labels)
          .append(' ')
          .append(queries)
          .append('\n')
          .append("# TYPE vllm:prefix_cache_queries_created gauge\n")
          .append("vllm:prefix_cache_queries_created")
          .append(labels)
          .append(" 1.7e9\n");
    }
    if (hits != null) {
      b.append("# HELP vllm:prefix_cache_hits_total Prefix cache hits, in tokens.\n")
          .append("# TYPE vllm:prefix_cache_hits_total counter\n")
          .append("vllm:prefix_cache_hits_total")
          .append(labels)
          .append(' ')
          .append(hits)
          .append('\n');
    }
    b.append("# TYPE vllm:external_prefix_cache_hits_total counter\n")
        .append("vllm:external_prefix_cache_hits_total")
        .append(labels)
        .append(" 123.0\n")
        .append("# TYPE vllm:external_prefix_cache_queries_total counter\n")
        .append("vllm:external_prefix_cache_queries_total")
        .append(labels)
        .append(" 456.0\n")
        .append("# HELP vllm:e2e_request_latency_seconds Histogram of e2e latency.\n")
        .append("# TYPE vllm:e2e_request_latency_seconds histogram\n")
        .append("vllm:e2e_request_latency_seconds_bucket{le=\"1.0\"} 3.0\n")
        .append("vllm:e2e_request_latency_seconds_bucket{le=\"+Inf\"} 4.0\n")
        .append("vllm:e2e_request_latency_seconds_sum 2.5\n")
        .append("vllm:e2e_request_latency_seconds_count 4.0\n");
    return b.toString();
  }

  static final String SGLANG =
      "# HELP sglang:token_usage The token usage.\n"
          + "# TYPE sglang:token_usage gauge\n"
          + "sglang:token_usage{model_name=\"m\",tp_rank=\"0\",dp_rank=\"0\"} 0.4\n"
          + "sglang:token_usage{model_name=\"m\",tp_rank=\"0\",dp_rank=\"1\"} 0.6\n"
          + "# TYPE sglang:num_running_reqs gauge\n"
          + "sglang:num_running_reqs{model_name=\"m\",dp_rank=\"0\",priority=\"\"} 4\n"
          + "sglang:num_running_reqs{model_name=\"m\",dp_rank=\"0\",priority=\"1\"} 4\n"
          + "sglang:num_running_reqs{model_name=\"m\",dp_rank=\"1\"} 2\n"
          + "# TYPE sglang:num_queue_reqs gauge\n"
          + "sglang:num_queue_reqs{model_name=\"m\",dp_rank=\"0\"} 1\n"
          + "sglang:num_queue_reqs{model_name=\"m\",dp_rank=\"1\"} 1\n"
          + "# TYPE sglang:cache_hit_rate gauge\n"
          + "sglang:cache_hit_rate{model_name=\"m\",dp_rank=\"0\"} 0.35\n"
          + "sglang:cache_hit_rate{model_name=\"m\",dp_rank=\"1\"} 0.5\n"
          + "# TYPE sglang:gen_throughput gauge\n"
          + "sglang:gen_throughput{model_name=\"m\"} 100\n";

  private static StatsScraper vllmScraper(final CacheTier tier, final String model) {
    return new StatsScraper(MetricsProfile.VLLM, tier, model, GIB, 16, () -> "");
  }

  private static StatsScraper vllmScraper() {
    return vllmScraper(CacheTier.AUTO, "");
  }

  @Test
  void vllmDerivesPressureBytesT2AndHitRateFromCounterDeltas() throws Exception {
    final StatsScraper s = vllmScraper();

    final StatsSample first = s.derive(vllm(3.0, 5.0, 0.25, 400.0, 1000.0));
    final StatsSample second = s.derive(vllm(1.0, 0.0, 0.5, 460.0, 1100.0));

    assertThat(first).isEqualTo(new StatsSample(GIB / 4, 0f, 0.5f, 123L, 456L));
    assertThat(second.hitRate()).isCloseTo(0.6f, within(1e-6f));
    assertThat(second.pressure()).isEqualTo(1f / 16);
    assertThat(second.cacheMemoryBytes()).isEqualTo(GIB / 2);
  }

  @Test
  void counterResetOrNoNewQueriesGiveZeroAndMoveTheBaseline() throws Exception {
    final StatsScraper s = vllmScraper();
    s.derive(vllm(0.0, 0.0, 0.1, 400.0, 1000.0));

    assertThat(s.derive(vllm(0.0, 0.0, 0.1, 10.0, 20.0)).hitRate()).as("reset").isZero();
    assertThat(s.derive(vllm(0.0, 0.0, 0.1, 15.0, 30.0)).hitRate()).isEqualTo(0.5f);
    assertThat(s.derive(vllm(0.0, 0.0, 0.1, 15.0, 30.0)).hitRate()).as("dq=0").isZero();
    assertThat(s.derive(vllm(0.0, 0.0, 0.1, 100.0, 40.0)).hitRate()).as("clamped").isEqualTo(1f);
  }

  @Test
  void missingCountersReportZeroAndKeepTheBaseline() throws Exception {
    final StatsScraper s = vllmScraper();
    s.derive(vllm(0.0, 0.0, 0.1, 100.0, 200.0));

    assertThat(s.derive(vllm(0.0, 0.0, 0.1, null, 250.0)).hitRate()).isZero();
    assertThat(s.derive(vllm(0.0, 0.0, 0.1, 130.0, 260.0)).hitRate()).isEqualTo(0.5f);
  }

  @Test
  void missingLoadGaugeFailsWithoutAdvancingTheBaseline() throws Exception {
    final StatsScraper s = vllmScraper();
    s.derive(vllm(1.0, 1.0, 0.1, 100.0, 200.0));

    assertThatThrownBy(() -> s.derive(vllm(1.0, null, 0.1, 200.0, 210.0)))
        .isInstanceOf(ScrapeException.class)
        .hasMessageContaining("vllm load gauges incomplete (running=true, waiting=false)");
    assertThat(s.derive(vllm(1.0, 1.0, 0.1, 150.0, 300.0)).hitRate()).isEqualTo(0.5f);
  }

  @Test
  void responseWithoutARecognizedFamilyFails() {
    assertThatThrownBy(() -> vllmScraper().derive("# TYPE up gauge\nup 1\n"))
        .isInstanceOf(ScrapeException.class)
        .hasMessageContaining("no recognized vllm metric families in response (1 parsed)");
    assertThatThrownBy(() -> vllmScraper().derive(SGLANG))
        .hasMessageContaining("no recognized vllm metric families");
    assertThatThrownBy(
            () ->
                new StatsScraper(MetricsProfile.SGLANG, CacheTier.AUTO, "", 0, 16, () -> "")
                    .derive(vllm(1.0, 1.0, 0.1, 1.0, 1.0)))
        .hasMessageContaining("no recognized sglang metric families");
  }

  @Test
  void malformedExpositionFails() {
    assertThatThrownBy(() -> vllmScraper().derive("vllm:num_requests_running{ 1\n"))
        .isInstanceOf(ScrapeException.class)
        .hasMessageContaining("metrics line 1");
  }

  @Test
  void untypedLoadGaugesAreNotRead() {
    assertThatThrownBy(
            () ->
                vllmScraper().derive("vllm:num_requests_running 1\nvllm:num_requests_waiting 1\n"))
        .hasMessageContaining("load gauges incomplete (running=false, waiting=false)");
  }

  static final String LEGACY =
      "# TYPE vllm:num_requests_running gauge\n"
          + "vllm:num_requests_running 2\n"
          + "# TYPE vllm:num_requests_waiting gauge\n"
          + "vllm:num_requests_waiting 2\n"
          + "# TYPE vllm:gpu_cache_usage_perc gauge\n"
          + "vllm:gpu_cache_usage_perc{engine=\"0\"} 0.3\n"
          + "vllm:gpu_cache_usage_perc{engine=\"1\"} 0.1\n"
          + "# TYPE vllm:cpu_cache_usage_perc gauge\n"
          + "vllm:cpu_cache_usage_perc 0.6\n";

  @Test
  void usageFollowsTheCacheTier() throws Exception {
    assertThat(vllmScraper(CacheTier.AUTO, "").derive(LEGACY).cacheMemoryBytes())
        .isEqualTo((long) (0.6 * GIB));
    assertThat(vllmScraper(CacheTier.GPU, "").derive(LEGACY).cacheMemoryBytes())
        .as("max across series")
        .isEqualTo((long) (0.3 * GIB));
    assertThat(vllmScraper(CacheTier.CPU, "").derive(LEGACY).cacheMemoryBytes())
        .isEqualTo((long) (0.6 * GIB));
    assertThat(vllmScraper(CacheTier.KV, "").derive(LEGACY).cacheMemoryBytes()).isZero();
    final String withKv =
        LEGACY + "# TYPE vllm:kv_cache_usage_perc gauge\nvllm:kv_cache_usage_perc 0.2\n";
    assertThat(vllmScraper(CacheTier.AUTO, "").derive(withKv).cacheMemoryBytes())
        .as("kv wins in auto")
        .isEqualTo((long) (0.2 * GIB));
    final String gpuOnly = LEGACY.replace("vllm:cpu_cache_usage_perc", "vllm:other");
    assertThat(vllmScraper(CacheTier.AUTO, "").derive(gpuOnly).cacheMemoryBytes())
        .isEqualTo((long) (0.3 * GIB));
  }

  @Test
  void usageRatioOutsideZeroToOneIsClampedToTheCacheSize() throws Exception {
    // Fuzz finding: a usage gauge of 5.5 reported 5.5x the configured cache size.
    assertThat(vllmScraper().derive(vllm(1.0, 0.0, 5.5, null, null)).cacheMemoryBytes())
        .isEqualTo(GIB);
    assertThat(vllmScraper().derive(vllm(1.0, 0.0, -3.0, null, null)).cacheMemoryBytes()).isZero();
  }

  @Test
  void countersSummedPastDoubleMaxGiveHitRateZeroNotNaN() throws Exception {
    // Fuzz-target finding: two series of 1e308 sum to +Inf; the next scrape's delta Inf - Inf is
    // NaN, and NaN / NaN passed clamp01 unchanged.
    final String overflow =
        vllm(1.0, 0.0, 0.5, 1e308, 1e308)
            + "vllm:prefix_cache_hits_total{engine=\"1\"} 1e308\n"
            + "vllm:prefix_cache_queries_total{engine=\"1\"} 1e308\n";
    final StatsScraper s = vllmScraper();
    s.derive(overflow);
    assertThat(s.derive(overflow).hitRate()).isZero();
    assertThat(StatsScraper.clamp01(Double.NaN)).isZero();
  }

  @Test
  void cacheSizeZeroReportsZeroBytes() throws Exception {
    final StatsScraper s =
        new StatsScraper(MetricsProfile.VLLM, CacheTier.AUTO, "", 0, 16, () -> "");
    assertThat(s.derive(LEGACY).cacheMemoryBytes()).isZero();
  }

  @Test
  void modelNameFilterSelectsSeriesAndFailsWhenItExcludesTheLoadGauges() throws Exception {
    final String twoModels =
        "# TYPE vllm:num_requests_running gauge\n"
            + "vllm:num_requests_running{model_name=\"a\"} 4\n"
            + "vllm:num_requests_running{model_name=\"b\"} 100\n"
            + "vllm:num_requests_running 100\n"
            + "# TYPE vllm:num_requests_waiting gauge\n"
            + "vllm:num_requests_waiting{model_name=\"a\"} 4\n"
            + "vllm:num_requests_waiting{model_name=\"b\"} 100\n"
            + "# TYPE vllm:kv_cache_usage_perc gauge\n"
            + "vllm:kv_cache_usage_perc{model_name=\"a\"} 0.5\n"
            + "vllm:kv_cache_usage_perc{model_name=\"b\"} 0.9\n";

    final StatsSample a = vllmScraper(CacheTier.AUTO, "a").derive(twoModels);

    assertThat(a.pressure()).isEqualTo(0.5f);
    assertThat(a.cacheMemoryBytes()).isEqualTo(GIB / 2);
    assertThat(vllmScraper().derive(twoModels).pressure())
        .as("no filter: all series")
        .isEqualTo(1f);
    assertThatThrownBy(() -> vllmScraper(CacheTier.AUTO, "c").derive(twoModels))
        .hasMessageContaining("model_name=\"c\" excludes them");
  }

  @Test
  void pressureArithmetic() {
    assertThat(StatsScraper.pressure(64, 256)).isEqualTo(0.25);
    assertThat(StatsScraper.pressure(300, 256)).isEqualTo(1.0);
    assertThat(StatsScraper.pressure(10, 0)).isZero();
    assertThat(StatsScraper.pressure(10, -5)).isZero();
    assertThat(StatsScraper.pressure(0, 10)).isZero();
    assertThat(StatsScraper.pressure(-3, 10)).isZero();
    assertThat(StatsScraper.pressure(Double.NaN, 10)).isZero();
  }

  @Test
  void nonFiniteSeriesAreSkipped() throws Exception {
    final String text =
        "# TYPE vllm:num_requests_running gauge\n"
            + "vllm:num_requests_running{engine=\"0\"} NaN\n"
            + "vllm:num_requests_running{engine=\"1\"} 8\n"
            + "# TYPE vllm:num_requests_waiting gauge\n"
            + "vllm:num_requests_waiting +Inf\n";
    assertThatThrownBy(() -> vllmScraper().derive(text))
        .hasMessageContaining("running=true, waiting=false");
    assertThat(vllmScraper().derive(text + "vllm:num_requests_waiting 0\n").pressure())
        .isEqualTo(0.5f);
  }

  @Test
  void countersWithoutTotalSuffixAreFound() throws Exception {
    final String tick =
        "# TYPE vllm:kv_cache_usage_perc gauge\n"
            + "vllm:kv_cache_usage_perc{model_name=\"m\"} 0.30\n"
            + "# TYPE vllm:prefix_cache_hits counter\n"
            + "vllm:prefix_cache_hits{model_name=\"m\"} %s\n"
            + "# TYPE vllm:prefix_cache_queries counter\n"
            + "vllm:prefix_cache_queries{model_name=\"m\"} %s\n"
            + "# TYPE vllm:num_requests_running gauge\n"
            + "vllm:num_requests_running{model_name=\"m\"} 2\n"
            + "# TYPE vllm:num_requests_waiting gauge\n"
            + "vllm:num_requests_waiting{model_name=\"m\"} 0\n";
    final StatsScraper s =
        new StatsScraper(MetricsProfile.VLLM, CacheTier.AUTO, "", GIB, 8, () -> "");
    s.derive(String.format(tick, "10", "20"));

    final StatsSample second = s.derive(String.format(tick, "70", "120"));

    assertThat(second.hitRate()).isCloseTo(0.6f, within(1e-6f));
    assertThat(second.pressure()).isEqualTo(0.25f);
    assertThat(second.cacheMemoryBytes()).isEqualTo((long) (0.30 * GIB));
    assertThat(second.t2HitTokens()).isZero();
  }

  @Test
  void openMetricsCountersWithTotalSamplesAreFound() throws Exception {
    final String tick =
        "# TYPE vllm:prefix_cache_hits counter\n"
            + "vllm:prefix_cache_hits_total %s\n"
            + "vllm:prefix_cache_hits_created 1.7e9\n"
            + "# TYPE vllm:prefix_cache_queries counter\n"
            + "vllm:prefix_cache_queries_total %s\n"
            + "# TYPE vllm:num_requests_running gauge\n"
            + "vllm:num_requests_running 0\n"
            + "# TYPE vllm:num_requests_waiting gauge\n"
            + "vllm:num_requests_waiting 0\n"
            + "# EOF\n";
    final StatsScraper s = vllmScraper();
    s.derive(String.format(tick, "1", "2"));
    assertThat(s.derive(String.format(tick, "3", "6")).hitRate()).isEqualTo(0.5f);
  }

  @Test
  void sglangReadsUsageLoadWithoutPriorityBreakdownAndHitRateGauge() throws Exception {
    final StatsScraper s =
        new StatsScraper(MetricsProfile.SGLANG, CacheTier.AUTO, "", 1000, 32, () -> SGLANG);

    final StatsSample sample = s.scrape();

    assertThat(sample).isEqualTo(new StatsSample(600, 0.5f, 0.25f, 0, 0));
  }

  @Test
  void sglangHitRateIsClampedAndZeroWhenAbsent() throws Exception {
    final StatsScraper s =
        new StatsScraper(MetricsProfile.SGLANG, CacheTier.AUTO, "m", 0, 32, () -> "");
    assertThat(s.derive(SGLANG.replace("} 0.5\n", "} 1.5\n")).hitRate()).isEqualTo(1f);
    assertThat(s.derive(SGLANG.replace("sglang:cache_hit_rate", "sglang:other")).hitRate())
        .isZero();
  }

  @Test
  void profileFollowsTheHashScheme() {
    final SubscriberConfig sglang =
        SubscriberConfig.builder().replicaId("r").modelId("m").hashScheme("sglang").build();
    final SubscriberConfig other =
        SubscriberConfig.builder().replicaId("r").modelId("m").hashScheme("custom").build();

    assertThat(StatsScraper.fromConfig(sglang).profile()).isEqualTo(MetricsProfile.SGLANG);
    assertThat(StatsScraper.fromConfig(other).profile()).isEqualTo(MetricsProfile.VLLM);
    assertThat(MetricsProfile.SGLANG.knownNames())
        .containsExactly(
            "sglang:token_usage",
            "sglang:num_running_reqs",
            "sglang:num_queue_reqs",
            "sglang:cache_hit_rate");
  }
}
