package io.inferencecache.engine.policy;

import java.util.ArrayList;
import java.util.List;

/**
 * A whole {@code /policy} body (docs/behaviour.md#policy): the schema version, every namespace's
 * policy and every tenant's quota. The controller pushes the full set each time; {@link
 * PolicyStore#replace(PolicySnapshot)} swaps it in as a whole.
 *
 * <p>Immutable and thread-safe; the lists are unmodifiable copies and hold no {@code null}.
 *
 * @param version the wire schema version; only {@link #isSupportedVersion(int) [3, 7]} is accepted
 *     at the HTTP boundary (a missing version decodes to {@code 0})
 * @param policies the policies in body order, duplicates and empty namespaces included as written;
 *     {@code null} → empty
 * @param tenants the tenant quotas in body order; {@code null} → empty
 */
public record PolicySnapshot(int version, List<PolicySpec> policies, List<TenantSpec> tenants) {

  /** The {@code /policy} schema version this implementation writes and reads natively. */
  public static final int PROPAGATION_VERSION = 7;

  /** The oldest {@code /policy} schema version still accepted (and normalized). */
  public static final int MINIMUM_ACCEPTED_VERSION = 3;

  /** The state before any push: current version, no policies, no quotas. */
  public static final PolicySnapshot EMPTY =
      new PolicySnapshot(PROPAGATION_VERSION, List.of(), List.of());

  /**
   * Copies both lists; a {@code null} list becomes empty.
   *
   * @throws NullPointerException if a list holds {@code null}
   */
  public PolicySnapshot {
    policies = policies == null ? List.of() : List.copyOf(policies);
    tenants = tenants == null ? List.of() : List.copyOf(tenants);
  }

  /**
   * Whether a body of this version is accepted: {@value #MINIMUM_ACCEPTED_VERSION} to {@value
   * #PROPAGATION_VERSION} inclusive. Anything else is a 400 {@code unsupported policy snapshot
   * version}.
   */
  public static boolean isSupportedVersion(final int version) {
    return version >= MINIMUM_ACCEPTED_VERSION && version <= PROPAGATION_VERSION;
  }

  /**
   * This snapshot with the fields an older body cannot carry filled with their defaults (spec
   * docs/behaviour.md#policy), so that a v3–v6 controller's policies resolve as their authors meant
   * and not as explicit opt-outs. Applied only when {@code version < 7}; cumulative per policy:
   *
   * <ul>
   *   <li>{@code version < 4}: {@code minimumMatchedTokens == 0} → {@value
   *       ResolvedPolicy#MINIMUM_MATCHED_TOKENS_DEFAULT};
   *   <li>{@code version < 5}: {@code null routingFloorScore} → {@value
   *       ResolvedPolicy#ROUTING_FLOOR_SCORE_DEFAULT};
   *   <li>{@code version < 6}: {@code null strategy} or {@code null} strategy members → defaults
   *       (chain matching on, chain not required, tenant-hot on);
   *   <li>{@code version < 7}: {@code null affinityRouting} → {@code true}.
   * </ul>
   *
   * A v7 (or newer) snapshot is returned unchanged, explicit opt-outs included. The version, the
   * tenants and the order of the policies are kept; idempotent.
   */
  public PolicySnapshot normalized() {
    if (version >= PROPAGATION_VERSION) {
      return this;
    }
    final List<PolicySpec> normalized = new ArrayList<>(policies.size());
    for (final PolicySpec policy : policies) {
      normalized.add(normalize(policy, version));
    }
    return new PolicySnapshot(version, normalized, tenants);
  }

  private static PolicySpec normalize(final PolicySpec policy, final int version) {
    final PolicySpec.Builder builder = policy.toBuilder();
    if (version < 4 && policy.minimumMatchedTokens() == 0) {
      builder.minimumMatchedTokens(ResolvedPolicy.MINIMUM_MATCHED_TOKENS_DEFAULT);
    }
    if (version < 5 && policy.routingFloorScore() == null) {
      builder.routingFloorScore(ResolvedPolicy.ROUTING_FLOOR_SCORE_DEFAULT);
    }
    if (version < 6) {
      builder.strategy(
          policy.strategy() == null ? StrategySpec.DEFAULTS : policy.strategy().withDefaults());
    }
    if (version < 7 && policy.affinityRouting() == null) {
      builder.affinityRouting(ResolvedPolicy.AFFINITY_ROUTING_DEFAULT);
    }
    return builder.build();
  }
}
