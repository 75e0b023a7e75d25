package io.inferencecache.perf.replay;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IndexEvent;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The replay loop on the engine alone, no gRPC: {@link CacheIndex#lookupRoute} into a reused
 * result, {@link CacheIndex#ingest} per report, {@link CacheIndex#applyEvent} per eviction — the
 * index cost without the transport. Reports apply at once; evictions wait for {@link #sync}, as
 * over gRPC.
 */
final class EngineTarget implements ReplayTarget {
  private final CacheIndex index;
  private final ReplayNames names;
  private final int[] toReplica;
  private final LookupRequest request = new LookupRequest();
  private final LookupResult result = new LookupResult();
  private final byte[] hash = new byte[8];
  private final int[] engineIds;
  private final EvictionQueue pending = new EvictionQueue();

  EngineTarget(final IndexConfig config, final ReplayNames names) {
    this(started(CacheIndex.open(config)), names);
  }

  /** Lookups (and direct reports) on an index the caller opened and started. */
  EngineTarget(final CacheIndex index, final ReplayNames names) {
    this.index = index;
    this.names = names;
    int max = 0;
    final int[] ids = new int[names.replicas.length];
    for (int r = 0; r < ids.length; r++) {
      ids[r] = index.intern(names.replicas[r]);
      max = Math.max(max, ids[r]);
    }
    this.toReplica = new int[max + 1];
    Arrays.fill(toReplica, -1);
    for (int r = 0; r < ids.length; r++) {
      toReplica[ids[r]] = r;
    }
    this.engineIds = ids;
  }

  private static CacheIndex started(final CacheIndex index) {
    index.start();
    return index;
  }

  CacheIndex index() {
    return index;
  }

  @Override
  public void lookup(final long[] chain, final Hint out) {
    request.reset().keys(ReplayNames.TENANT, names.model, ReplayNames.SCHEME, "");
    for (long k : chain) {
      MooncakeTraceFile.putKey(hash, 0, k);
      request.addBlockHash(hash, 0, 8).addBlockTokenCount(MooncakeTraceFile.TOKENS_PER_BLOCK);
    }
    index.lookupAndClassify(request, result);
    out.clear();
    out.reasonCode = result.outcome().reasonCode();
    for (int i = 0; i < result.size(); i++) {
      final int id = result.replicaId(i);
      final int r = id >= 0 && id < toReplica.length ? toReplica[id] : -1;
      if (r >= 0) {
        out.add(r, result.matchedTokens(i) / MooncakeTraceFile.TOKENS_PER_BLOCK);
      }
    }
  }

  @Override
  public void report(final int replica, final long[] chain) {
    index.ingest(update(names.replicas[replica], names.model, chain));
  }

  static IngestUpdate update(final String replica, final String model, final long[] chain) {
    final List<byte[]> hashes = new ArrayList<>(chain.length);
    for (long k : chain) {
      hashes.add(MooncakeTraceFile.hashOf(k));
    }
    final int[] counts = new int[chain.length];
    Arrays.fill(counts, MooncakeTraceFile.TOKENS_PER_BLOCK);
    return new IngestUpdate(
        replica,
        model,
        ReplayNames.TENANT,
        ReplayNames.SCHEME,
        0,
        "",
        List.of(IngestPrefix.chain(hashes, counts, 0)),
        null);
  }

  @Override
  public void evict(final int replica, final long key) {
    pending.add(replica, key);
  }

  @Override
  public void sync() {
    for (int i = 0; i < pending.size(); i++) {
      index.applyEvent(
          new IndexEvent(
              IndexEvent.Type.PREFIX_EVICTED,
              names.replicas[pending.replica(i)],
              names.model,
              ReplayNames.TENANT,
              MooncakeTraceFile.hashOf(pending.key(i)),
              0,
              ""));
    }
    pending.clear();
  }

  /** Engine id of replica {@code r} (for tests). */
  int engineId(final int r) {
    return engineIds[r];
  }

  @Override
  public long offHeapBytes() {
    return index.footprintBytes();
  }

  @Override
  public long totalEntries() {
    return index.totalEntries();
  }

  @Override
  public long totalKeys() {
    return index.totalKeys();
  }

  @Override
  public String describe() {
    return "engine in-process (CacheIndex, no gRPC)";
  }

  @Override
  public void close() {
    index.close();
  }
}
