package io.inferencecache.controlplane.server.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.MetricFamily;
import java.util.EnumMap;
import java.util.Map;

/**
 * One endpoint's {@code inferencecache_<endpoint>_auth_total{result}} counter; series appear on
 * first use. Thread-safe; {@link #record} allocates nothing after the first use of a result.
 */
public final class AuthMetrics {
  /** The {@code result} label values. */
  public enum Result {
    OK("ok"),
    UNAUTH("unauth"),
    FORBIDDEN("forbidden"),
    ERROR("error");

    private final String label;

    Result(final String label) {
      this.label = label;
    }

    public String label() {
      return label;
    }
  }

  private final MetricRegistry registry;
  private final MetricFamily family;
  private final Map<Result, Counter> counters = new EnumMap<>(Result.class);

  /**
   * @param family one of the three {@code *_AUTH} families
   */
  public AuthMetrics(final MetricRegistry registry, final MetricFamily family) {
    this.registry = registry;
    this.family = family;
  }

  public void record(final Result result) {
    Counter c;
    synchronized (counters) {
      c = counters.get(result);
      if (c == null) {
        c = registry.counter(family.registryName(result.label()));
        counters.put(result, c);
      }
    }
    c.inc();
  }
}
