package io.inferencecache.controlplane.controller.backend;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;

/**
 * The CacheBackend metrics of the controller's {@code /metrics}: probe stage results (one increment
 * per stage per probe call), and the tier-2 hit rate and query tokens the snapshot projection
 * derives per backend ({@code backend} = {@code ns/name}).
 */
public final class BackendMetrics {
  final Counter probeResults =
      Counter.build()
          .name("inferencecache_backend_probe_result_total")
          .help("Functional probe stage results per CacheBackend.")
          .labelNames("backend", "stage", "result")
          .create();
  final Gauge t2HitRate =
      Gauge.build()
          .name("inferencecache_backend_t2_hit_rate")
          .help("Tier-2 hit rate of a CacheBackend's replicas (hit tokens / query tokens).")
          .labelNames("backend")
          .create();
  final Counter t2QueryTokens =
      Counter.build()
          .name("inferencecache_backend_t2_query_tokens_total")
          .help("Tier-2 query tokens of a CacheBackend's replicas (positive deltas).")
          .labelNames("backend")
          .create();

  /** Registers the three families with {@code registry}. */
  public void register(final CollectorRegistry registry) {
    registry.register(probeResults);
    registry.register(t2HitRate);
    registry.register(t2QueryTokens);
  }

  /** The current count of one probe series (0 when it does not exist yet). */
  public double probeResult(final String backend, final String stage, final String result) {
    return probeResults.labels(backend, stage, result).get();
  }
}
