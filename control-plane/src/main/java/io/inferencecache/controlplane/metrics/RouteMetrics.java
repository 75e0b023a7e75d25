package io.inferencecache.controlplane.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import java.util.concurrent.ConcurrentHashMap;

/**
 * LookupRoute metrics: {@code inferencecache_lookup_route_calls_total{model,reason_code,hint_used}}
 * and {@code inferencecache_lookup_route_latency_seconds{model}}. {@link #record} has the shape of
 * the service's {@code io.inferencecache.service.lookup.LookupMetrics#record}, so the gRPC service
 * takes {@code routeMetrics::record}.
 *
 * <p>Thread-safe. For a label set seen before, {@link #record} allocates nothing: the Dropwizard
 * counter and histogram objects are cached per model, then per reason code, then per hint flag
 * (plain {@link ConcurrentHashMap#get} on the caller's strings).
 */
public final class RouteMetrics {
  private final MetricRegistry registry;
  private final ConcurrentHashMap<String, ModelSeries> byModel = new ConcurrentHashMap<>();

  public RouteMetrics(final MetricRegistry registry) {
    this.registry = registry;
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
    Counter[] counters = series.byReason.get(reasonCode);
    if (counters == null) {
      counters = series.counters(reasonCode);
    }
    counters[hintUsed ? 1 : 0].inc();
    series.latency.observe(latencyNanos / 1e9);
  }

  private static final class ModelSeries {
    final MetricRegistry registry;
    final String model;
    final BucketedHistogram latency;
    final ConcurrentHashMap<String, Counter[]> byReason = new ConcurrentHashMap<>();

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

    Counter[] counters(final String reason) {
      return byReason.computeIfAbsent(
          reason,
          r ->
              new Counter[] {
                registry.counter(MetricFamily.LOOKUP_ROUTE_CALLS.registryName("false", model, r)),
                registry.counter(MetricFamily.LOOKUP_ROUTE_CALLS.registryName("true", model, r))
              });
    }
  }
}
