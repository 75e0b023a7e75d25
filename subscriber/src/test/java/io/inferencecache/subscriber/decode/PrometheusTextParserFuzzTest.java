package io.inferencecache.subscriber.decode;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import io.inferencecache.subscriber.config.CacheTier;
import io.inferencecache.subscriber.decode.PrometheusTextParser.Family;
import io.inferencecache.subscriber.decode.PrometheusTextParser.Sample;
import io.inferencecache.subscriber.source.MetricsProfile;
import io.inferencecache.subscriber.source.StatsScraper;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Fuzzes the subscriber's stats path with an engine's {@code /metrics} text: whatever the bytes,
 * {@link PrometheusTextParser#parse} returns well-formed families (no null, every family non-empty,
 * every sample named by the grammar and belonging to its family, labels with valid names) or throws
 * {@link ScrapeException} — nothing else; {@link StatsScraper#derive} over the result (vLLM and
 * SGLang profiles, every cache tier, two scrapes in a row and one after a realistic baseline)
 * throws only {@link ScrapeException} or yields a sample within its documented ranges (hit rate and
 * pressure in [0, 1], cache bytes in [0, the configured size]).
 *
 * <p>Regression mode (CI) replays {@code PrometheusTextParserFuzzTestInputs/parse/}; fuzz with
 * {@code JAZZER_FUZZ=1} (docs/reliability.md).
 */
class PrometheusTextParserFuzzTest {
  private static final long CACHE_BYTES = 1L << 34;
  private static final Pattern METRIC_NAME = Pattern.compile("[a-zA-Z_:][a-zA-Z0-9_:]*");
  private static final Pattern LABEL_NAME = Pattern.compile("[a-zA-Z_][a-zA-Z0-9_]*");

  /** A vLLM page a fuzzed one follows (the hit-rate delta is taken against it). */
  private static final String VLLM_BASELINE =
      "# TYPE vllm:num_requests_running gauge\n"
          + "vllm:num_requests_running{engine=\"0\",model_name=\"m\"} 1.0\n"
          + "# TYPE vllm:num_requests_waiting gauge\n"
          + "vllm:num_requests_waiting{engine=\"0\",model_name=\"m\"} 0.0\n"
          + "# TYPE vllm:prefix_cache_queries_total counter\n"
          + "vllm:prefix_cache_queries_total{engine=\"0\",model_name=\"m\"} 100.0\n"
          + "# TYPE vllm:prefix_cache_hits_total counter\n"
          + "vllm:prefix_cache_hits_total{engine=\"0\",model_name=\"m\"} 40.0\n";

  @FuzzTest(maxDuration = "2m")
  void parse(final byte[] bytes) {
    final String text = new String(bytes, StandardCharsets.UTF_8);
    final Map<String, Family> families;
    try {
      families = PrometheusTextParser.parse(text);
    } catch (ScrapeException expected) {
      assertThat(expected.getMessage()).startsWith("metrics line ");
      return;
    }
    wellFormed(families);
    for (final MetricsProfile profile : MetricsProfile.values()) {
      for (final CacheTier tier : CacheTier.values()) {
        final StatsScraper twice = scraper(profile, tier, "");
        derive(twice, text);
        derive(twice, text);
      }
      final StatsScraper afterBaseline = scraper(profile, CacheTier.AUTO, "m");
      derive(afterBaseline, VLLM_BASELINE);
      derive(afterBaseline, text);
    }
  }

  private static StatsScraper scraper(
      final MetricsProfile profile, final CacheTier tier, final String model) {
    return new StatsScraper(profile, tier, model, CACHE_BYTES, 16, () -> "");
  }

  private static void derive(final StatsScraper scraper, final String text) {
    final StatsSample s;
    try {
      s = scraper.derive(text);
    } catch (ScrapeException expected) {
      assertThat(expected.getMessage()).isNotBlank();
      return;
    }
    assertThat(s.hitRate()).isBetween(0f, 1f);
    assertThat(s.pressure()).isBetween(0f, 1f);
    assertThat(s.cacheMemoryBytes()).isBetween(0L, CACHE_BYTES);
  }

  private static void wellFormed(final Map<String, Family> families) {
    for (final Map.Entry<String, Family> e : families.entrySet()) {
      final Family f = e.getValue();
      assertThat(f.name()).isEqualTo(e.getKey()).matches(METRIC_NAME);
      assertThat(f.type()).isNotNull();
      assertThat(f.samples()).isNotEmpty().doesNotContainNull();
      for (final Sample s : f.samples()) {
        assertThat(s.name()).matches(METRIC_NAME).startsWith(f.name());
        assertThat(s.timestampMillis()).isNotNull();
        for (final Map.Entry<String, String> l : s.labels().entrySet()) {
          assertThat(l.getKey()).matches(LABEL_NAME);
          assertThat(l.getValue()).isNotNull();
        }
      }
    }
  }
}
