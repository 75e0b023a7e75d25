package io.inferencecache.engine.policy;

/**
 * The policy a lookup, an ingest or a sweep applies to one namespace: every default and clamp of
 * docs/behaviour.md#policy and docs/behaviour.md#policy-resolution already applied, primitive
 * fields only.
 *
 * <p>Units: TTL in nanoseconds, lookup timeout in milliseconds, token counts in tokens. Sentinels:
 * {@code minimumPrefixTokens == 0} means no request-side gate, {@code minimumMatchedTokens == 0} no
 * matched-tokens floor, {@code routingFloorScore == 0} no score floor, {@code lookupTimeoutMs == 0}
 * no deadline. {@link #ttlNanos()} is always positive.
 *
 * <p>Immutable and thread-safe. Instances come from {@link #of(PolicySpec)} or are {@link
 * #DEFAULTS}.
 */
public final class ResolvedPolicy {

  /** The global entry TTL, in nanoseconds: 30 minutes. */
  public static final long TTL_NANOS_DEFAULT = 1_800_000_000_000L;

  /** The matched-tokens floor of a namespace without a policy, in tokens. */
  public static final int MINIMUM_MATCHED_TOKENS_DEFAULT = 64;

  /** The routing score floor of a namespace without a policy, or whose policy leaves it absent. */
  public static final float ROUTING_FLOOR_SCORE_DEFAULT = 0.1f;

  /** Consistent-hash affinity fallback when no policy or the field is absent: on. */
  public static final boolean AFFINITY_ROUTING_DEFAULT = true;

  /** Block-hash chain matching when no policy or the member is absent: on. */
  public static final boolean ENABLE_CHAIN_MATCHING_DEFAULT = true;

  /** Whether a chain is required when no policy or the member is absent: no. */
  public static final boolean REQUIRE_CHAIN_DEFAULT = false;

  /** TENANT_HOT fallback when no policy or the member is absent: on. */
  public static final boolean ENABLE_TENANT_HOT_DEFAULT = true;

  /** Load-aware ranking: prompt tokens one unit of pressure is worth, when not written. */
  public static final int PRESSURE_TOKENS_DEFAULT = 4_096;

  /** Bounded-load affinity: the pressure a replica must be below, when not written. */
  public static final float PRESSURE_BOUND_DEFAULT = 1.0f;

  /** Replicas an AFFINITY_HINT answer lists under load-aware routing, when not written. */
  public static final int RANKED_REPLICAS_DEFAULT = 3;

  /** Most replicas an AFFINITY_HINT answer lists under load-aware routing. */
  public static final int RANKED_REPLICAS_MAX = 16;

  /** Cost model: prompt tokens a replica prefills per second for one request, when not written. */
  public static final float PREFILL_TOKENS_PER_SECOND_DEFAULT = 10_000f;

  /** Cost model: mean seconds one request holds a slot, when not written. */
  public static final float REQUEST_SECONDS_DEFAULT = 3f;

  /** Cost model: requests a replica runs at once, when not written. */
  public static final int SLOTS_DEFAULT = 8;

  /** Cost model: most slots a replica can be declared to have. */
  public static final int SLOTS_MAX = 65_536;

  /**
   * What a namespace without a policy gets (docs/behaviour.md#policy-resolution): TTL 30 min, no
   * prefix gate, matched floor 64, routing floor 0.1, no timeout, affinity on, LRU, chain matching
   * on, chain not required, tenant-hot on; {@link #explicit()} is {@code false}.
   */
  public static final ResolvedPolicy DEFAULTS =
      new ResolvedPolicy(
          false,
          TTL_NANOS_DEFAULT,
          false,
          0,
          MINIMUM_MATCHED_TOKENS_DEFAULT,
          ROUTING_FLOOR_SCORE_DEFAULT,
          0,
          AFFINITY_ROUTING_DEFAULT,
          EvictionAlgorithm.LRU,
          ENABLE_CHAIN_MATCHING_DEFAULT,
          REQUIRE_CHAIN_DEFAULT,
          ENABLE_TENANT_HOT_DEFAULT,
          false,
          PRESSURE_TOKENS_DEFAULT,
          PRESSURE_BOUND_DEFAULT,
          1,
          0f,
          0,
          false,
          PREFILL_TOKENS_PER_SECOND_DEFAULT,
          REQUEST_SECONDS_DEFAULT,
          SLOTS_DEFAULT);

  private final boolean explicit;
  private final long ttlNanos;
  private final boolean explicitTtl;
  private final int minimumPrefixTokens;
  private final int minimumMatchedTokens;
  private final float routingFloorScore;
  private final int lookupTimeoutMs;
  private final boolean affinityRouting;
  private final EvictionAlgorithm eviction;
  private final boolean enableChainMatching;
  private final boolean requireChain;
  private final boolean enableTenantHot;
  private final boolean loadAware;
  private final int pressureTokens;
  private final float pressureBound;
  private final int rankedReplicas;
  private final float hintPressure;
  private final int maxReplicas;
  private final boolean costModel;
  private final float prefillTokensPerSecond;
  private final float requestSeconds;
  private final int slots;

  private ResolvedPolicy(
      final boolean explicit,
      final long ttlNanos,
      final boolean explicitTtl,
      final int minimumPrefixTokens,
      final int minimumMatchedTokens,
      final float routingFloorScore,
      final int lookupTimeoutMs,
      final boolean affinityRouting,
      final EvictionAlgorithm eviction,
      final boolean enableChainMatching,
      final boolean requireChain,
      final boolean enableTenantHot,
      final boolean loadAware,
      final int pressureTokens,
      final float pressureBound,
      final int rankedReplicas,
      final float hintPressure,
      final int maxReplicas,
      final boolean costModel,
      final float prefillTokensPerSecond,
      final float requestSeconds,
      final int slots) {
    this.explicit = explicit;
    this.ttlNanos = ttlNanos;
    this.explicitTtl = explicitTtl;
    this.minimumPrefixTokens = minimumPrefixTokens;
    this.minimumMatchedTokens = minimumMatchedTokens;
    this.routingFloorScore = routingFloorScore;
    this.lookupTimeoutMs = lookupTimeoutMs;
    this.affinityRouting = affinityRouting;
    this.eviction = eviction;
    this.enableChainMatching = enableChainMatching;
    this.requireChain = requireChain;
    this.enableTenantHot = enableTenantHot;
    this.loadAware = loadAware;
    this.pressureTokens = pressureTokens;
    this.pressureBound = pressureBound;
    this.rankedReplicas = rankedReplicas;
    this.hintPressure = hintPressure;
    this.maxReplicas = maxReplicas;
    this.costModel = costModel;
    this.prefillTokensPerSecond = prefillTokensPerSecond;
    this.requestSeconds = requestSeconds;
    this.slots = slots;
  }

  /**
   * Resolves a stored policy (docs/behaviour.md#policy), with {@link #explicit()} {@code true}:
   *
   * <ul>
   *   <li>{@code evictionTTLNanos <= 0} → {@link #TTL_NANOS_DEFAULT};
   *   <li>{@code minimumPrefixTokens}, {@code lookupTimeoutMs}: {@code <= 0} → {@code 0} (off);
   *   <li>{@code minimumMatchedTokens} as written, {@code < 0} → {@code 0}: a policy's {@code 0}
   *       disables the floor (the {@value #MINIMUM_MATCHED_TOKENS_DEFAULT} default is only for
   *       namespaces without a policy, or for v3 bodies through {@link
   *       PolicySnapshot#normalized()});
   *   <li>{@code routingFloorScore}: {@code null} → {@value #ROUTING_FLOOR_SCORE_DEFAULT}, explicit
   *       {@code 0} kept, negative (or NaN, which never downgrades anything either) → {@code 0};
   *   <li>{@code affinityRouting}: {@code null} → {@code true};
   *   <li>{@code strategy} {@code null}, or any {@code null} member → that gate's default;
   *   <li>{@code eviction} through {@link EvictionAlgorithm#parse(String)};
   *   <li>{@code loadAwareRouting} {@code null} → off; its members as {@link LoadAwareSpec} says;
   *   <li>{@code maxReplicas} as written, {@code <= 0} → {@code 0} (every replica, upstream's
   *       answer). its {@code costModel} {@code null} → off, its members as {@link CostModelSpec}
   *       says.
   * </ul>
   *
   * The namespace is not looked at. Allocates the result.
   */
  public static ResolvedPolicy of(final PolicySpec spec) {
    final long ttl = spec.evictionTTLNanos();
    final boolean explicitTtl = ttl > 0;
    final Float floor = spec.routingFloorScore();
    final float routingFloorScore;
    if (floor == null) {
      routingFloorScore = ROUTING_FLOOR_SCORE_DEFAULT;
    } else {
      // !(x > 0) also maps NaN and -0.0 to 0: the same "no floor" a negative value gets.
      routingFloorScore = floor > 0f ? floor : 0f;
    }
    final Boolean affinity = spec.affinityRouting();
    final StrategySpec strategy =
        spec.strategy() == null ? StrategySpec.DEFAULTS : spec.strategy().withDefaults();
    final LoadAwareSpec la = spec.loadAwareRouting();
    final Integer tokens = la == null ? null : la.pressureTokens();
    final Float bound = la == null ? null : la.pressureBound();
    final Integer ranked = la == null ? null : la.rankedReplicas();
    final Float perHint = la == null ? null : la.hintPressure();
    final CostModelSpec cm = la == null ? null : la.costModel();
    final Float prefill = cm == null ? null : cm.prefillTokensPerSecond();
    final Float request = cm == null ? null : cm.requestSeconds();
    final Integer slots = cm == null ? null : cm.slots();
    return new ResolvedPolicy(
        true,
        explicitTtl ? ttl : TTL_NANOS_DEFAULT,
        explicitTtl,
        Math.max(0, spec.minimumPrefixTokens()),
        Math.max(0, spec.minimumMatchedTokens()),
        routingFloorScore,
        Math.max(0, spec.lookupTimeoutMs()),
        affinity == null ? AFFINITY_ROUTING_DEFAULT : affinity,
        EvictionAlgorithm.parse(spec.eviction()),
        strategy.enableChainMatching(),
        strategy.requireChain(),
        strategy.enableTenantHot(),
        la != null,
        tokens == null ? PRESSURE_TOKENS_DEFAULT : Math.max(0, tokens),
        bound == null || !(bound > 0f) ? PRESSURE_BOUND_DEFAULT : bound,
        la == null
            ? 1
            : ranked == null || ranked < 1
                ? RANKED_REPLICAS_DEFAULT
                : Math.min(RANKED_REPLICAS_MAX, ranked),
        perHint != null && perHint > 0f && perHint < Float.POSITIVE_INFINITY ? perHint : 0f,
        Math.max(0, spec.maxReplicas()),
        cm != null,
        positiveOr(prefill, PREFILL_TOKENS_PER_SECOND_DEFAULT),
        positiveOr(request, REQUEST_SECONDS_DEFAULT),
        slots == null || slots < 1 ? SLOTS_DEFAULT : Math.min(SLOTS_MAX, slots));
  }

  private static float positiveOr(final Float v, final float otherwise) {
    return v != null && v > 0f && v < Float.POSITIVE_INFINITY ? v : otherwise;
  }

  /** {@code true} when resolved from a stored policy, {@code false} for {@link #DEFAULTS}. */
  public boolean explicit() {
    return explicit;
  }

  /**
   * Entry TTL in nanoseconds, always {@code > 0}: the policy's {@code evictionTTL} when positive,
   * else {@link #TTL_NANOS_DEFAULT}.
   */
  public long ttlNanos() {
    return ttlNanos;
  }

  /** Whether the policy set a positive {@code evictionTTL} (otherwise the global TTL applies). */
  public boolean explicitTtl() {
    return explicitTtl;
  }

  /**
   * Entry TTL in nanoseconds for an index whose global TTL is not the 30-minute default: the
   * policy's TTL when it set one, else {@code globalTtlNanos}.
   */
  public long ttlNanosOr(final long globalTtlNanos) {
    return explicitTtl ? ttlNanos : globalTtlNanos;
  }

  /** Request-side prefix gate in tokens; {@code 0} = no gate. */
  public int minimumPrefixTokens() {
    return minimumPrefixTokens;
  }

  /** Matched-tokens floor in tokens, {@code >= 0}; {@code 0} = floor disabled. */
  public int minimumMatchedTokens() {
    return minimumMatchedTokens;
  }

  /** Post-score routing floor, {@code >= 0}; {@code 0} = floor disabled. */
  public float routingFloorScore() {
    return routingFloorScore;
  }

  /** LookupRoute deadline in milliseconds; {@code 0} = no deadline. */
  public int lookupTimeoutMs() {
    return lookupTimeoutMs;
  }

  /** Whether the consistent-hash AFFINITY_HINT fallback may fire. */
  public boolean affinityRouting() {
    return affinityRouting;
  }

  /** The cap-eviction algorithm; never {@code null}. */
  public EvictionAlgorithm eviction() {
    return eviction;
  }

  /** Whether block-hash chain longest-prefix matching may be used. */
  public boolean enableChainMatching() {
    return enableChainMatching;
  }

  /** Whether a request must carry a block-hash chain. */
  public boolean requireChain() {
    return requireChain;
  }

  /** Whether the TENANT_HOT fallback may surface. */
  public boolean enableTenantHot() {
    return enableTenantHot;
  }

  /** Whether the opt-in load-aware routing is on (off: answers are upstream-exact). */
  public boolean loadAware() {
    return loadAware;
  }

  /** Load-aware ranking: prompt tokens one unit of replica pressure is worth, {@code >= 0}. */
  public int pressureTokens() {
    return pressureTokens;
  }

  /** Bounded-load affinity: a replica is taken only below this pressure, {@code > 0}. */
  public float pressureBound() {
    return pressureBound;
  }

  /** Replicas an AFFINITY_HINT answer lists: 1 when load-aware routing is off. */
  public int rankedReplicas() {
    return rankedReplicas;
  }

  /** Pressure one answer adds to its first replica until that replica reports again; 0 = off. */
  public float hintPressure() {
    return hintPressure;
  }

  /**
   * Most replicas a PREFIX_MATCH or TENANT_HOT answer lists, the best by score; 0 = all of them
   * (upstream's answer, the default). A request's {@code max_replicas} can ask for fewer.
   */
  public int maxReplicas() {
    return maxReplicas;
  }

  /**
   * The cap of one answer: the smaller of this policy's {@link #maxReplicas()} and the request's
   * {@code requested}, where 0 (or less) on either side means no cap from that side; 0 = no cap.
   */
  public int answerCap(final int requested) {
    if (requested <= 0) {
      return maxReplicas;
    }
    return maxReplicas == 0 ? requested : Math.min(maxReplicas, requested);
  }

  /** Whether load-aware routing runs the cost model (implies {@link #loadAware()}). */
  public boolean costModel() {
    return costModel;
  }

  /** Cost model: prompt tokens a replica prefills per second for one request, {@code > 0}. */
  public float prefillTokensPerSecond() {
    return prefillTokensPerSecond;
  }

  /** Cost model: mean seconds one request holds a slot, {@code > 0}. */
  public float requestSeconds() {
    return requestSeconds;
  }

  /** Cost model: requests a replica runs at once, {@code >= 1}. */
  public int slots() {
    return slots;
  }

  @Override
  public boolean equals(final Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof ResolvedPolicy)) {
      return false;
    }
    final ResolvedPolicy that = (ResolvedPolicy) o;
    return explicit == that.explicit
        && ttlNanos == that.ttlNanos
        && explicitTtl == that.explicitTtl
        && minimumPrefixTokens == that.minimumPrefixTokens
        && minimumMatchedTokens == that.minimumMatchedTokens
        && Float.compare(routingFloorScore, that.routingFloorScore) == 0
        && lookupTimeoutMs == that.lookupTimeoutMs
        && affinityRouting == that.affinityRouting
        && eviction == that.eviction
        && enableChainMatching == that.enableChainMatching
        && requireChain == that.requireChain
        && enableTenantHot == that.enableTenantHot
        && loadAware == that.loadAware
        && pressureTokens == that.pressureTokens
        && Float.compare(pressureBound, that.pressureBound) == 0
        && rankedReplicas == that.rankedReplicas
        && Float.compare(hintPressure, that.hintPressure) == 0
        && maxReplicas == that.maxReplicas
        && costModel == that.costModel
        && Float.compare(prefillTokensPerSecond, that.prefillTokensPerSecond) == 0
        && Float.compare(requestSeconds, that.requestSeconds) == 0
        && slots == that.slots;
  }

  @Override
  public int hashCode() {
    int h = Boolean.hashCode(explicit);
    h = 31 * h + Long.hashCode(ttlNanos);
    h = 31 * h + Boolean.hashCode(explicitTtl);
    h = 31 * h + minimumPrefixTokens;
    h = 31 * h + minimumMatchedTokens;
    h = 31 * h + Float.hashCode(routingFloorScore);
    h = 31 * h + lookupTimeoutMs;
    h = 31 * h + Boolean.hashCode(affinityRouting);
    h = 31 * h + eviction.ordinal();
    h = 31 * h + Boolean.hashCode(enableChainMatching);
    h = 31 * h + Boolean.hashCode(requireChain);
    h = 31 * h + Boolean.hashCode(enableTenantHot);
    h = 31 * h + Boolean.hashCode(loadAware);
    h = 31 * h + pressureTokens;
    h = 31 * h + Float.hashCode(pressureBound);
    h = 31 * h + rankedReplicas;
    h = 31 * h + Float.hashCode(hintPressure);
    h = 31 * h + maxReplicas;
    h = 31 * h + Boolean.hashCode(costModel);
    h = 31 * h + Float.hashCode(prefillTokensPerSecond);
    h = 31 * h + Float.hashCode(requestSeconds);
    return 31 * h + slots;
  }

  @Override
  public String toString() {
    return "ResolvedPolicy{explicit="
        + explicit
        + ", ttlNanos="
        + ttlNanos
        + (explicitTtl ? "" : " (default)")
        + ", minimumPrefixTokens="
        + minimumPrefixTokens
        + ", minimumMatchedTokens="
        + minimumMatchedTokens
        + ", routingFloorScore="
        + routingFloorScore
        + ", lookupTimeoutMs="
        + lookupTimeoutMs
        + ", affinityRouting="
        + affinityRouting
        + ", eviction="
        + eviction.label()
        + ", enableChainMatching="
        + enableChainMatching
        + ", requireChain="
        + requireChain
        + ", enableTenantHot="
        + enableTenantHot
        + (loadAware
            ? ", loadAware{pressureTokens="
                + pressureTokens
                + ", pressureBound="
                + pressureBound
                + ", rankedReplicas="
                + rankedReplicas
                + ", hintPressure="
                + hintPressure
                + (costModel
                    ? ", costModel{prefillTokensPerSecond="
                        + prefillTokensPerSecond
                        + ", requestSeconds="
                        + requestSeconds
                        + ", slots="
                        + slots
                        + '}'
                    : "")
                + '}'
            : "")
        + (maxReplicas > 0 ? ", maxReplicas=" + maxReplicas : "")
        + '}';
  }
}
