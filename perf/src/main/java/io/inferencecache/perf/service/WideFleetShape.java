package io.inferencecache.perf.service;

import io.inferencecache.perf.workload.SyntheticChains;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * The arithmetic of {@link WideFleetLoopback}: one shape of issue 41's table (64-block chains of 16
 * tokens, each held by {@code holders} of {@code replicas} replicas, about {@code entries} storage
 * entries in all), the order shapes run in each round, the server's histogram read from {@code
 * /metrics}, and the medians and spreads of the summary. No I/O, no timing.
 */
record WideFleetShape(int holders, int replicas, int chains) {
  /** Blocks per chain. */
  static final int BLOCKS = ServiceFixture.BLOCKS;

  WideFleetShape {
    if (holders < 1 || holders > replicas || chains < 1) {
      throw new IllegalArgumentException(
          "need 1 <= holders <= replicas and chains >= 1: "
              + holders
              + ", "
              + replicas
              + ", "
              + chains);
    }
  }

  /**
   * The shape of about {@code entries} storage entries: {@code entries ÷ (64 × holders)} chains,
   * rounded down (at least one).
   */
  static WideFleetShape of(final int holders, final int replicas, final long entries) {
    final long chains = Math.max(1, entries / ((long) BLOCKS * holders));
    if (chains > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("too many chains: " + chains);
    }
    return new WideFleetShape(holders, replicas, (int) chains);
  }

  /** Storage entries (holder-blocks) once every chain is loaded. */
  long holderBlocks() {
    return (long) chains * BLOCKS * holders;
  }

  /** The ReportCacheState messages that load it: one per (chain, holder). */
  long reports() {
    return (long) chains * holders;
  }

  /** Holder-blocks one full-chain lookup touches: 64 × holders. */
  long holderBlocksPerLookup() {
    return (long) BLOCKS * holders;
  }

  /** A lookup's cost per holder-block: {@code nanos ÷ (64 × holders)}. */
  double perHolderBlockNanos(final double nanos) {
    return nanos / holderBlocksPerLookup();
  }

  /** The chains, holders and hashes of this shape ({@link SyntheticChains}). */
  SyntheticChains workload() {
    return ServiceFixture.workload(chains, holders, replicas);
  }

  /**
   * The shapes of round {@code round} (0-based): as given in even rounds, reversed in odd ones, so
   * a drift of the machine's load over the run weighs on every shape alike.
   */
  static List<Integer> roundOrder(final List<Integer> holders, final int round) {
    final List<Integer> order = new ArrayList<>(holders);
    if (round % 2 == 1) {
      Collections.reverse(order);
    }
    return order;
  }

  /**
   * The sum and count of histogram {@code name} in a Prometheus text exposition, added over the
   * series whose labels contain {@code labelMatch} (empty: every series); {0, 0} when absent.
   */
  static double[] histogramSumCount(
      final String exposition, final String name, final String labelMatch) {
    double sum = 0;
    double count = 0;
    for (String line : exposition.split("\n")) {
      final boolean isSum = line.startsWith(name + "_sum");
      final boolean isCount = line.startsWith(name + "_count");
      if ((!isSum && !isCount) || !line.contains(labelMatch)) {
        continue;
      }
      final String rest = line.substring(name.length() + (isSum ? 4 : 6));
      if (!rest.isEmpty() && rest.charAt(0) != '{' && rest.charAt(0) != ' ') {
        continue; // another metric whose name starts with this one's
      }
      final String[] f = line.trim().split("\\s+");
      final double v = Double.parseDouble(f[f.length - 1]);
      if (isSum) {
        sum += v;
      } else {
        count += v;
      }
    }
    return new double[] {sum, count};
  }

  /** The median of {@code values} (the mean of the middle two of an even count); NaN if empty. */
  static double median(final double[] values) {
    if (values.length == 0) {
      return Double.NaN;
    }
    final double[] s = values.clone();
    Arrays.sort(s);
    final int n = s.length;
    return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
  }

  /** {min, max} of {@code values}; NaNs if empty. */
  static double[] range(final double[] values) {
    if (values.length == 0) {
      return new double[] {Double.NaN, Double.NaN};
    }
    return new double[] {
      Arrays.stream(values).min().getAsDouble(), Arrays.stream(values).max().getAsDouble()
    };
  }
}
