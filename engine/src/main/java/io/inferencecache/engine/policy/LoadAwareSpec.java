package io.inferencecache.engine.policy;

/**
 * The opt-in load-aware routing of one policy, as written in a {@code /policy} body ({@code
 * policies[].loadAwareRouting}, docs/behaviour.md#load-aware). Absent on the policy: routing is
 * upstream-exact. Present (even empty): on, every {@code null} member at its default.
 *
 * @param pressureTokens prompt tokens one unit of replica pressure is worth when a PREFIX_MATCH
 *     answer is ranked ({@code null} → {@value ResolvedPolicy#PRESSURE_TOKENS_DEFAULT}; {@code < 0}
 *     → {@code 0}: rank by matched tokens alone)
 * @param pressureBound the bounded-load affinity fallback takes the first replica, in hash order,
 *     whose pressure is below this ({@code null}, {@code <= 0} or NaN → {@value
 *     ResolvedPolicy#PRESSURE_BOUND_DEFAULT})
 * @param rankedReplicas replicas an AFFINITY_HINT answer lists, best first ({@code null} or {@code
 *     < 1} → {@value ResolvedPolicy#RANKED_REPLICAS_DEFAULT}; at most {@value
 *     ResolvedPolicy#RANKED_REPLICAS_MAX})
 * @param hintPressure pressure one answer adds to its first replica until that replica's next stats
 *     report, so that answers between two reports do not all go to the replica that looked idlest;
 *     set it to {@code 1 ÷ slots} (vLLM's {@code max_num_seqs}) ({@code null}, {@code < 0} or NaN →
 *     {@code 0}: off)
 * @param costModel the cost-model strategy ({@code null}: absent, the rules above apply); when
 *     present it replaces them and {@code pressureTokens}, {@code pressureBound} and {@code
 *     hintPressure} are not used ({@code rankedReplicas} still is)
 */
public record LoadAwareSpec(
    Integer pressureTokens,
    Float pressureBound,
    Integer rankedReplicas,
    Float hintPressure,
    CostModelSpec costModel) {

  /** Every member absent: on, at the defaults. */
  public static final LoadAwareSpec DEFAULTS = new LoadAwareSpec(null, null, null, null);

  /** The load-aware rules without the cost model. */
  public LoadAwareSpec(
      final Integer pressureTokens,
      final Float pressureBound,
      final Integer rankedReplicas,
      final Float hintPressure) {
    this(pressureTokens, pressureBound, rankedReplicas, hintPressure, null);
  }

  /** The cost-model strategy, every other member absent. */
  public static LoadAwareSpec costModel(final CostModelSpec costModel) {
    return new LoadAwareSpec(null, null, null, null, costModel);
  }
}
