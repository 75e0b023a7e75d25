package io.inferencecache.service.grpc;

import com.google.protobuf.ByteString;
import io.inferencecache.engine.IndexEvent;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import java.util.ArrayList;
import java.util.List;

/**
 * Maps ingest messages to the engine's model and validates what the engine cannot store. The engine
 * silently drops what the spec says to drop (e.g. a chain whose arrays differ in length); what is
 * rejected here is what could never be ingested: hashes longer than the index stores.
 */
public final class IngestMapper {
  private IngestMapper() {}

  /**
   * Returns null when {@code u} can be ingested, else a message naming the offending field (the
   * caller answers INVALID_ARGUMENT).
   */
  public static String validate(final CacheStateUpdate u) {
    for (int i = 0; i < u.getPrefixesCount(); i++) {
      final PrefixEntry e = u.getPrefixes(i);
      if (e.getPrefixHash().size() > HolderLayout.MAX_HASH_BYTES) {
        return "prefixes["
            + i
            + "].prefix_hash is "
            + e.getPrefixHash().size()
            + " bytes; at most "
            + HolderLayout.MAX_HASH_BYTES
            + " are accepted";
      }
      for (int j = 0; j < e.getBlockHashesCount(); j++) {
        final int n = e.getBlockHashes(j).size();
        if (n > HolderLayout.MAX_HASH_BYTES) {
          return "prefixes["
              + i
              + "].block_hashes["
              + j
              + "] is "
              + n
              + " bytes; at most "
              + HolderLayout.MAX_HASH_BYTES
              + " are accepted";
        }
      }
    }
    return null;
  }

  /** The engine update for a (validated) message. */
  public static IngestUpdate toIngest(final CacheStateUpdate u) {
    final List<IngestPrefix> prefixes = new ArrayList<>(u.getPrefixesCount());
    for (PrefixEntry e : u.getPrefixesList()) {
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
