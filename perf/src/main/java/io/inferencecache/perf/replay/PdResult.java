package io.inferencecache.perf.replay;

import java.util.Arrays;
import java.util.Map;
import java.util.TreeMap;

/**
 * One policy at one load of a P/D run: TTFT and inter-token latency percentiles (ms), KV bytes
 * moved, the decode-local share, the transfers per link class (same node, same vendor, cross), the
 * prefix hit rate (hit blocks ÷ prompt blocks, wherever the prompt was prefilled), the mean TTFT by
 * part (ms: wait for the prefill, prefill, transfer, wait for a decode slot, the rest up to the
 * first token) and the index's reason codes (index policies only).
 */
record PdResult(
    PdPolicy policy,
    long requests,
    double ttftP50Ms,
    double ttftP90Ms,
    double ttftP99Ms,
    double itlP50Ms,
    double itlP99Ms,
    long kvBytesMoved,
    double decodeLocalFraction,
    long[] linkTransfers,
    double hitRate,
    long evictions,
    double simulatedSeconds,
    double[] ttftPartsMs,
    Map<String, Long> reasons) {

  /** The names of {@link #ttftPartsMs}, in order. */
  static final String[] TTFT_PARTS = {
    "prefillWait", "prefill", "transfer", "decodeWait", "firstStep"
  };

  static PdResult of(final PdRun run) {
    final int n = run.requests();
    final long[] ttft = new long[n];
    final long[] itl = new long[n];
    int itls = 0;
    int local = 0;
    final double[] parts = new double[TTFT_PARTS.length];
    for (int i = 0; i < n; i++) {
      ttft[i] = run.firstTokenUs[i] - run.arrivalUs[i];
      final boolean isLocal = run.prefillOf[i] < 0;
      final long prefillEnd = run.prefillStartUs[i] + run.prefillUs[i];
      parts[0] += run.prefillStartUs[i] - (isLocal ? run.admittedUs[i] : run.arrivalUs[i]);
      parts[1] += run.prefillUs[i];
      parts[2] += run.transferUs[i];
      parts[3] +=
          isLocal
              ? run.admittedUs[i] - run.arrivalUs[i]
              : run.admittedUs[i] - prefillEnd - run.transferUs[i];
      parts[4] += run.firstTokenUs[i] - (isLocal ? prefillEnd : run.admittedUs[i]);
      if (run.outputTokens(i) > 1) {
        itl[itls++] = (run.finishUs[i] - run.firstTokenUs[i]) / (run.outputTokens(i) - 1);
      }
      if (run.prefillOf[i] < 0) {
        local++;
      }
    }
    for (int k = 0; k < parts.length; k++) {
      parts[k] = n == 0 ? 0 : parts[k] / n / 1000.0;
    }
    Arrays.sort(ttft);
    final long[] itlSorted = Arrays.copyOf(itl, itls);
    Arrays.sort(itlSorted);
    return new PdResult(
        run.policy(),
        n,
        FleetRun.percentile(ttft, 0.50) / 1000.0,
        FleetRun.percentile(ttft, 0.90) / 1000.0,
        FleetRun.percentile(ttft, 0.99) / 1000.0,
        FleetRun.percentile(itlSorted, 0.50) / 1000.0,
        FleetRun.percentile(itlSorted, 0.99) / 1000.0,
        run.transferredBytes(),
        n == 0 ? 0 : (double) local / n,
        run.linkTransfers.clone(),
        run.hitRate(),
        run.evictions(),
        run.nowUs() / 1e6,
        parts,
        new TreeMap<>(run.reasons()));
  }

  @Override
  public boolean equals(final Object other) {
    return other instanceof PdResult r
        && r.toString().equals(toString())
        && Arrays.equals(r.linkTransfers, linkTransfers)
        && Arrays.equals(r.ttftPartsMs, ttftPartsMs);
  }

  @Override
  public int hashCode() {
    return toString().hashCode();
  }

  @Override
  public String toString() {
    return String.format(
        java.util.Locale.ROOT,
        "%s n=%d ttft=%s/%s/%s itl=%s/%s bytes=%d local=%s links=%s hit=%s ev=%d t=%s %s",
        policy.label,
        requests,
        ttftP50Ms,
        ttftP90Ms,
        ttftP99Ms,
        itlP50Ms,
        itlP99Ms,
        kvBytesMoved,
        decodeLocalFraction,
        Arrays.toString(linkTransfers),
        hitRate,
        evictions,
        simulatedSeconds,
        reasons);
  }
}
