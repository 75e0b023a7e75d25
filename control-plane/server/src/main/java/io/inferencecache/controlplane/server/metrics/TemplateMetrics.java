package io.inferencecache.controlplane.server.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.templates.StableSlotSketch;
import io.inferencecache.templates.TemplateStore;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * RenderTemplate metrics: {@code inferencecache_render_template_total{reason}} ({@link #record} has
 * the shape of the service's {@code RenderMetrics}) and {@code
 * inferencecache_template_stable_slot_distinct_values{namespace,template,slot}}, one gauge per
 * Stable slot of each held template, read from its sketch at each scrape and kept in step with the
 * held set by {@link #templatesReplaced}.
 *
 * <p>Thread-safe; {@link #record} allocates nothing for a reason seen before.
 */
public final class TemplateMetrics {
  private final MetricRegistry registry;
  private final TemplateStore store;
  private final ConcurrentHashMap<String, Counter> byReason = new ConcurrentHashMap<>();
  private final Set<String> gauges = new HashSet<>();

  public TemplateMetrics(final MetricRegistry registry, final TemplateStore store) {
    this.registry = registry;
    this.store = store;
  }

  /** Counts one RenderTemplate answer. */
  public void record(final String reason) {
    Counter c = byReason.get(reason);
    if (c == null) {
      c =
          byReason.computeIfAbsent(
              reason, r -> registry.counter(MetricFamily.RENDER_TEMPLATE.registryName(r)));
    }
    c.inc();
  }

  /**
   * Registers a gauge for every Stable slot of the templates held now and removes those of
   * templates (or slots) no longer held. Call after each replacement of the store.
   */
  public synchronized void templatesReplaced() {
    final Set<String> now = new HashSet<>();
    for (TemplateStore.SlotEstimate e : store.stableSlotEstimates()) {
      final String name =
          MetricFamily.TEMPLATE_STABLE_SLOT_DISTINCT_VALUES.registryName(
              e.namespace(), e.slot(), e.template());
      now.add(name);
      registry.remove(name); // a re-pushed template may hold a new sketch object
      final TemplateStore.Entry entry = store.find(e.namespace() + "/" + e.template());
      final StableSlotSketch sketch = entry == null ? null : entry.stableSketch(e.slot());
      if (sketch != null) {
        registry.register(name, (Gauge<Double>) sketch::estimate);
      }
    }
    for (String old : gauges) {
      if (!now.contains(old)) {
        registry.remove(old);
      }
    }
    gauges.clear();
    gauges.addAll(now);
  }
}
