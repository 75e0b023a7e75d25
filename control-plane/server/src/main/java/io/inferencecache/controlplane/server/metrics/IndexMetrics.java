package io.inferencecache.controlplane.server.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexListener;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * Feeds {@code inferencecache_index_entries{model}}, {@code
 * inferencecache_index_evictions_total{algorithm,reason}} and {@code
 * inferencecache_tenant_evictions_total{tenant_id,reason}} from the index (created lazily on first
 * report; a drained model's gauge stays, at 0) and the index-wide {@link #totals}. Thread-safe.
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

  /**
   * Exports {@code inferencecache_index_storage_entries}, {@code
   * inferencecache_index_off_heap_bytes}, {@code inferencecache_index_directory_heap_bytes} and
   * {@code inferencecache_index_dropped_full_total}, read from the open index at each scrape; while
   * {@code index} gives {@code null} (not open yet) or the index is closing they are left out.
   */
  public void totals(final Supplier<CacheIndex> index) {
    registry.gauge(
        MetricFamily.INDEX_STORAGE_ENTRIES.registryName(),
        () -> (Gauge<Long>) () -> read(index, ix -> ix.totalEntries() - ix.reservedEntries()));
    registry.gauge(
        MetricFamily.INDEX_OFF_HEAP_BYTES.registryName(),
        () -> (Gauge<Long>) () -> read(index, CacheIndex::offHeapBytes));
    registry.gauge(
        MetricFamily.INDEX_DIRECTORY_HEAP_BYTES.registryName(),
        () -> (Gauge<Long>) () -> read(index, CacheIndex::directoryBytes));
    registry.gauge(
        MetricFamily.INDEX_DROPPED_FULL.registryName(),
        () -> (Gauge<Long>) () -> read(index, CacheIndex::droppedFull));
  }

  private static Long read(final Supplier<CacheIndex> index, final ToLongFunction<CacheIndex> f) {
    final CacheIndex ix = index.get();
    if (ix == null) {
      return null;
    }
    try {
      return f.applyAsLong(ix);
    } catch (RuntimeException closing) {
      return null;
    }
  }
}
