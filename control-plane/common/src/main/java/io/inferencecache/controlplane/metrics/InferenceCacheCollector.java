package io.inferencecache.controlplane.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import io.prometheus.client.Collector;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Exports the server's own series from the Dropwizard registry under their Prometheus names, types
 * and labels (docs/behaviour.md#metrics): registry names are decoded with {@link MetricNames}, the
 * family comes from {@link MetricFamily}; counters as counters (Dropwizard's bridge would write
 * gauges), {@link BucketedHistogram}s as histograms, families with no series yet omitted (as
 * client_golang). Every other registry metric is left to the standard Dropwizard bridge.
 */
public final class InferenceCacheCollector extends Collector {
  /** Registry names this collector owns (the bridge filters them out). */
  public static final String PREFIX = "inferencecache_";

  /** Prefixes of the controller's controller-runtime style families, also owned here. */
  private static final String[] CONTROLLER_PREFIXES = {
    "controller_runtime_", "workqueue_", "leader_election_"
  };

  private final MetricRegistry registry;

  public InferenceCacheCollector(final MetricRegistry registry) {
    this.registry = registry;
  }

  /** Whether {@code name} is exported here rather than by the Dropwizard bridge. */
  public static boolean owns(final String name) {
    if (name.startsWith(PREFIX)) {
      return true;
    }
    for (final String p : CONTROLLER_PREFIXES) {
      if (name.startsWith(p)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public List<MetricFamilySamples> collect() {
    final Map<MetricFamily, List<MetricFamilySamples.Sample>> samples =
        new EnumMap<>(MetricFamily.class);
    for (final Map.Entry<String, Metric> e : registry.getMetrics().entrySet()) {
      if (!owns(e.getKey())) {
        continue;
      }
      final MetricNames.Decoded d = MetricNames.decode(e.getKey());
      final MetricFamily family = MetricFamily.bySeriesName(d.base());
      if (family == null) {
        continue;
      }
      final List<MetricFamilySamples.Sample> out =
          samples.computeIfAbsent(family, f -> new ArrayList<>());
      final Metric m = e.getValue();
      if (m instanceof Counter c) {
        out.add(
            new MetricFamilySamples.Sample(
                family.seriesName(), d.labelNames(), d.labelValues(), c.getCount()));
      } else if (m instanceof Gauge<?> g && g.getValue() instanceof Number n) {
        out.add(
            new MetricFamilySamples.Sample(
                family.seriesName(), d.labelNames(), d.labelValues(), n.doubleValue()));
      } else if (m instanceof BucketedHistogram h) {
        histogram(family, d, h, out);
      }
    }
    final List<MetricFamilySamples> families = new ArrayList<>(samples.size());
    for (final Map.Entry<MetricFamily, List<MetricFamilySamples.Sample>> e : samples.entrySet()) {
      final MetricFamily f = e.getKey();
      families.add(new MetricFamilySamples(f.familyName(), f.type(), f.help(), e.getValue()));
    }
    return families;
  }

  /** Go's {@code strconv.FormatFloat(v, 'g', -1, 64)} for bucket bounds ({@code 0.00025}). */
  static String goLabelFloat(final double v) {
    final java.math.BigDecimal d =
        new java.math.BigDecimal(Double.toString(v)).stripTrailingZeros();
    final int exponent = d.precision() - d.scale() - 1;
    if (v == 0 || (exponent >= -4 && exponent < 21)) {
      return v == 0 ? "0" : d.toPlainString();
    }
    return Double.toString(v);
  }

  private static void histogram(
      final MetricFamily family,
      final MetricNames.Decoded d,
      final BucketedHistogram h,
      final List<MetricFamilySamples.Sample> out) {
    final double[] bounds = h.upperBounds();
    final long[] cumulative = h.cumulativeCounts();
    final List<String> names = new ArrayList<>(d.labelNames());
    names.add("le");
    for (int i = 0; i <= bounds.length; i++) {
      final List<String> values = new ArrayList<>(d.labelValues());
      values.add(i < bounds.length ? goLabelFloat(bounds[i]) : "+Inf");
      out.add(
          new MetricFamilySamples.Sample(
              family.familyName() + "_bucket", names, values, cumulative[i]));
    }
    out.add(
        new MetricFamilySamples.Sample(
            family.familyName() + "_sum", d.labelNames(), d.labelValues(), h.sum()));
    out.add(
        new MetricFamilySamples.Sample(
            family.familyName() + "_count",
            d.labelNames(),
            d.labelValues(),
            cumulative[bounds.length]));
  }
}
