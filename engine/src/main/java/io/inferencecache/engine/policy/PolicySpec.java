package io.inferencecache.engine.policy;

/**
 * One cache policy as written in a {@code /policy} body ({@code policies[]}, v7 shape,
 * docs/behaviour.md#policy), before defaults and clamps. Fields whose absence means something on
 * the wire are boxed and {@code null} when absent; {@link ResolvedPolicy#of(PolicySpec)} turns a
 * spec into the lookup-time view.
 *
 * <p>Immutable and thread-safe.
 *
 * @param namespace the policy key, matched against the LookupRoute {@code tenant_id}; {@code null}
 *     or empty → the entry is dropped by {@link PolicyStore#replace(PolicySnapshot)}
 * @param evictionTTLNanos per-namespace entry TTL in nanoseconds (the wire's Go {@code Duration});
 *     {@code <= 0} → the global default
 * @param minimumPrefixTokens request-side gate: lookups whose prefix is shorter are not routed;
 *     {@code <= 0} → no gate
 * @param minimumMatchedTokens result-side floor on matched tokens; the wire field is {@code
 *     omitempty}, so absent and {@code 0} are the same: floor disabled (v4 and later); {@code < 0}
 *     → {@code 0}
 * @param routingFloorScore post-score floor; {@code null} (absent) → {@value
 *     ResolvedPolicy#ROUTING_FLOOR_SCORE_DEFAULT}, explicit {@code 0} → disabled, {@code < 0} →
 *     {@code 0}
 * @param lookupTimeoutMs LookupRoute deadline in milliseconds; {@code <= 0} → no deadline
 * @param affinityRouting whether the consistent-hash fallback fires; {@code null} (absent) → {@code
 *     true}
 * @param eviction cap-eviction algorithm name, see {@link EvictionAlgorithm#parse(String)}; {@code
 *     null} means absent (LRU)
 * @param strategy lookup strategy gates; {@code null} (absent) → every gate at its default
 * @param loadAwareRouting the opt-in load-aware routing (an inference-cache extension of the v7
 *     body); {@code null} (absent) → off, answers upstream-exact
 * @param maxReplicas the most replicas one LookupRoute answer lists, the best by score (an
 *     inference-cache extension of the v7 body); absent and {@code <= 0} → every replica, as
 *     upstream answers
 */
public record PolicySpec(
    String namespace,
    long evictionTTLNanos,
    int minimumPrefixTokens,
    int minimumMatchedTokens,
    Float routingFloorScore,
    int lookupTimeoutMs,
    Boolean affinityRouting,
    String eviction,
    StrategySpec strategy,
    LoadAwareSpec loadAwareRouting,
    int maxReplicas) {

  /** A builder for a policy keyed by {@code namespace}, every other field absent or zero. */
  public static Builder builder(final String namespace) {
    return new Builder().namespace(namespace);
  }

  /** A builder initialised with this policy's fields. */
  public Builder toBuilder() {
    return new Builder()
        .namespace(namespace)
        .evictionTTLNanos(evictionTTLNanos)
        .minimumPrefixTokens(minimumPrefixTokens)
        .minimumMatchedTokens(minimumMatchedTokens)
        .routingFloorScore(routingFloorScore)
        .lookupTimeoutMs(lookupTimeoutMs)
        .affinityRouting(affinityRouting)
        .eviction(eviction)
        .strategy(strategy)
        .loadAwareRouting(loadAwareRouting)
        .maxReplicas(maxReplicas);
  }

  /**
   * Mutable builder of a {@link PolicySpec}; every field starts absent ({@code null}) or zero, as
   * an empty JSON object decodes. Not thread-safe.
   */
  public static final class Builder {
    private String namespace;
    private long evictionTTLNanos;
    private int minimumPrefixTokens;
    private int minimumMatchedTokens;
    private Float routingFloorScore;
    private int lookupTimeoutMs;
    private Boolean affinityRouting;
    private String eviction;
    private StrategySpec strategy;
    private LoadAwareSpec loadAwareRouting;
    private int maxReplicas;

    private Builder() {}

    /** See {@link PolicySpec#namespace()}. */
    public Builder namespace(final String namespace) {
      this.namespace = namespace;
      return this;
    }

    /** See {@link PolicySpec#evictionTTLNanos()}; nanoseconds. */
    public Builder evictionTTLNanos(final long evictionTTLNanos) {
      this.evictionTTLNanos = evictionTTLNanos;
      return this;
    }

    /** See {@link PolicySpec#minimumPrefixTokens()}. */
    public Builder minimumPrefixTokens(final int minimumPrefixTokens) {
      this.minimumPrefixTokens = minimumPrefixTokens;
      return this;
    }

    /** See {@link PolicySpec#minimumMatchedTokens()}. */
    public Builder minimumMatchedTokens(final int minimumMatchedTokens) {
      this.minimumMatchedTokens = minimumMatchedTokens;
      return this;
    }

    /** See {@link PolicySpec#routingFloorScore()}; {@code null} = absent. */
    public Builder routingFloorScore(final Float routingFloorScore) {
      this.routingFloorScore = routingFloorScore;
      return this;
    }

    /** See {@link PolicySpec#lookupTimeoutMs()}; milliseconds. */
    public Builder lookupTimeoutMs(final int lookupTimeoutMs) {
      this.lookupTimeoutMs = lookupTimeoutMs;
      return this;
    }

    /** See {@link PolicySpec#affinityRouting()}; {@code null} = absent. */
    public Builder affinityRouting(final Boolean affinityRouting) {
      this.affinityRouting = affinityRouting;
      return this;
    }

    /** See {@link PolicySpec#eviction()}; {@code null} = absent. */
    public Builder eviction(final String eviction) {
      this.eviction = eviction;
      return this;
    }

    /** See {@link PolicySpec#strategy()}; {@code null} = absent. */
    public Builder strategy(final StrategySpec strategy) {
      this.strategy = strategy;
      return this;
    }

    /** See {@link PolicySpec#loadAwareRouting()}; {@code null} = absent (off). */
    public Builder loadAwareRouting(final LoadAwareSpec loadAwareRouting) {
      this.loadAwareRouting = loadAwareRouting;
      return this;
    }

    /** See {@link PolicySpec#maxReplicas()}; 0 = every replica. */
    public Builder maxReplicas(final int maxReplicas) {
      this.maxReplicas = maxReplicas;
      return this;
    }

    /** The immutable policy. */
    public PolicySpec build() {
      return new PolicySpec(
          namespace,
          evictionTTLNanos,
          minimumPrefixTokens,
          minimumMatchedTokens,
          routingFloorScore,
          lookupTimeoutMs,
          affinityRouting,
          eviction,
          strategy,
          loadAwareRouting,
          maxReplicas);
    }
  }
}
