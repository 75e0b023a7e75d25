package io.inferencecache.service.streams;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexListener;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A {@link MetricSource} for an embedded service: the index's own numbers, kept by listening to it
 * (the server streams its {@code /metrics} samples instead). Register it in {@code
 * IndexConfig#listener} (e.g. through {@code IndexListeners.compose}) and, once {@link #bind
 * bound}, read from the index.
 *
 * <table>
 *   <caption>Series</caption>
 *   <tr><th>name</th><th>type</th><th>labels</th><th>source</th></tr>
 *   <tr><td>{@value #INDEX_ENTRIES}</td><td>gauge</td><td>model</td>
 *       <td>distinct prefix keys per model, reserved tenant excluded; drained models stay at 0
 *       (docs/behaviour.md#metrics)</td></tr>
 *   <tr><td>{@value #INDEX_EVICTIONS}</td><td>counter</td><td>algorithm, reason</td>
 *       <td>storage entries evicted by cap or TTL (docs/behaviour.md#metrics)</td></tr>
 *   <tr><td>{@value #TENANT_EVICTIONS}</td><td>counter</td><td>tenant_id, reason</td>
 *       <td>prefix keys dropped by tenant quotas (docs/behaviour.md#metrics)</td></tr>
 *   <tr><td>{@value #STORAGE_ENTRIES}</td><td>gauge</td><td></td>
 *       <td>storage entries, reserved tenant excluded (bound only)</td></tr>
 *   <tr><td>{@value #OFF_HEAP_BYTES}</td><td>gauge</td><td></td>
 *       <td>off-heap bytes of the prefix map and LFU counters (bound only)</td></tr>
 *   <tr><td>{@value #DIRECTORY_HEAP_BYTES}</td><td>gauge</td><td></td>
 *       <td>heap bytes of the index's block directory, allocated (bound only)</td></tr>
 *   <tr><td>{@value #REJECTED_HASHES}</td><td>counter</td><td></td>
 *       <td>hashes the index refused as too long (bound only; over gRPC such entries are dropped
 * before, by {@code IngestRules})</td></tr>
 *   <tr><td>{@value #DROPPED_FULL}</td><td>counter</td><td></td>
 *       <td>entries dropped because no room could be made (bound only)</td></tr>
 * </table>
 *
 * <p>Thread-safe: the listener side runs on the index's writer thread, {@link #sample()} on any.
 */
public final class IndexMetricSource implements IndexListener, MetricSource {
  public static final String INDEX_ENTRIES = "inferencecache_index_entries";
  public static final String INDEX_EVICTIONS = "inferencecache_index_evictions_total";
  public static final String TENANT_EVICTIONS = "inferencecache_tenant_evictions_total";
  public static final String STORAGE_ENTRIES = "inferencecache_index_storage_entries";
  public static final String OFF_HEAP_BYTES = "inferencecache_index_off_heap_bytes";
  public static final String DIRECTORY_HEAP_BYTES = "inferencecache_index_directory_heap_bytes";
  public static final String REJECTED_HASHES = "inferencecache_index_rejected_hashes_total";
  public static final String DROPPED_FULL = "inferencecache_index_dropped_full_total";

  private record LabelPair(String first, String second) {}

  private final Map<String, Long> modelEntries = new ConcurrentHashMap<>();
  private final Map<LabelPair, LongAdder> evictions = new ConcurrentHashMap<>();
  private final Map<LabelPair, LongAdder> tenantEvictions = new ConcurrentHashMap<>();
  private volatile CacheIndex index;

  /** Reads the index-wide totals from {@code index} from now on (open it with this listener). */
  public IndexMetricSource bind(final CacheIndex index) {
    this.index = index;
    return this;
  }

  @Override
  public void onIndexEntries(final String model, final long distinctKeys) {
    modelEntries.put(model, distinctKeys);
  }

  @Override
  public void onEvictions(final String algorithm, final String reason, final long count) {
    evictions.computeIfAbsent(new LabelPair(algorithm, reason), k -> new LongAdder()).add(count);
  }

  @Override
  public void onTenantEvictions(final String tenant, final String reason, final long count) {
    tenantEvictions.computeIfAbsent(new LabelPair(tenant, reason), k -> new LongAdder()).add(count);
  }

  @Override
  public List<MetricSample> sample() {
    final List<MetricSample> out =
        new ArrayList<>(modelEntries.size() + evictions.size() + tenantEvictions.size() + 4);
    modelEntries.forEach(
        (model, keys) -> out.add(MetricSample.gauge(INDEX_ENTRIES, Map.of("model", model), keys)));
    evictions.forEach(
        (k, n) ->
            out.add(
                MetricSample.counter(
                    INDEX_EVICTIONS,
                    Map.of("algorithm", k.first(), "reason", k.second()),
                    n.sum())));
    tenantEvictions.forEach(
        (k, n) ->
            out.add(
                MetricSample.counter(
                    TENANT_EVICTIONS,
                    Map.of("tenant_id", k.first(), "reason", k.second()),
                    n.sum())));
    final CacheIndex ix = index;
    if (ix != null) {
      out.add(
          MetricSample.gauge(STORAGE_ENTRIES, Map.of(), ix.totalEntries() - ix.reservedEntries()));
      try {
        out.add(MetricSample.gauge(OFF_HEAP_BYTES, Map.of(), ix.offHeapBytes()));
        out.add(MetricSample.gauge(DIRECTORY_HEAP_BYTES, Map.of(), ix.directoryBytes()));
      } catch (RuntimeException closed) {
        // the index is closing: leave the gauge out of this tick
      }
      out.add(MetricSample.counter(REJECTED_HASHES, Map.of(), ix.rejectedHashes()));
      out.add(MetricSample.counter(DROPPED_FULL, Map.of(), ix.droppedFull()));
    }
    return out;
  }
}
