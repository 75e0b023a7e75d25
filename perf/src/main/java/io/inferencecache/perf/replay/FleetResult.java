package io.inferencecache.perf.replay;

import java.util.Map;

/**
 * One policy at one load: prefix hit rate (hit blocks ÷ prompt blocks), TTFT and queue-wait figures
 * in ms, requests routed per replica (max, mean), KV evictions, simulated duration, and the
 * LookupRoute reason codes (hint policies only), and where the TTFT p90 comes from. For {@code
 * cost-model}, request by request against its formula on exact state: the share of picks as cheap
 * as the exact rule's ({@code sameAsExact}) and the mean excess exact cost per answer in ms ({@code
 * excessCostMs}); NaN for the other policies.
 */
record FleetResult(
    FleetPolicy policy,
    long requests,
    double hitRate,
    double ttftP50Ms,
    double ttftP90Ms,
    double ttftP99Ms,
    double waitMeanMs,
    double waitP90Ms,
    long maxPerReplica,
    double meanPerReplica,
    long evictions,
    double simulatedSeconds,
    Map<String, Long> reasons,
    TtftBreakdown breakdown,
    double sameAsExact,
    double excessCostMs) {

  /** Share of the answers with reason {@code code}, 0 when the policy asked nothing. */
  double share(final String code) {
    long all = 0;
    for (long n : reasons.values()) {
      all += n;
    }
    return all == 0 ? 0 : (double) reasons.getOrDefault(code, 0L) / all;
  }
}
