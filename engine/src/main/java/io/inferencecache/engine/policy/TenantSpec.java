package io.inferencecache.engine.policy;

/**
 * One tenant quota as written in a {@code /policy} body ({@code tenants[]},
 * docs/behaviour.md#eviction-quota and docs/behaviour.md#policy).
 *
 * @param tenantID the ingest {@code tenant_id} the quota applies to; {@code null} or empty → the
 *     entry is dropped by {@link PolicyStore#replace(PolicySnapshot)}
 * @param maxIndexEntries the most distinct prefix keys the tenant may hold; {@code 0} admits
 *     nothing (also what an absent field decodes to); negative values are clamped to {@code 0} when
 *     stored
 * @param isolationMode informational ({@code "Fairness"} is the only mode); may be {@code null}
 */
public record TenantSpec(String tenantID, long maxIndexEntries, String isolationMode) {

  /** A quota without an isolation mode. */
  public static TenantSpec of(final String tenantID, final long maxIndexEntries) {
    return new TenantSpec(tenantID, maxIndexEntries, null);
  }

  /** This quota with {@code maxIndexEntries} replaced. */
  public TenantSpec withMaxIndexEntries(final long maxIndexEntries) {
    return new TenantSpec(tenantID, maxIndexEntries, isolationMode);
  }
}
