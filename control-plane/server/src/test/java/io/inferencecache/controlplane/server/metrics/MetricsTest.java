package io.inferencecache.controlplane.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.InferenceCacheCollector;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.controlplane.metrics.PrometheusExposition;
import io.inferencecache.controlplane.support.PromText;
import io.prometheus.client.Collector;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class MetricsTest {
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
  void lookupRouteCallsExportOnlyTheLabelSetsThatWereRecorded() throws Exception {
    final MetricRegistry registry = new MetricRegistry();
    final RouteMetrics route = new RouteMetrics(registry);
    for (int i = 0; i < 3; i++) {
      route.record("M", "PREFIX_MATCH", true, 100_000);
    }
    route.record("M", "AFFINITY_HINT", true, 100_000);
    route.record("M", "AFFINITY_HINT", true, 100_000);
    route.record("M", "NO_HINT", false, 0);
    final java.io.StringWriter out = new java.io.StringWriter();
    new PrometheusExposition(registry).write(out);
    final PromText text = PromText.parse(out.toString());
    assertThat(text.named("inferencecache_lookup_route_calls_total"))
        .containsExactlyInAnyOrder(
            calls("true", "PREFIX_MATCH", 3),
            calls("true", "AFFINITY_HINT", 2),
            calls("false", "NO_HINT", 1));
  }

  private static PromText.Sample calls(final String hint, final String reason, final double n) {
    return new PromText.Sample(
        "inferencecache_lookup_route_calls_total",
        Map.of("hint_used", hint, "model", "M", "reason_code", reason),
        n);
  }

  /**
   * The recording path of a label set seen before allocates nothing: exact bytes of this thread
   * ({@code ThreadMXBean#getCurrentThreadAllocatedBytes}), the least of five rounds of 100k calls.
   */
  @Test
  void recordingASeenLabelSetAllocatesNothing() {
    final RouteMetrics route = new RouteMetrics(new MetricRegistry());
    final String model = new String("llama-3.1-8b".toCharArray()); // not an interned literal
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
    final int calls = 100_000;
    long least = Long.MAX_VALUE;
    for (int round = 0; round < 5; round++) {
      final long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < calls; i++) {
        route.record(model, (i & 1) == 0 ? "PREFIX_MATCH" : "NO_HINT", (i & 1) == 0, 250_000);
      }
      least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
    }
    System.out.printf(
        java.util.Locale.ROOT,
        "RouteMetrics.record: %.4f B/call (least of 5 rounds of %d)%n",
        (double) least / calls,
        calls);
    assertThat((double) least / calls).isLessThan(0.01);
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
