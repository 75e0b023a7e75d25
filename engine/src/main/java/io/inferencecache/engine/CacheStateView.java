package io.inferencecache.engine;

import java.util.List;

/**
 * GetCacheState for one (tenant, model) (docs/behaviour.md#get-cache-state): distinct prefix keys
 * across schemes and adapters, and every stats row sorted by replica id.
 */
public record CacheStateView(long totalPrefixes, List<ReplicaStatsRow> replicas) {

  /** A stats row ({@code client_version} is never stored). */
  public record ReplicaStatsRow(
      String replicaId,
      long cacheMemoryBytes,
      float hitRate,
      float pressure,
      long t2HitTokens,
      long t2QueryTokens) {}

  /** The empty answer (unknown keys, reserved tenant). */
  public static final CacheStateView EMPTY = new CacheStateView(0, List.of());
}
