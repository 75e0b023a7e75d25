package io.inferencecache.controlplane.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.client.Collector;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetricsTest {
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
  void collectorExportsTypesLabelsAndOmitsEmptyFamilies() {
    final MetricRegistry registry = new MetricRegistry();
    final RouteMetrics route = new RouteMetrics(registry);
    route.record("llama-3.1-8b", "PREFIX_MATCH", true, 300_000);
    route.record("llama-3.1-8b", "PREFIX_MATCH", true, 300_000);
    route.record("llama-3.1-8b", "NO_HINT", false, 0);
    final IndexMetrics index = new IndexMetrics(registry);
    index.onIndexEntries("llama-3.1-8b", 7);
    index.onEvictions("lfu", "cap", 3);
    index.onTenantEvictions("team-a", "over_entries", 2);
    new ServerMetrics(registry).up(true);
    final List<Collector.MetricFamilySamples> families =
        new InferenceCacheCollector(registry).collect();
    assertThat(families)
        .extracting(f -> f.name)
        .containsExactly(
            "inferencecache_server_up",
            "inferencecache_server_grpc_tls_enabled",
            "inferencecache_index_entries",
            "inferencecache_lookup_route_calls",
            "inferencecache_lookup_route_latency_seconds",
            "inferencecache_index_evictions",
            "inferencecache_tenant_evictions");
    final Collector.MetricFamilySamples calls = families.get(3);
    assertThat(calls.type).isEqualTo(Collector.Type.COUNTER);
    assertThat(calls.samples)
        .anySatisfy(
            s -> {
              assertThat(s.name).isEqualTo("inferencecache_lookup_route_calls_total");
              assertThat(s.labelNames).containsExactly("hint_used", "model", "reason_code");
              assertThat(s.labelValues).containsExactly("true", "llama-3.1-8b", "PREFIX_MATCH");
              assertThat(s.value).isEqualTo(2.0);
            });
    final Collector.MetricFamilySamples latency = families.get(4);
    assertThat(latency.type).isEqualTo(Collector.Type.HISTOGRAM);
    assertThat(latency.samples)
        .anySatisfy(
            s -> {
              assertThat(s.name).isEqualTo("inferencecache_lookup_route_latency_seconds_bucket");
              assertThat(s.labelValues).containsExactly("llama-3.1-8b", "0.0005");
              assertThat(s.value).isEqualTo(3.0);
            });
  }

  @Test
  void authMetricsCountPerResult() {
    final MetricRegistry registry = new MetricRegistry();
    final AuthMetrics m = new AuthMetrics(registry, MetricFamily.POLICY_AUTH);
    m.record(AuthMetrics.Result.OK);
    m.record(AuthMetrics.Result.OK);
    m.record(AuthMetrics.Result.FORBIDDEN);
    assertThat(registry.counter("inferencecache_policy_auth_total{result=\"ok\"}").getCount())
        .isEqualTo(2);
  }
}
