package io.inferencecache.subscriber.source;

import java.util.ArrayList;
import java.util.List;

/**
 * The metric names one engine exposes and how its hit rate is derived; chosen by {@code
 * --hash-scheme}. A scraper reads exactly one profile, so pointing it at the other engine
 * recognises nothing and fails loud instead of reporting zeros.
 */
public enum MetricsProfile {
  /** vLLM: usage kv → max(gpu, cpu), Δhits/Δqueries hit rate, raw T2 counters. */
  VLLM(
      "vllm",
      "vllm:kv_cache_usage_perc",
      "vllm:gpu_cache_usage_perc",
      "vllm:cpu_cache_usage_perc",
      "vllm:num_requests_running",
      "vllm:num_requests_waiting",
      null,
      "vllm:prefix_cache_hits",
      "vllm:prefix_cache_queries",
      "vllm:external_prefix_cache_hits",
      "vllm:external_prefix_cache_queries"),
  /** SGLang: usage {@code sglang:token_usage}, hit rate read from a gauge, no T2 counters. */
  SGLANG(
      "sglang",
      "sglang:token_usage",
      null,
      null,
      "sglang:num_running_reqs",
      "sglang:num_queue_reqs",
      "sglang:cache_hit_rate",
      null,
      null,
      null,
      null);

  final String scheme;
  final String usageKv;
  final String usageGpu;
  final String usageCpu;
  final String running;
  final String waiting;
  final String hitRateGauge;
  final String hits;
  final String queries;
  final String extHits;
  final String extQueries;

  MetricsProfile(
      final String scheme,
      final String usageKv,
      final String usageGpu,
      final String usageCpu,
      final String running,
      final String waiting,
      final String hitRateGauge,
      final String hits,
      final String queries,
      final String extHits,
      final String extQueries) {
    this.scheme = scheme;
    this.usageKv = usageKv;
    this.usageGpu = usageGpu;
    this.usageCpu = usageCpu;
    this.running = running;
    this.waiting = waiting;
    this.hitRateGauge = hitRateGauge;
    this.hits = hits;
    this.queries = queries;
    this.extHits = extHits;
    this.extQueries = extQueries;
  }

  /** {@code sglang} → {@link #SGLANG}; anything else → {@link #VLLM}. */
  public static MetricsProfile forScheme(final String hashScheme) {
    return SGLANG.scheme.equals(hashScheme) ? SGLANG : VLLM;
  }

  /** The hash scheme this profile belongs to. */
  public String scheme() {
    return scheme;
  }

  /** Whether the hit rate is a gauge the engine computes (else a counter delta). */
  public boolean hitRateFromGauge() {
    return hitRateGauge != null;
  }

  /** Every family name this profile reads (counters without their {@code _total}). */
  public List<String> knownNames() {
    final List<String> out = new ArrayList<>();
    for (final String n :
        new String[] {
          usageKv,
          usageGpu,
          usageCpu,
          running,
          waiting,
          hitRateGauge,
          hits,
          queries,
          extHits,
          extQueries
        }) {
      if (n != null) {
        out.add(n);
      }
    }
    return out;
  }
}
