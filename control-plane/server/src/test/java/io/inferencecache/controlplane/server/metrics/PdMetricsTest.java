package io.inferencecache.controlplane.server.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.InferenceCacheCollector;
import io.inferencecache.engine.pd.PdMember;
import io.inferencecache.engine.pd.PdPool;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import io.inferencecache.engine.pd.PdTopologyStore;
import io.prometheus.client.Collector;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** {@link PdMetrics}: calls by reason, the latency histogram, and pool gauges replaced whole. */
class PdMetricsTest {
  static Map<String, Collector.MetricFamilySamples> families(final MetricRegistry registry) {
    return new InferenceCacheCollector(registry)
        .collect().stream().collect(Collectors.toMap(f -> f.name, f -> f));
  }

  static PdTopology topology(final String name, final int decodeMembers) {
    final List<PdMember> dc =
        java.util.stream.IntStream.range(0, decodeMembers)
            .mapToObj(i -> new PdMember("dc-" + i, ""))
            .toList();
    return new PdTopology(
        "team-a",
        name,
        "",
        0,
        null,
        0,
        List.of(new PdPool("prefill", "", List.of(new PdMember("pf-0", "")))),
        List.of(new PdPool("decode", "", dc)),
        List.of());
  }

  @Test
  void callsAreCountedByReasonAndNothingIsExportedBeforeTheFirst() {
    final MetricRegistry registry = new MetricRegistry();
    final PdMetrics pd = new RouteMetrics(registry).pd();
    assertThat(families(registry)).isEmpty();
    pd.record("PD_PAIR", 200_000);
    pd.record("PD_PAIR", 200_000);
    pd.record("PD_DECODE_LOCAL", 50_000);
    final Map<String, Collector.MetricFamilySamples> f = families(registry);
    assertThat(f.get("inferencecache_pd_route").type).isEqualTo(Collector.Type.COUNTER);
    assertThat(f.get("inferencecache_pd_route").samples)
        .anySatisfy(
            s -> {
              assertThat(s.name).isEqualTo("inferencecache_pd_route_total");
              assertThat(s.labelValues).containsExactly("PD_PAIR");
              assertThat(s.value).isEqualTo(2.0);
            });
    assertThat(f.get("inferencecache_pd_route_latency_seconds").samples)
        .anySatisfy(
            s -> {
              assertThat(s.name).isEqualTo("inferencecache_pd_route_latency_seconds_count");
              assertThat(s.value).isEqualTo(3.0);
            });
  }

  @Test
  void poolGaugesFollowEachPushWhole() {
    final MetricRegistry registry = new MetricRegistry();
    final PdMetrics pd = new PdMetrics(registry);
    pd.pools(new PdTopologySnapshot(1, List.of(topology("one", 3), topology("two", 0))));
    final Collector.MetricFamilySamples pools =
        families(registry).get("inferencecache_pd_pool_replicas");
    assertThat(pools.type).isEqualTo(Collector.Type.GAUGE);
    assertThat(pools.samples).hasSize(4);
    assertThat(pools.samples)
        .anySatisfy(
            s -> {
              assertThat(s.labelNames).containsExactly("namespace", "pool", "role", "topology");
              assertThat(s.labelValues).containsExactly("team-a", "decode", "decode", "one");
              assertThat(s.value).isEqualTo(3.0);
            });
    pd.pools(new PdTopologySnapshot(1, List.of(topology("two", 5))));
    final Collector.MetricFamilySamples after =
        families(registry).get("inferencecache_pd_pool_replicas");
    assertThat(after.samples).hasSize(2).noneMatch(s -> s.labelValues.contains("one"));
    assertThat(after.samples)
        .anySatisfy(
            s -> {
              assertThat(s.labelValues).containsExactly("team-a", "decode", "decode", "two");
              assertThat(s.value).isEqualTo(5.0);
            });
    pd.pools(PdTopologySnapshot.EMPTY);
    assertThat(families(registry)).doesNotContainKey("inferencecache_pd_pool_replicas");
  }

  @Test
  void anOvertakenPushLeavesTheGaugesOfTheSetHeldNow() {
    final MetricRegistry registry = new MetricRegistry();
    final PdMetrics pd = new PdMetrics(registry);
    final PdTopologyStore store = new PdTopologyStore(String::hashCode);
    // Two pushes overlap: A stores its set, B stores its set and writes its gauges, and only then
    // does A write its gauges. A's late write must not bring back A's pool sizes.
    store.replace(new PdTopologySnapshot(1, List.of(topology("one", 3))));
    store.replace(new PdTopologySnapshot(1, List.of(topology("one", 7))));
    pd.pools(store::current); // B
    pd.pools(store::current); // A, late
    assertThat(families(registry).get("inferencecache_pd_pool_replicas").samples)
        .anySatisfy(
            s -> {
              assertThat(s.labelValues).containsExactly("team-a", "decode", "decode", "one");
              assertThat(s.value).isEqualTo(7.0);
            });
  }
}
