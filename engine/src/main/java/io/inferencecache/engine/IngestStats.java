package io.inferencecache.engine;

/**
 * Per-replica engine statistics carried by an update ({@code ReplicaStats}); stored per (tenant,
 * model, replica). Non-finite floats are clamped to 0 at ingest.
 */
public record IngestStats(
    long cacheMemoryBytes, float hitRate, float pressure, long t2HitTokens, long t2QueryTokens) {}
