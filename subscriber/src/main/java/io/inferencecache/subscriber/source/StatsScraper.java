package io.inferencecache.subscriber.source;

import io.inferencecache.subscriber.config.CacheTier;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.PrometheusTextParser;
import io.inferencecache.subscriber.decode.ScrapeException;
import io.inferencecache.subscriber.decode.StatsSample;
import java.util.Map;
import java.util.Objects;

/**
 * Derives a {@link StatsSample} from an engine's Prometheus exposition with one {@link
 * MetricsProfile}:
 *
 * <ul>
 *   <li><b>load</b>: running + waiting gauges, each summed across series (SGLang's {@code
 *       priority="<n>"} breakdown series excluded); both are required, else the scrape fails.
 *       {@code pressure = clamp01((running + waiting) / ceiling)}, 0 when the ceiling or the load
 *       is ≤ 0.
 *   <li><b>usage</b>: max across series of the tier's gauge ({@link CacheTier}: auto = kv, else
 *       max(gpu, cpu)); {@code cache_memory_bytes = clamp01(usage) × cacheSizeBytes}, 0 when the
 *       size is 0 or no usage gauge is present.
 *   <li><b>hit rate</b>, vLLM: Δhits / Δqueries of the {@code prefix_cache_hits/queries} counters
 *       (family {@code name_total}, else {@code name}, summed) between scrapes: 0 on the first
 *       scrape, on a reset (Δhits &lt; 0) or when Δqueries ≤ 0 (the baseline moves either way); 0
 *       with the baseline kept when either counter is missing. SGLang: the {@code cache_hit_rate}
 *       gauge, max across series, clamped to [0, 1]; 0 when absent.
 *   <li><b>T2</b> (vLLM only): the {@code external_prefix_cache_hits/queries} counters, raw.
 * </ul>
 *
 * <p>A gauge is read only from a family typed {@code gauge}, a counter only from one typed {@code
 * counter}; NaN and infinite values are skipped. With a {@code model_name} filter only series
 * carrying that label value count. An exposition with none of the profile's families, or missing a
 * load gauge after the filter, fails with {@link ScrapeException} without touching the hit-rate
 * baseline.
 *
 * <p>Thread-safe: {@link #derive} is synchronized (it owns the hit-rate baseline).
 */
public final class StatsScraper {
  /** The label the {@code --engine-model-name} filter matches. */
  public static final String MODEL_LABEL = "model_name";

  private final MetricsProfile profile;
  private final CacheTier tier;
  private final String modelLabel;
  private final long cacheSizeBytes;
  private final int ceiling;
  private final MetricsFetcher fetcher;

  private boolean havePrevious;
  private double previousHits;
  private double previousQueries;

  /**
   * @param profile the engine's metric names
   * @param tier which usage gauge to read
   * @param modelLabel {@code model_name} filter; empty = none
   * @param cacheSizeBytes the engine's KV-cache capacity; 0 = unknown
   * @param ceiling the pressure denominator
   * @param fetcher where {@link #scrape()} gets the exposition
   */
  public StatsScraper(
      final MetricsProfile profile,
      final CacheTier tier,
      final String modelLabel,
      final long cacheSizeBytes,
      final int ceiling,
      final MetricsFetcher fetcher) {
    this.profile = Objects.requireNonNull(profile, "profile");
    this.tier = Objects.requireNonNull(tier, "tier");
    this.modelLabel = Objects.requireNonNull(modelLabel, "modelLabel");
    this.cacheSizeBytes = cacheSizeBytes;
    this.ceiling = ceiling;
    this.fetcher = Objects.requireNonNull(fetcher, "fetcher");
  }

  /** A scraper of {@code config}'s engine over HTTP. */
  public static StatsScraper fromConfig(final SubscriberConfig config) {
    return fromConfig(config, new HttpMetricsFetcher(config.engineMetricsUrl()));
  }

  /** A scraper of {@code config}'s engine through {@code fetcher}. */
  public static StatsScraper fromConfig(
      final SubscriberConfig config, final MetricsFetcher fetcher) {
    return new StatsScraper(
        MetricsProfile.forScheme(config.hashScheme()),
        config.cacheTier(),
        config.engineModelName(),
        config.engineCacheSizeBytes(),
        config.maxConcurrencyCeiling(),
        fetcher);
  }

  /** The profile in use. */
  public MetricsProfile profile() {
    return profile;
  }

  /** Fetches and derives one sample. */
  public StatsSample scrape() throws ScrapeException {
    return derive(fetcher.fetch());
  }

  /** Derives one sample from an exposition (advancing the vLLM hit-rate baseline). */
  public synchronized StatsSample derive(final String exposition) throws ScrapeException {
    final Map<String, PrometheusTextParser.Family> families =
        PrometheusTextParser.parse(exposition);
    if (!hasAnyKnownFamily(families)) {
      throw new ScrapeException(
          "no recognized "
              + profile.scheme()
              + " metric families in response ("
              + families.size()
              + " parsed); wrong engine, port, or metric-name scheme");
    }
    final Reading running = gauge(families, profile.running, true);
    final Reading waiting = gauge(families, profile.waiting, true);
    if (!running.present || !waiting.present) {
      throw new ScrapeException(
          profile.scheme()
              + " load gauges incomplete (running="
              + running.present
              + ", waiting="
              + waiting.present
              + "); partial exposition, engine without metrics, or model_name=\""
              + modelLabel
              + "\" excludes them");
    }
    final double pressure = pressure(running.value + waiting.value, ceiling);
    final Reading usage = usage(families);
    final double hitRate = hitRate(families);
    final Reading extHits = counter(families, profile.extHits);
    final Reading extQueries = counter(families, profile.extQueries);
    // A ratio outside [0, 1] (a gauge of 5.5 or -3) must not report more than the cache or less
    // than nothing.
    final long cacheBytes =
        cacheSizeBytes > 0 ? (long) (clamp01(usage.value) * cacheSizeBytes) : 0L;
    return new StatsSample(
        cacheBytes,
        (float) hitRate,
        (float) pressure,
        (long) extHits.value,
        (long) extQueries.value);
  }

  /** {@code clamp01(load / ceiling)}; 0 when either is ≤ 0. */
  static double pressure(final double load, final int ceiling) {
    if (ceiling <= 0 || !(load > 0)) {
      return 0.0;
    }
    return clamp01(load / ceiling);
  }

  /** {@code v} within [0, 1]; NaN → 0. */
  static double clamp01(final double v) {
    if (!(v > 0)) {
      return 0.0; // also NaN: Δhits / Δqueries of two counters summed past Double.MAX_VALUE
    }
    return v > 1 ? 1.0 : v;
  }

  private boolean hasAnyKnownFamily(final Map<String, PrometheusTextParser.Family> families) {
    for (final String name : profile.knownNames()) {
      if (families.containsKey(name) || families.containsKey(name + "_total")) {
        return true;
      }
    }
    return false;
  }

  private Reading usage(final Map<String, PrometheusTextParser.Family> families) {
    switch (tier) {
      case KV:
        return gauge(families, profile.usageKv, false);
      case GPU:
        return gauge(families, profile.usageGpu, false);
      case CPU:
        return gauge(families, profile.usageCpu, false);
      default:
        final Reading kv = gauge(families, profile.usageKv, false);
        if (kv.present) {
          return kv;
        }
        final Reading gpu = gauge(families, profile.usageGpu, false);
        final Reading cpu = gauge(families, profile.usageCpu, false);
        if (gpu.present && cpu.present) {
          return gpu.value >= cpu.value ? gpu : cpu;
        }
        return gpu.present ? gpu : cpu;
    }
  }

  private double hitRate(final Map<String, PrometheusTextParser.Family> families) {
    if (profile.hitRateFromGauge()) {
      final Reading r = gauge(families, profile.hitRateGauge, false);
      return r.present ? clamp01(r.value) : 0.0;
    }
    final Reading hits = counter(families, profile.hits);
    final Reading queries = counter(families, profile.queries);
    if (!hits.present || !queries.present) {
      return 0.0; // keep the baseline: a reappearing counter must not fake a lifetime spike
    }
    if (!havePrevious) {
      havePrevious = true;
      previousHits = hits.value;
      previousQueries = queries.value;
      return 0.0;
    }
    final double deltaHits = hits.value - previousHits;
    final double deltaQueries = queries.value - previousQueries;
    previousHits = hits.value;
    previousQueries = queries.value;
    if (deltaHits < 0 || deltaQueries <= 0) {
      return 0.0;
    }
    return clamp01(deltaHits / deltaQueries);
  }

  /** A value and whether any series contributed to it. */
  private record Reading(double value, boolean present) {
    static final Reading ABSENT = new Reading(0.0, false);
  }

  /**
   * Combines a gauge family's matching series: summed (skipping SGLang's {@code priority="<n>"}
   * breakdown) when {@code sum}, else the max.
   */
  private Reading gauge(
      final Map<String, PrometheusTextParser.Family> families,
      final String name,
      final boolean sum) {
    if (name == null) {
      return Reading.ABSENT;
    }
    final PrometheusTextParser.Family family = families.get(name);
    if (family == null || family.type() != PrometheusTextParser.Type.GAUGE) {
      return Reading.ABSENT;
    }
    double acc = 0.0;
    boolean found = false;
    for (final PrometheusTextParser.Sample s : family.samples()) {
      if (!s.name().equals(name) || !modelMatches(s)) {
        continue;
      }
      if (sum && isPriorityBreakdown(s)) {
        continue;
      }
      final double v = s.value();
      if (!Double.isFinite(v)) {
        continue;
      }
      if (!found) {
        acc = v;
        found = true;
      } else if (sum) {
        acc += v;
      } else if (v > acc) {
        acc = v;
      }
    }
    return found ? new Reading(acc, true) : Reading.ABSENT;
  }

  /** Sums a counter family's matching series: family {@code name_total}, else {@code name}. */
  private Reading counter(
      final Map<String, PrometheusTextParser.Family> families, final String name) {
    if (name == null) {
      return Reading.ABSENT;
    }
    PrometheusTextParser.Family family = families.get(name + "_total");
    if (family == null) {
      family = families.get(name);
    }
    if (family == null || family.type() != PrometheusTextParser.Type.COUNTER) {
      return Reading.ABSENT;
    }
    double acc = 0.0;
    boolean found = false;
    for (final PrometheusTextParser.Sample s : family.samples()) {
      if (s.name().equals(family.name() + "_created") || !modelMatches(s)) {
        continue;
      }
      final double v = s.value();
      if (!Double.isFinite(v)) {
        continue;
      }
      acc += v;
      found = true;
    }
    return found ? new Reading(acc, true) : Reading.ABSENT;
  }

  private boolean modelMatches(final PrometheusTextParser.Sample s) {
    return modelLabel.isEmpty() || modelLabel.equals(s.label(MODEL_LABEL));
  }

  private static boolean isPriorityBreakdown(final PrometheusTextParser.Sample s) {
    final String priority = s.label("priority");
    return priority != null && !priority.isEmpty();
  }
}
