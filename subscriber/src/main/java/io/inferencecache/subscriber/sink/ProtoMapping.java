package io.inferencecache.subscriber.sink;

import com.google.protobuf.UnsafeByteOperations;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.index.PrefixRecord;
import java.util.List;

/**
 * The sink's messages, stamped with one replica's identity: an update is a {@code CacheStateUpdate}
 * with no update-level adapter and one legacy {@code PrefixEntry {prefix_hash, token_count,
 * adapter_id, tier}} per record; an eviction is {@code PublishEvent(PREFIX_EVICTED, prefix_hash,
 * adapter_id, timestamp_us)}; a clear is {@code PublishEvent(ALL_CLEARED)}; a stats sample is a
 * stats-only {@code CacheStateUpdate}. Hashes are wrapped, not copied. Immutable; the
 * builder-reusing methods are for one thread at a time.
 */
final class ProtoMapping {
  private final String replicaId;
  private final String modelId;
  private final String tenantId;
  private final String hashScheme;

  ProtoMapping(
      final String replicaId, final String modelId, final String tenantId, final String scheme) {
    this.replicaId = replicaId;
    this.modelId = modelId;
    this.tenantId = tenantId;
    this.hashScheme = scheme;
  }

  /**
   * The {@code CacheStateUpdate} of {@code u}: its own replica, model, tenant, hash scheme and
   * timestamp. Reuses (clears) the two builders.
   */
  static CacheStateUpdate toProto(
      final SubscriberUpdate u, final CacheStateUpdate.Builder b, final PrefixEntry.Builder e) {
    b.clear()
        .setReplicaId(u.replicaId())
        .setModelId(u.modelId())
        .setTenantId(u.tenantId())
        .setHashScheme(u.hashScheme())
        .setTimestampUs(u.timestampMicros());
    final List<PrefixRecord> prefixes = u.prefixes();
    for (int i = 0; i < prefixes.size(); i++) {
      final PrefixRecord p = prefixes.get(i);
      b.addPrefixes(
          e.clear()
              .setPrefixHash(UnsafeByteOperations.unsafeWrap(p.prefixHashUnsafe()))
              .setTokenCount(p.tokenCount())
              .setAdapterId(p.adapterId())
              .setTierValue(p.tier())
              .build());
    }
    return b.build();
  }

  /** {@link #toProto(SubscriberUpdate, CacheStateUpdate.Builder, PrefixEntry.Builder)}. */
  static CacheStateUpdate toProto(final SubscriberUpdate u) {
    return toProto(u, CacheStateUpdate.newBuilder(), PrefixEntry.newBuilder());
  }

  /** The {@code PublishEvent(PREFIX_EVICTED)} of an eviction (reuses {@code b}). */
  CacheEvent eviction(
      final CacheEvent.Builder b, final byte[] hash, final String adapterId, final long tsMicros) {
    return b.clear()
        .setType(CacheEvent.Type.PREFIX_EVICTED)
        .setReplicaId(replicaId)
        .setModelId(modelId)
        .setTenantId(tenantId)
        .setPrefixHash(UnsafeByteOperations.unsafeWrap(hash))
        .setAdapterId(adapterId)
        .setTimestampUs(tsMicros)
        .build();
  }

  /** The {@code PublishEvent(ALL_CLEARED)} of this replica (reuses {@code b}). */
  CacheEvent clearEvent(final CacheEvent.Builder b, final long tsMicros) {
    return b.clear()
        .setType(CacheEvent.Type.ALL_CLEARED)
        .setReplicaId(replicaId)
        .setModelId(modelId)
        .setTenantId(tenantId)
        .setTimestampUs(tsMicros)
        .build();
  }

  /** The stats-only {@code CacheStateUpdate} of a sample. */
  CacheStateUpdate stats(final StatsSample sample, final long timestampMicros) {
    return CacheStateUpdate.newBuilder()
        .setReplicaId(replicaId)
        .setModelId(modelId)
        .setTenantId(tenantId)
        .setHashScheme(hashScheme)
        .setTimestampUs(timestampMicros)
        .setStats(
            ReplicaStats.newBuilder()
                .setReplicaId(replicaId)
                .setCacheMemoryBytes(sample.cacheMemoryBytes())
                .setHitRate(sample.hitRate())
                .setPressure(sample.pressure())
                .setT2HitTokens(sample.t2HitTokens())
                .setT2QueryTokens(sample.t2QueryTokens()))
        .build();
  }
}
