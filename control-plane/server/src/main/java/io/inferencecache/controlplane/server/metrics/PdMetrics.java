package io.inferencecache.controlplane.server.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.BucketedHistogram;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.engine.pd.PdPool;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * LookupPDRoute metrics: {@code inferencecache_pd_route_total{reason}}, {@code
 * inferencecache_pd_route_latency_seconds} and {@code
 * inferencecache_pd_pool_replicas{namespace,topology,pool,role}}. {@link #record} has the shape of
 * the service's {@code PdRouteMetrics#record}. A reason's counter and the histogram are registered
 * at their first call; the pool gauges are replaced whole by {@link #pools} after each push (a
 * topology or pool no longer pushed disappears). Thread-safe; {@link #record} allocates nothing for
 * a reason seen before.
 */
public final class PdMetrics {
  private final MetricRegistry registry;
  private volatile BucketedHistogram latency;
  private final ConcurrentHashMap<String, Counter> byReason = new ConcurrentHashMap<>();
  private final Object poolsLock = new Object();
  private List<String> poolSeries = List.of();

  public PdMetrics(final MetricRegistry registry) {
    this.registry = registry;
  }

  /** Records one LookupPDRoute call. */
  public void record(final String reasonCode, final long latencyNanos) {
    Counter c = byReason.get(reasonCode);
    if (c == null) {
      c =
          byReason.computeIfAbsent(
              reasonCode, r -> registry.counter(MetricFamily.PD_ROUTE_CALLS.registryName(r)));
    }
    c.inc();
    BucketedHistogram h = latency;
    if (h == null) { // registered at the first call, so a server without P/D exports no family
      h =
          Registrations.getOrRegister(
              registry,
              MetricFamily.PD_ROUTE_LATENCY.registryName(),
              () -> new BucketedHistogram(MetricFamily.LATENCY_BUCKETS),
              BucketedHistogram.class);
      latency = h;
    }
    h.observe(latencyNanos / 1e9);
  }

  /** Replaces the pool gauges with those of {@code snapshot} (members listed per pool). */
  public void pools(final PdTopologySnapshot snapshot) {
    pools(() -> snapshot);
  }

  /**
   * Replaces the pool gauges with those of the set {@code held} gives (the store's current one),
   * read under the gauges' lock: of two pushes that overlap, the one whose gauges are written last
   * reads the set stored last, so the gauges never describe a set the server no longer holds.
   */
  public void pools(final Supplier<PdTopologySnapshot> held) {
    synchronized (poolsLock) {
      final PdTopologySnapshot snapshot = held.get();
      for (final String name : poolSeries) {
        registry.remove(name);
      }
      final List<String> names = new ArrayList<>();
      for (final PdTopology t : snapshot.topologies()) {
        register(names, t, "prefill", t.prefillPools());
        register(names, t, "decode", t.decodePools());
      }
      poolSeries = List.copyOf(names);
    }
  }

  private void register(
      final List<String> names, final PdTopology t, final String role, final List<PdPool> pools) {
    for (final PdPool p : pools) {
      final String name =
          MetricFamily.PD_POOL_REPLICAS.registryName(t.namespace(), p.name(), role, t.name());
      registry.remove(name); // a ref pushed twice: the last one's count, as the store keeps
      final LongGauge g =
          Registrations.getOrRegister(registry, name, LongGauge::new, LongGauge.class);
      g.set(p.members().size());
      names.add(name);
    }
  }
}
