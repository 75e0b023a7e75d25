package io.inferencecache.service.streams;

import java.util.ArrayList;
import java.util.List;

/**
 * Where StreamMetrics gets its numbers: the server application plugs in its metrics registry; the
 * default is {@link IndexMetricSource}. Called on the feed's sender thread once per tick per
 * subscriber; must be thread-safe, quick and must not block.
 */
@FunctionalInterface
public interface MetricSource {
  /** The current value of every series (allocates a fresh list). */
  List<MetricSample> sample();

  /** A source that reports nothing. */
  MetricSource NONE = List::of;

  /** One source listing every sample of {@code sources}, in order. */
  static MetricSource concat(final MetricSource... sources) {
    final MetricSource[] all = sources.clone();
    return () -> {
      final List<MetricSample> out = new ArrayList<>();
      for (MetricSource s : all) {
        out.addAll(s.sample());
      }
      return out;
    };
  }
}
