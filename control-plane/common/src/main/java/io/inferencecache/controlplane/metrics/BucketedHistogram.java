package io.inferencecache.controlplane.metrics;

import com.codahale.metrics.Metric;
import java.util.concurrent.atomic.DoubleAdder;
import java.util.concurrent.atomic.LongAdder;

/**
 * A fixed-bucket histogram as a Dropwizard {@link Metric}: one {@link LongAdder} per bucket (plus
 * {@code +Inf}) and a {@link DoubleAdder} sum, exported by {@link InferenceCacheCollector} as a
 * Prometheus histogram (Dropwizard's own {@code Histogram} is reservoir-based and would export as a
 * summary). {@link #observe} is lock-free and allocation-free; a bucket holds observations {@code
 * <= } its upper bound, as Prometheus' {@code le}.
 */
public final class BucketedHistogram implements Metric {
  private final double[] upperBounds;
  private final LongAdder[] counts;
  private final DoubleAdder sum = new DoubleAdder();

  /**
   * @param upperBounds strictly increasing finite bounds; {@code +Inf} is implied
   */
  public BucketedHistogram(final double... upperBounds) {
    for (int i = 1; i < upperBounds.length; i++) {
      if (!(upperBounds[i] > upperBounds[i - 1])) {
        throw new IllegalArgumentException("bucket bounds must increase");
      }
    }
    this.upperBounds = upperBounds.clone();
    this.counts = new LongAdder[upperBounds.length + 1];
    for (int i = 0; i < counts.length; i++) {
      counts[i] = new LongAdder();
    }
  }

  /** Records one observation. */
  public void observe(final double value) {
    final double[] bounds = upperBounds;
    int i = 0;
    while (i < bounds.length && value > bounds[i]) {
      i++;
    }
    counts[i].increment();
    sum.add(value);
  }

  /** The finite upper bounds (a copy). */
  public double[] upperBounds() {
    return upperBounds.clone();
  }

  /**
   * Cumulative counts per bucket, {@code +Inf} last (its value is the total count). Read without a
   * lock: a concurrent observation may show in one bucket and not yet in the sum.
   */
  public long[] cumulativeCounts() {
    final long[] out = new long[counts.length];
    long running = 0;
    for (int i = 0; i < counts.length; i++) {
      running += counts[i].sum();
      out[i] = running;
    }
    return out;
  }

  /** The sum of the observations. */
  public double sum() {
    return sum.sum();
  }
}
