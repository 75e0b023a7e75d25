package io.inferencecache.service.streams;

import java.util.Map;
import java.util.Objects;

/**
 * One sample of one metric series, as StreamMetrics sends it ({@code Metric} without the timestamp,
 * which the feed stamps per tick).
 *
 * <p>A histogram is sent as Prometheus-style series of type {@link Type#HISTOGRAM}: {@code
 * <name>_bucket} (cumulative count, label {@code le}), {@code <name>_sum} and {@code <name>_count};
 * a name filter naming the histogram matches all three.
 *
 * <p>Immutable and thread-safe.
 *
 * @param name the series name, e.g. {@code inferencecache_index_entries}
 * @param type gauge, counter or histogram
 * @param labels label name → value (copied; unmodifiable)
 * @param value the sample's value
 */
public record MetricSample(String name, Type type, Map<String, String> labels, double value) {
  /** The metric type, with its wire string. */
  public enum Type {
    GAUGE("gauge"),
    COUNTER("counter"),
    HISTOGRAM("histogram");

    private final String wire;

    Type(final String wire) {
      this.wire = wire;
    }

    /** {@code gauge}, {@code counter} or {@code histogram}. */
    public String wire() {
      return wire;
    }
  }

  /** Copies the labels. */
  public MetricSample {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    labels = labels == null ? Map.of() : Map.copyOf(labels);
  }

  /** A gauge. */
  public static MetricSample gauge(
      final String name, final Map<String, String> labels, final double value) {
    return new MetricSample(name, Type.GAUGE, labels, value);
  }

  /** A counter. */
  public static MetricSample counter(
      final String name, final Map<String, String> labels, final double value) {
    return new MetricSample(name, Type.COUNTER, labels, value);
  }

  /**
   * Whether a StreamMetrics name filter entry selects this sample: the exact series name, or, for a
   * histogram series, the histogram's name.
   */
  public boolean selectedBy(final String requested) {
    if (name.equals(requested)) {
      return true;
    }
    if (type != Type.HISTOGRAM || !name.startsWith(requested)) {
      return false;
    }
    final String suffix = name.substring(requested.length());
    return suffix.equals("_bucket") || suffix.equals("_sum") || suffix.equals("_count");
  }
}
