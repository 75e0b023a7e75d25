package io.inferencecache.controlplane.server.metrics;

import io.inferencecache.controlplane.metrics.InferenceCacheCollector;
import io.inferencecache.controlplane.metrics.PrometheusExposition;
import io.inferencecache.service.streams.MetricSample;
import io.inferencecache.service.streams.MetricSource;
import io.prometheus.client.Collector;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * StreamMetrics' source in the server: every {@code inferencecache_*} sample {@code /metrics}
 * exports ({@link PrometheusExposition#ownSeries()}), with the same names, labels and values — a
 * counter as its {@code _total} sample, a histogram as its {@code _bucket} / {@code _sum} / {@code
 * _count} samples. There is no list of series here: what {@code /metrics} gains, StreamMetrics
 * streams. Thread-safe.
 */
public final class PrometheusMetricSource implements MetricSource {
  private final PrometheusExposition exposition;

  public PrometheusMetricSource(final PrometheusExposition exposition) {
    this.exposition = exposition;
  }

  @Override
  public List<MetricSample> sample() {
    final List<MetricSample> out = new ArrayList<>();
    for (final Collector.MetricFamilySamples f : exposition.ownSeries()) {
      final MetricSample.Type type =
          switch (f.type) {
            case COUNTER -> MetricSample.Type.COUNTER;
            case HISTOGRAM -> MetricSample.Type.HISTOGRAM;
            default -> MetricSample.Type.GAUGE; // the server's own families are only these three
          };
      for (final Collector.MetricFamilySamples.Sample s : f.samples) {
        if (!InferenceCacheCollector.owns(s.name)) {
          continue;
        }
        final Map<String, String> labels = new HashMap<>(s.labelNames.size() * 2);
        for (int i = 0; i < s.labelNames.size(); i++) {
          labels.put(s.labelNames.get(i), s.labelValues.get(i));
        }
        out.add(new MetricSample(s.name, type, labels, s.value));
      }
    }
    return out;
  }
}
