package io.inferencecache.controlplane.server.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.BucketedHistogram;
import io.inferencecache.controlplane.metrics.MetricFamily;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * LookupRoute metrics ({@link #pd()}: LookupPDRoute's): {@code
 * inferencecache_lookup_route_calls_total{model,reason_code,hint_used}} and {@code
 * inferencecache_lookup_route_latency_seconds{model}}. {@link #record} has the shape of the
 * service's {@code io.inferencecache.service.lookup.LookupMetrics#record}, so the gRPC service
 * takes {@code routeMetrics::record}.
 *
 * <p>Only label sets that were recorded are exported, as a Prometheus client vector does: the
 * counter of {@code (model, reason_code, hint_used)} is registered at its first call, never before
 * (so no {@code {reason_code="NO_HINT",hint_used="true"} 0} series; {@code hint_used} follows from
 * the reason code in practice, and a pair that never happens never shows).
 *
 * <p>Thread-safe. For a label set seen before, {@link #record} allocates nothing: the Dropwizard
 * counter and histogram objects are cached per model, then per reason code, then per hint flag
 * (plain {@link ConcurrentHashMap#get} on the caller's strings and an array read).
 */
public final class RouteMetrics {
  private final MetricRegistry registry;
  private final ConcurrentHashMap<String, ModelSeries> byModel = new ConcurrentHashMap<>();
  private final PdMetrics pd;

  public RouteMetrics(final MetricRegistry registry) {
    this.registry = registry;
    this.pd = new PdMetrics(registry);
  }

  /** The LookupPDRoute metrics (the service takes {@code pd()::record}). */
  public PdMetrics pd() {
    return pd;
  }

  /**
   * Records one LookupRoute call.
   *
   * @param model the request's model_id
   * @param reasonCode the response's reason code
   * @param hintUsed whether the response carried at least one replica score
   * @param latencyNanos total handler time (0 for the probe-tenant short-circuit)
   */
  public void record(
      final String model,
      final String reasonCode,
      final boolean hintUsed,
      final long latencyNanos) {
    ModelSeries series = byModel.get(model);
    if (series == null) {
      series = byModel.computeIfAbsent(model, m -> new ModelSeries(registry, m));
    }
    AtomicReferenceArray<Counter> counters = series.byReason.get(reasonCode);
    if (counters == null) {
      counters = series.byReason.computeIfAbsent(reasonCode, r -> new AtomicReferenceArray<>(2));
    }
    Counter c = counters.get(hintUsed ? 1 : 0);
    if (c == null) {
      c = series.counter(counters, reasonCode, hintUsed);
    }
    c.inc();
    series.latency.observe(latencyNanos / 1e9);
  }

  private static final class ModelSeries {
    final MetricRegistry registry;
    final String model;
    final BucketedHistogram latency;
    final ConcurrentHashMap<String, AtomicReferenceArray<Counter>> byReason =
        new ConcurrentHashMap<>();

    ModelSeries(final MetricRegistry registry, final String model) {
      this.registry = registry;
      this.model = model;
      this.latency =
          Registrations.getOrRegister(
              registry,
              MetricFamily.LOOKUP_ROUTE_LATENCY.registryName(model),
              () -> new BucketedHistogram(MetricFamily.LATENCY_BUCKETS),
              BucketedHistogram.class);
    }

    /**
     * Registers the counter of {@code (reason, hintUsed)} on its first use and publishes it in
     * {@code slots} (the registry returns the same counter to a racing caller).
     */
    Counter counter(
        final AtomicReferenceArray<Counter> slots, final String reason, final boolean hintUsed) {
      final Counter c =
          registry.counter(
              MetricFamily.LOOKUP_ROUTE_CALLS.registryName(
                  Boolean.toString(hintUsed), model, reason));
      slots.set(hintUsed ? 1 : 0, c);
      return c;
    }
  }
}
