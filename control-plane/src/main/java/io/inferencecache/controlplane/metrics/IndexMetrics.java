package io.inferencecache.controlplane.metrics;

import com.codahale.metrics.MetricRegistry;
import io.inferencecache.engine.IndexListener;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Feeds {@code inferencecache_index_entries{model}}, {@code
 * inferencecache_index_evictions_total{algorithm,reason}} and {@code
 * inferencecache_tenant_evictions_total{tenant_id,reason}} from the index. Series are created
 * lazily on first report; a drained model's gauge stays, at 0. Thread-safe.
 */
public final class IndexMetrics implements IndexListener {
  private final MetricRegistry registry;
  private final ConcurrentHashMap<String, LongGauge> entries = new ConcurrentHashMap<>();

  public IndexMetrics(final MetricRegistry registry) {
    this.registry = registry;
  }

  @Override
  public void onIndexEntries(final String model, final long distinctKeys) {
    LongGauge g = entries.get(model);
    if (g == null) {
      g =
          entries.computeIfAbsent(
              model,
              m ->
                  Registrations.getOrRegister(
                      registry,
                      MetricFamily.INDEX_ENTRIES.registryName(m),
                      LongGauge::new,
                      LongGauge.class));
    }
    g.set(distinctKeys);
  }

  @Override
  public void onEvictions(final String algorithm, final String reason, final long count) {
    registry.counter(MetricFamily.INDEX_EVICTIONS.registryName(algorithm, reason)).inc(count);
  }

  @Override
  public void onTenantEvictions(final String tenant, final String reason, final long count) {
    registry.counter(MetricFamily.TENANT_EVICTIONS.registryName(reason, tenant)).inc(count);
  }
}
