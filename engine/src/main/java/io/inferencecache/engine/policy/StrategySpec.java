package io.inferencecache.engine.policy;

/**
 * The lookup strategy gates of one policy, as written in a {@code /policy} body ({@code
 * policies[].strategy}). A {@code null} member is absent on the wire and resolves to its default
 * (docs/behaviour.md#policy).
 *
 * @param enableChainMatching whether block-hash chain longest-prefix matching may be used; {@code
 *     null} → {@code true}
 * @param requireChain whether a request must carry a block-hash chain; {@code null} → {@code false}
 * @param enableTenantHot whether the TENANT_HOT fallback may surface; {@code null} → {@code true}
 */
public record StrategySpec(
    Boolean enableChainMatching, Boolean requireChain, Boolean enableTenantHot) {

  /** Every member present, at its default. */
  public static final StrategySpec DEFAULTS =
      new StrategySpec(
          ResolvedPolicy.ENABLE_CHAIN_MATCHING_DEFAULT,
          ResolvedPolicy.REQUIRE_CHAIN_DEFAULT,
          ResolvedPolicy.ENABLE_TENANT_HOT_DEFAULT);

  /** This strategy with every absent member set to its default; present members kept as written. */
  public StrategySpec withDefaults() {
    if (enableChainMatching != null && requireChain != null && enableTenantHot != null) {
      return this;
    }
    return new StrategySpec(
        enableChainMatching != null
            ? enableChainMatching
            : ResolvedPolicy.ENABLE_CHAIN_MATCHING_DEFAULT,
        requireChain != null ? requireChain : ResolvedPolicy.REQUIRE_CHAIN_DEFAULT,
        enableTenantHot != null ? enableTenantHot : ResolvedPolicy.ENABLE_TENANT_HOT_DEFAULT);
  }
}
