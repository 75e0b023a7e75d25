package io.inferencecache.subscriber.decode;

/**
 * One engine load/cache sample derived from the engine's {@code /metrics}: maps 1:1 to {@code
 * ReplicaStats} (the replica id and client version are the sink's to stamp).
 *
 * <p>Immutable and thread-safe.
 *
 * @param cacheMemoryBytes KV-cache usage ratio × {@code --engine-cache-size-bytes}; 0 when the size
 *     is unset
 * @param hitRate prefix-cache hit rate in [0, 1]
 * @param pressure {@code clamp01((running + waiting) / ceiling)}; 0 when the ceiling is ≤ 0
 * @param t2HitTokens cumulative tier-2 (external offload) hit tokens, raw from the engine; 0 when
 *     unknown
 * @param t2QueryTokens cumulative tier-2 query tokens, raw from the engine; 0 when unknown
 */
public record StatsSample(
    long cacheMemoryBytes, float hitRate, float pressure, long t2HitTokens, long t2QueryTokens) {}
