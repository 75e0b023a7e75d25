package io.inferencecache.engine;

/**
 * What the index needs from the policy store, keyed by the tenant's dictionary id (allocation-free
 * on the hot path). The policy store implements it; tests can use lambdas-backed stubs.
 */
public interface TenantPolicies {
  /** Marker for "no quota". */
  long UNBOUNDED = -1;

  /** The tenant's TTL in ns; non-positive means "use the index default". */
  long ttlNanos(int tenantId);

  /** Whether the tenant's namespace evicts by LFU (else LRU). */
  boolean lfu(int tenantId);

  /** The tenant's distinct-key quota, or {@link #UNBOUNDED}. */
  long maxIndexEntries(int tenantId);

  /** Defaults for every tenant: default TTL, LRU, no quota. */
  TenantPolicies DEFAULTS = uniform(false);

  /** Every tenant evicts by LFU, default TTL, no quota (benchmarks and tests of LFU counting). */
  TenantPolicies ALL_LFU = uniform(true);

  private static TenantPolicies uniform(final boolean lfu) {
    return new TenantPolicies() {
      @Override
      public long ttlNanos(final int tenantId) {
        return 0;
      }

      @Override
      public boolean lfu(final int tenantId) {
        return lfu;
      }

      @Override
      public long maxIndexEntries(final int tenantId) {
        return UNBOUNDED;
      }
    };
  }
}
