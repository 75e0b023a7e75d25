package io.inferencecache.controlplane.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The exposition's naming and histogram rules (the server's own series are tested in the server).
 */
class ExpositionTest {
  @Test
  void namesRoundTripAnyLabelValue() {
    final String[] names = {"model", "reason_code"};
    for (final String v :
        List.of(
            "llama-3.1-8b", "a\"b", "x\\y", "new\nline", "{}=,\"", "", "meta-llama/Llama-3.1")) {
      final String encoded = MetricNames.encode("m_total", names, v, "R");
      final MetricNames.Decoded d = MetricNames.decode(encoded);
      assertThat(d.base()).isEqualTo("m_total");
      assertThat(d.labelNames()).containsExactly("model", "reason_code");
      assertThat(d.labelValues()).containsExactly(v, "R");
    }
    assertThat(MetricNames.decode("plain").labelNames()).isEmpty();
  }

  @Test
  void histogramBucketsAreCumulativeWithLeSemantics() {
    final BucketedHistogram h = new BucketedHistogram(MetricFamily.LATENCY_BUCKETS);
    h.observe(0.0001);
    h.observe(0.0002);
    h.observe(0.2);
    assertThat(h.cumulativeCounts()).containsExactly(1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 3);
    assertThat(h.sum()).isCloseTo(0.2003, org.assertj.core.data.Offset.offset(1e-12));
  }

  @Test
  void bridgeNamesAreWrittenInSnakeCase() {
    assertThat(
            SnakeCaseSampleBuilder.snakeCase(
                "io_dropwizard_jetty_MutableServletContextHandler_active_requests"))
        .isEqualTo("io_dropwizard_jetty_mutable_servlet_context_handler_active_requests");
    assertThat(SnakeCaseSampleBuilder.snakeCase("TimeBoundHealthCheck_pool_running"))
        .isEqualTo("time_bound_health_check_pool_running");
    assertThat(SnakeCaseSampleBuilder.snakeCase("HTTPServer_2xx_responses_total"))
        .isEqualTo("http_server_2xx_responses_total");
    assertThat(SnakeCaseSampleBuilder.snakeCase("jvm_memory_bytes")).isEqualTo("jvm_memory_bytes");
  }
}
