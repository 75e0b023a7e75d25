package io.inferencecache.engine;

import java.util.List;

/**
 * The aggregate behind {@code /snapshot} (docs/behaviour.md#snapshot), reserved probe tenant
 * excluded. Times are epoch nanoseconds; 0 means "zero time" (no stats / no prefixes).
 *
 * @param replicas one row per (tenant, replica) in the union of stats rows and prefix holders,
 *     sorted by (tenant, replicaId) byte-wise
 * @param tenants one row per tenant with stats or entries, sorted by tenantId byte-wise
 * @param totalPrefixes the sum of the tenants' {@code indexEntries}
 */
public record IndexSnapshot(
    List<ReplicaRow> replicas, List<TenantRow> tenants, long totalPrefixes, long hotPrefixes) {

  /**
   * @param lastUpdateNanos liveness time of the chosen stats row (newest across models), 0 if none
   * @param prefixCount storage entries of the replica in the tenant (all models/schemes/adapters)
   * @param lastEventAtNanos newest entry lastSeen, 0 if no prefixes
   * @param statsReported whether a stats row exists
   */
  public record ReplicaRow(
      String replicaId,
      String tenant,
      long cacheMemoryBytes,
      float hitRate,
      float pressure,
      long lastUpdateNanos,
      long prefixCount,
      long lastEventAtNanos,
      boolean statsReported,
      long t2HitTokens,
      long t2QueryTokens) {}

  /**
   * @param indexEntries distinct prefix keys of the tenant
   * @param hitRate float32 of the float64 mean of the tenant's replicas' latest hit rates
   * @param hitRateReported whether the tenant has at least one stats row
   */
  public record TenantRow(
      String tenantId, long indexEntries, float hitRate, boolean hitRateReported) {}
}
