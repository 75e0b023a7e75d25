package io.inferencecache.service.ingest;

import com.google.protobuf.ByteString;
import io.inferencecache.engine.IndexEvent;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/**
 * Maps ingest messages to the engine's model. Which entries and updates are dropped before that is
 * decided by {@link IngestRules}. Stateless.
 */
public final class IngestMapper {
  private IngestMapper() {}

  /** The engine update for a message, every entry included. */
  public static IngestUpdate toIngest(final CacheStateUpdate u) {
    return toIngest(u, i -> true);
  }

  /** The engine update for a message with the entries whose index {@code keep} accepts. */
  public static IngestUpdate toIngest(final CacheStateUpdate u, final IntPredicate keep) {
    final List<IngestPrefix> prefixes = new ArrayList<>(u.getPrefixesCount());
    for (int i = 0; i < u.getPrefixesCount(); i++) {
      if (!keep.test(i)) {
        continue;
      }
      final PrefixEntry e = u.getPrefixes(i);
      final List<byte[]> hashes = new ArrayList<>(e.getBlockHashesCount());
      for (ByteString h : e.getBlockHashesList()) {
        hashes.add(h.toByteArray());
      }
      final int[] counts = new int[e.getBlockTokenCountsCount()];
      for (int j = 0; j < counts.length; j++) {
        counts[j] = e.getBlockTokenCounts(j);
      }
      prefixes.add(
          new IngestPrefix(
              e.getPrefixHash().toByteArray(),
              e.getTokenCount(),
              hashes,
              counts,
              e.getTierValue(),
              e.getAdapterId()));
    }
    IngestStats stats = null;
    if (u.hasStats()) {
      final ReplicaStats s = u.getStats();
      stats =
          new IngestStats(
              s.getCacheMemoryBytes(),
              s.getHitRate(),
              s.getPressure(),
              s.getT2HitTokens(),
              s.getT2QueryTokens());
    }
    return new IngestUpdate(
        u.getReplicaId(),
        u.getModelId(),
        u.getTenantId(),
        u.getHashScheme(),
        u.getTimestampUs(),
        u.getAdapterId(),
        prefixes,
        stats);
  }

  /** The engine event for a message. */
  public static IndexEvent toEvent(final CacheEvent e) {
    return new IndexEvent(
        IndexEvent.Type.fromWire(e.getTypeValue()),
        e.getReplicaId(),
        e.getModelId(),
        e.getTenantId(),
        e.getPrefixHash().toByteArray(),
        e.getTimestampUs(),
        e.getAdapterId());
  }
}
