package io.inferencecache.engine.internal;

/**
 * One replica's stats for a (tenant, model): immutable, replaced on each update. {@code lastSeen}
 * is liveness (refreshed by stats ingest and REPLICA_UPDATED), {@code statsReported} only by stats
 * ingest. Times in epoch nanoseconds.
 */
public record StatsRow(
    int replica,
    long cacheMemoryBytes,
    float hitRate,
    float pressure,
    long t2HitTokens,
    long t2QueryTokens,
    long lastSeen,
    long statsReported) {

  public StatsRow withLastSeen(final long t) {
    return new StatsRow(
        replica, cacheMemoryBytes, hitRate, pressure, t2HitTokens, t2QueryTokens, t, statsReported);
  }
}
