package io.inferencecache.engine;

import io.inferencecache.engine.policy.EvictionAlgorithm;
import io.inferencecache.engine.policy.PolicyStore;
import io.inferencecache.engine.policy.ResolvedPolicy;

/**
 * The index's view of a {@link PolicyStore}: per-tenant TTL, eviction algorithm and quota by
 * dictionary id, allocation-free. Build the store with the index's interner ({@link
 * CacheIndex#intern}) so ids agree.
 */
final class PolicyBackedTenantPolicies implements TenantPolicies {
  private final PolicyStore store;

  public PolicyBackedTenantPolicies(final PolicyStore store) {
    this.store = store;
  }

  @Override
  public long ttlNanos(final int tenantId) {
    final ResolvedPolicy p = store.resolve(tenantId);
    return p.explicitTtl() ? p.ttlNanos() : 0;
  }

  @Override
  public boolean lfu(final int tenantId) {
    return store.resolve(tenantId).eviction() == EvictionAlgorithm.LFU;
  }

  @Override
  public long maxIndexEntries(final int tenantId) {
    final long max = store.maxIndexEntries(tenantId);
    return max < 0 ? UNBOUNDED : max;
  }
}
