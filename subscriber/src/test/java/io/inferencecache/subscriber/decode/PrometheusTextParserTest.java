package io.inferencecache.subscriber.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.subscriber.decode.PrometheusTextParser.Family;
import io.inferencecache.subscriber.decode.PrometheusTextParser.Sample;
import io.inferencecache.subscriber.decode.PrometheusTextParser.Type;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class PrometheusTextParserTest {
  @Test
  void parsesFamiliesLabelsValuesTimestampsAndComments() throws Exception {
    final String text =
        "# A plain comment\n"
            + "\n"
            + "# HELP vllm:num_requests_running Number of requests\\\\running \\n now.\n"
            + "# TYPE vllm:num_requests_running gauge\n"
            + "vllm:num_requests_running{model_name=\"m\",engine=\"0\"} 3\n"
            + "vllm:num_requests_running{ model_name = \"a\\\"b\\\\c\\nd\" , } 4.5e1 1700000000000\n"
            + "  # TYPE http_requests untyped\n"
            + "http_requests\t-Inf\n"
            + "nan_metric{} NaN -5\r\n"
            + "inf_metric +Inf\n"
            + "weird_value{x=\"{},=\"} .5\n"
            + "# EOF";

    final Map<String, Family> families = PrometheusTextParser.parse(text);

    assertThat(families.keySet())
        .containsExactly(
            "vllm:num_requests_running",
            "http_requests",
            "nan_metric",
            "inf_metric",
            "weird_value");
    final Family running = families.get("vllm:num_requests_running");
    assertThat(running.type()).isEqualTo(Type.GAUGE);
    assertThat(running.help()).isEqualTo("Number of requests\\running \n now.");
    assertThat(running.samples())
        .containsExactly(
            new Sample(
                "vllm:num_requests_running",
                Map.of("model_name", "m", "engine", "0"),
                3.0,
                OptionalLong.empty()),
            new Sample(
                "vllm:num_requests_running",
                Map.of("model_name", "a\"b\\c\nd"),
                45.0,
                OptionalLong.of(1_700_000_000_000L)));
    assertThat(families.get("http_requests").type()).isEqualTo(Type.UNTYPED);
    assertThat(families.get("http_requests").samples().get(0).value())
        .isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(families.get("nan_metric").samples().get(0).value()).isNaN();
    assertThat(families.get("nan_metric").samples().get(0).timestampMillis()).hasValue(-5);
    assertThat(families.get("inf_metric").samples().get(0).value())
        .isEqualTo(Double.POSITIVE_INFINITY);
    assertThat(families.get("weird_value").samples().get(0).label("x")).isEqualTo("{},=");
  }

  @Test
  void groupsSuffixedSamplesIntoDeclaredFamilies() throws Exception {
    final String text =
        "# TYPE lat histogram\n"
            + "lat_bucket{le=\"0.1\"} 1\n"
            + "lat_bucket{le=\"+Inf\"} 2\n"
            + "lat_sum 0.3\n"
            + "lat_count 2\n"
            + "# TYPE q summary\n"
            + "q{quantile=\"0.5\"} 1\n"
            + "q_sum 1\n"
            + "q_count 1\n"
            + "# TYPE hits counter\n"
            + "hits_total 10\n"
            + "hits_created 1.7e9\n"
            + "# TYPE vllm:prefix_cache_hits_total counter\n"
            + "vllm:prefix_cache_hits_total 5\n"
            + "# TYPE vllm:prefix_cache_hits_created gauge\n"
            + "vllm:prefix_cache_hits_created 1.7e9\n"
            + "orphan_sum 4\n";

    final Map<String, Family> f = PrometheusTextParser.parse(text);

    assertThat(f.get("lat").samples()).hasSize(4);
    assertThat(f.get("q").samples()).hasSize(3);
    assertThat(f.get("hits").type()).isEqualTo(Type.COUNTER);
    assertThat(f.get("hits").samples())
        .extracting(Sample::name)
        .containsExactly("hits_total", "hits_created");
    assertThat(f.get("vllm:prefix_cache_hits_total").type()).isEqualTo(Type.COUNTER);
    assertThat(f.get("vllm:prefix_cache_hits_created").type()).isEqualTo(Type.GAUGE);
    assertThat(f.get("orphan_sum").type()).isEqualTo(Type.UNTYPED);
  }

  @Test
  void dropsFamiliesWithoutSamples() throws Exception {
    assertThat(PrometheusTextParser.parse("# HELP x y\n# TYPE x gauge\n")).isEmpty();
    assertThat(PrometheusTextParser.parse("")).isEmpty();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '`',
      value = {
        "invalid label escape | a{x=\"\\t\"} 1 | line 1: invalid escape sequence \"\\t\" in label \"x\"",
        "unterminated label value | a{x=\"1} 1 | unterminated value of label \"x\"",
        "unterminated label set | a{x=\"1\" 1 | expected ',' or '}' after label \"x\"",
        "duplicate label | a{x=\"1\",x=\"2\"} 1 | duplicate label \"x\"",
        "missing value | a{x=\"1\"} | missing value for \"a\"",
        "missing value no labels | a | missing value for \"a\"",
        "java-only float suffix | a 1.0d | invalid value \"1.0d\"",
        "hex float | a 0x10 | invalid value \"0x10\"",
        "word value | a abc | invalid value \"abc\"",
        "fractional timestamp | a 1 1.5 | invalid timestamp \"1.5\"",
        "huge timestamp | a 1 99999999999999999999 | invalid timestamp",
        "text after timestamp | a 1 2 3 | unexpected text after the timestamp of \"a\"",
        "invalid metric name | 9a 1 | invalid metric name",
        "dash in metric name | a-b 1 | invalid metric name \"a-b\"",
        "invalid label name | a{9=\"1\"} 1 | invalid label name",
        "label without equals | a{x \"1\"} 1 | expected '=' after label name \"x\"",
        "label value unquoted | a{x=1} 1 | expected '\"' to open the value of label \"x\"",
        "unknown type | # TYPE a gaugez | unknown metric type \"gaugez\"",
        "invalid help escape | # HELP a b\\c | invalid escape sequence \"\\c\" in HELP",
        "text after type | # TYPE a gauge extra | unexpected text after TYPE a gauge",
        "bad name in type | # TYPE a-b gauge | invalid metric name in TYPE line",
      })
  void rejectsMalformedLines(final String name, final String line, final String message) {
    assertThatThrownBy(() -> PrometheusTextParser.parse(line + "\n"))
        .isInstanceOf(ScrapeException.class)
        .hasMessageContaining("metrics line 1")
        .hasMessageContaining(message);
  }

  @Test
  void rejectsSecondTypeSecondHelpAndTypeAfterSamples() {
    assertThatThrownBy(() -> PrometheusTextParser.parse("# TYPE a gauge\n# TYPE a counter\n"))
        .hasMessageContaining("line 2: second TYPE line for metric name \"a\"");
    assertThatThrownBy(() -> PrometheusTextParser.parse("# HELP a x\n# HELP a y\n"))
        .hasMessageContaining("second HELP line");
    assertThatThrownBy(() -> PrometheusTextParser.parse("a 1\n# TYPE a gauge\n"))
        .hasMessageContaining("TYPE line for \"a\" after its samples");
  }

  @Test
  void helpAndTypeKeywordsWithoutANameAreComments() throws Exception {
    assertThat(PrometheusTextParser.parse("# HELP\n# TYPE \na 1\n")).containsOnlyKeys("a");
  }
}
