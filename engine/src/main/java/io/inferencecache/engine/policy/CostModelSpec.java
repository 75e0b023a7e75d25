package io.inferencecache.engine.policy;

/**
 * The cost-model strategy of a policy's load-aware routing, as written in a {@code /policy} body
 * ({@code policies[].loadAwareRouting.costModel}, docs/behaviour.md#cost-model). Absent: the
 * load-aware rules of {@link LoadAwareSpec} apply. Present (even empty): every serving replica is
 * ranked by its expected time to first token instead, each {@code null} member at its default.
 *
 * @param prefillTokensPerSecond how fast one request's uncached prompt tokens are prefilled on a
 *     replica ({@code null}, {@code <= 0}, NaN or infinite → {@value
 *     ResolvedPolicy#PREFILL_TOKENS_PER_SECOND_DEFAULT})
 * @param requestSeconds the mean time one request holds a replica's slot, prefill and decode
 *     ({@code null}, {@code <= 0}, NaN or infinite → {@value
 *     ResolvedPolicy#REQUEST_SECONDS_DEFAULT})
 * @param slots requests a replica runs at once (vLLM's {@code max_num_seqs}); the reported pressure
 *     is read as {@code (running + waiting) ÷ slots} ({@code null} or {@code < 1} → {@value
 *     ResolvedPolicy#SLOTS_DEFAULT}; at most {@value ResolvedPolicy#SLOTS_MAX})
 */
public record CostModelSpec(Float prefillTokensPerSecond, Float requestSeconds, Integer slots) {

  /** Every member absent: on, at the defaults. */
  public static final CostModelSpec DEFAULTS = new CostModelSpec(null, null, null);
}
