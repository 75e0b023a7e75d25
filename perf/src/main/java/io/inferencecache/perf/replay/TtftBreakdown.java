package io.inferencecache.perf.replay;

import java.util.Arrays;

/**
 * Where one run's TTFT p90 comes from. Per request TTFT = queue wait + prefill, and prefill = the
 * prefill an idle replica with every reusable block would still do (the reuse bound's) + the
 * prefill of reusable blocks this run missed. Two counterfactual p90s separate the two losses: the
 * p90 of prefill alone (as if no request had waited) and the p90 of wait + bound prefill (as if
 * every request had found its whole reusable prefix where it ran). The tail figures are means over
 * the requests at or above the p90 rank (the slowest tenth).
 *
 * @param p90NoWaitMs TTFT p90 had no request waited for a slot
 * @param p90FullReuseMs TTFT p90 had every request found its whole reusable prefix
 * @param tailWaitMs mean queue wait of the slowest tenth
 * @param tailPrefillMs mean prefill of the slowest tenth
 * @param tailLostReuseMs mean prefill of reusable blocks the slowest tenth missed
 */
record TtftBreakdown(
    double p90NoWaitMs,
    double p90FullReuseMs,
    double tailWaitMs,
    double tailPrefillMs,
    double tailLostReuseMs) {

  static TtftBreakdown of(
      final long[] ttftUs, final long[] waitUs, final long[] prefillUs, final long[] boundUs) {
    final int n = ttftUs.length;
    if (n == 0) {
      return new TtftBreakdown(0, 0, 0, 0, 0);
    }
    final long[] noWait = prefillUs.clone();
    final long[] fullReuse = new long[n];
    for (int i = 0; i < n; i++) {
      fullReuse[i] = waitUs[i] + Math.min(boundUs[i], prefillUs[i]);
    }
    Arrays.sort(noWait);
    Arrays.sort(fullReuse);
    // The slowest tenth: the requests from the p90 rank up (nearest rank, as FleetRun's p90).
    final Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (a, b) -> Long.compare(ttftUs[a], ttftUs[b]));
    final int from = Math.max(0, Math.min(n - 1, (int) Math.ceil(0.9 * n) - 1));
    double wait = 0;
    double prefill = 0;
    double lost = 0;
    for (int k = from; k < n; k++) {
      final int i = order[k];
      wait += waitUs[i];
      prefill += prefillUs[i];
      lost += Math.max(0, prefillUs[i] - boundUs[i]);
    }
    final int tail = n - from;
    return new TtftBreakdown(
        FleetRun.percentile(noWait, 0.9) / 1000.0,
        FleetRun.percentile(fullReuse, 0.9) / 1000.0,
        wait / tail / 1000.0,
        prefill / tail / 1000.0,
        lost / tail / 1000.0);
  }

  /**
   * TTFT p50 (ms) if every request found its whole reusable prefix (the {@link FleetRun#reuseBound}
   * hits) on an idle replica: prefill of the rest only, no queue. No routing can beat it.
   */
  static double ttftP50BoundMs(
      final FleetOptions o, final MooncakeTraceFile trace, final int requests) {
    return ttftBoundMs(o, trace, requests, 0.5);
  }

  /** The same bound at quantile {@code q} (the p90 bound: {@code q = 0.9}). */
  static double ttftBoundMs(
      final FleetOptions o, final MooncakeTraceFile trace, final int requests, final double q) {
    final long[] ttft = boundPrefillUs(o, trace, requests);
    Arrays.sort(ttft);
    return FleetRun.percentile(ttft, q) / 1000.0;
  }

  /**
   * Per request, the prefill (µs) of what an idle replica holding every block an earlier request of
   * the trace had as a leading run would still compute.
   */
  static long[] boundPrefillUs(
      final FleetOptions o, final MooncakeTraceFile trace, final int requests) {
    final java.util.HashSet<Long> seen = new java.util.HashSet<>();
    final long[] out = new long[requests];
    for (int i = 0; i < requests; i++) {
      final long[] chain = trace.ids(i);
      int m = 0;
      while (m < chain.length && seen.contains(chain[m])) {
        m++;
      }
      for (long k : chain) {
        seen.add(k);
      }
      out[i] = FleetRun.prefillUs(o, trace.inputTokens(i), m);
    }
    return out;
  }
}
