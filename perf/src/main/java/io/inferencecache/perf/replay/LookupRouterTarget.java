package io.inferencecache.perf.replay;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IndexEvent;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.RouteCall;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.engine.RouteResult;
import io.inferencecache.engine.policy.PolicySnapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The whole LookupRoute decision in process, no gRPC: {@link LookupRouter#route} (policy gates,
 * strategy, affinity fallback: everything the server's handler runs) over a {@link CacheIndex},
 * with every report, stats row and eviction applied at once, in call order. Nothing runs on another
 * thread (the TTL sweeper is not started; lookups ignore stale entries anyway), so a run is
 * deterministic.
 */
final class LookupRouterTarget implements ReplayTarget {
  private final CacheIndex index;
  private final LookupRouter router;
  private final ReplayNames names;
  private final Map<String, Integer> replicaIndex = new HashMap<>();
  private final RouteRequest request = new RouteRequest();
  private final RouteResult result = new RouteResult();
  private final byte[] hash = new byte[8];

  LookupRouterTarget(final IndexConfig config, final ReplayNames names) {
    this.index = CacheIndex.open(config);
    this.router =
        new LookupRouter(index, null, LookupRouter.DEFAULT_ENGINE_BLOCK_SIZE, System::nanoTime);
    this.names = names;
    for (int r = 0; r < names.replicas.length; r++) {
      replicaIndex.put(names.replicas[r], r);
    }
  }

  /** The index the router reads (for the P/D router, which reads the same index). */
  CacheIndex index() {
    return index;
  }

  @Override
  public void lookup(final long[] chain, final Hint out) {
    request.reset();
    final LookupRequest q = request.request();
    q.keys(ReplayNames.TENANT, names.model, ReplayNames.SCHEME, "");
    for (long k : chain) {
      MooncakeTraceFile.putKey(hash, 0, k);
      q.addBlockHash(hash, 0, 8).addBlockTokenCount(MooncakeTraceFile.TOKENS_PER_BLOCK);
    }
    router.route(request, result, RouteCall.NONE, System.nanoTime());
    if (result.internalError()) {
      throw new IllegalStateException("LookupRouter answered an internal error");
    }
    out.clear();
    out.reasonCode = result.reasonCode();
    for (int i = 0; i < result.scoreCount(); i++) {
      final Integer r = replicaIndex.get(result.replicaName(i));
      if (r != null) {
        out.add(r, result.matchedTokens(i) / MooncakeTraceFile.TOKENS_PER_BLOCK);
      }
    }
  }

  @Override
  public void report(final int replica, final long[] chain) {
    index.ingest(EngineTarget.update(names.replicas[replica], names.model, chain));
  }

  @Override
  public void stats(final int replica, final float pressure) {
    index.ingest(
        new IngestUpdate(
            names.replicas[replica],
            names.model,
            ReplayNames.TENANT,
            ReplayNames.SCHEME,
            0,
            "",
            List.of(),
            new IngestStats(0, 0f, pressure, 0, 0)));
  }

  @Override
  public void policy(final PolicySnapshot snapshot) {
    index.policyStore().replace(snapshot.normalized());
  }

  @Override
  public void evict(final int replica, final long key) {
    index.applyEvent(
        new IndexEvent(
            IndexEvent.Type.PREFIX_EVICTED,
            names.replicas[replica],
            names.model,
            ReplayNames.TENANT,
            MooncakeTraceFile.hashOf(key),
            0,
            ""));
  }

  @Override
  public void sync() {}

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
    return "engine in process (LookupRouter over CacheIndex, no gRPC)";
  }

  @Override
  public void close() {
    index.close();
  }
}
