package io.inferencecache.perf.replay;

import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.PdRouteRequest;
import io.inferencecache.engine.PdRouteResult;
import io.inferencecache.engine.PdRouter;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.engine.pd.AcceleratorType;
import io.inferencecache.engine.pd.PdLinks;
import io.inferencecache.engine.pd.PdMember;
import io.inferencecache.engine.pd.PdPool;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import io.inferencecache.engine.policy.CostModelSpec;
import io.inferencecache.engine.policy.LoadAwareSpec;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The index side of a P/D run (the index policies only): one {@code CacheIndex} in process behind a
 * {@link LookupRouterTarget}, fed with every simulated replica's reports, evictions and stats in
 * simulated time, asked for LookupRoute (pd-blind) and by the engine's {@link PdRouter} for
 * LookupPDRoute (pd-router). The replicas are named {@code replay-c00-r000…}, prefill replicas
 * first; the topology ({@link #topology}) holds them in one prefill and one decode pool per
 * accelerator vendor, each member on its node; the tenant's policy carries the cost model the
 * router reads (the fleet's prefill speed, {@code --pd-slots}, {@code --pd-request-seconds}).
 */
final class PdIndex implements AutoCloseable {
  static final String MODEL = "mooncake-pd";
  static final String TOPOLOGY = "sim-pd";

  private final PdOptions o;
  private final ReplayNames names;
  private final LookupRouterTarget target;
  private final PdRouter router;
  private final Map<String, Integer> replicaIndex = new HashMap<>();
  private final ReplayTarget.Hint hint = new ReplayTarget.Hint();
  private final PdRouteRequest pdRequest = new PdRouteRequest();
  private final PdRouteResult pdResult = new PdRouteResult();
  private final byte[] hash = new byte[8];
  private String lastReason = "";

  PdIndex(final PdOptions o, final PdPolicy policy, final SimClock clock) {
    this.o = o;
    this.names = new ReplayNames(MODEL, 1, o.replicas());
    final IndexConfig config =
        new IndexConfig()
            .maxEntries(
                (long) o.prefillReplicas * o.prefillCapacity * 2
                    + (long) o.decodeReplicas * o.decodeCapacity * 2
                    + 65_536)
            .averageHashBytes(8)
            .averageHoldersPerKey(2.0)
            .defaultTtlNanos((long) (o.ttlMinutes * 60e9))
            .clock(clock);
    this.target = new LookupRouterTarget(config, names);
    for (int r = 0; r < names.replicas.length; r++) {
      replicaIndex.put(names.replicas[r], r);
    }
    target.index().pdTopologies().replace(topology(o, names));
    if (policy == PdPolicy.PD_ROUTER) {
      target.policy(policy(o)); // pd-blind asks LookupRoute as a tenant without a policy
    }
    // A constant router clock: no deadline can fire, so a run never depends on the machine's speed.
    this.router = new PdRouter(target.index(), () -> 0L);
  }

  /** The fleet as a /pd-topologies body: per vendor a prefill and a decode pool. */
  static PdTopologySnapshot topology(final PdOptions o, final ReplayNames names) {
    final List<PdPool> prefill = new ArrayList<>();
    final List<PdPool> decode = new ArrayList<>();
    final List<AcceleratorType> types = new ArrayList<>();
    for (int v = 0; v < o.vendors; v++) {
      types.add(new AcceleratorType("accel-" + v, "vendor-" + v, "model-" + v));
      final List<PdMember> p = new ArrayList<>();
      final List<PdMember> d = new ArrayList<>();
      for (int r = 0; r < o.replicas(); r++) {
        if (o.vendor(r) == v) {
          (r < o.prefillReplicas ? p : d).add(new PdMember(names.replicas[r], "node-" + o.node(r)));
        }
      }
      prefill.add(new PdPool("prefill-" + v, "accel-" + v, p));
      decode.add(new PdPool("decode-" + v, "accel-" + v, d));
    }
    final PdTopology t =
        new PdTopology(
            ReplayNames.TENANT,
            TOPOLOGY,
            "NIXL",
            o.decodeLocalTokens,
            new PdLinks(o.sameNodeGBps, o.sameVendorGBps, o.crossGBps),
            o.kvBytesPerToken,
            prefill,
            decode,
            types);
    return new PdTopologySnapshot(PdTopologySnapshot.VERSION, List.of(t));
  }

  /** The tenant's policy: the cost model at the fleet's prefill speed. */
  static PolicySnapshot policy(final PdOptions o) {
    final PolicySpec spec =
        PolicySpec.builder(ReplayNames.TENANT)
            .loadAwareRouting(
                LoadAwareSpec.costModel(
                    new CostModelSpec(
                        (float) (1e6 / o.prefillMicrosPerToken),
                        (float) o.pdRequestSeconds,
                        o.pdSlots > 0 ? o.pdSlots : o.prefillSlots)))
            .build();
    return new PolicySnapshot(PolicySnapshot.PROPAGATION_VERSION, List.of(spec), List.of());
  }

  /**
   * LookupPDRoute of {@code chain}: fills {@code out} and returns true on a pair or decode-local
   * answer; false (reason set) when the router answered no pair.
   */
  boolean pdRoute(final long[] chain, final int inputTokens, final PdRouting.Decision out) {
    pdRequest.reset().topologyRef(ReplayNames.TENANT + "/" + TOPOLOGY).promptTokens(inputTokens);
    final LookupRequest q = pdRequest.request();
    q.keys(ReplayNames.TENANT, names.model, ReplayNames.SCHEME, "");
    for (long k : chain) {
      MooncakeTraceFile.putKey(hash, 0, k);
      q.addBlockHash(hash, 0, 8).addBlockTokenCount(MooncakeTraceFile.TOKENS_PER_BLOCK);
    }
    router.route(pdRequest, pdResult, 0L, Long.MAX_VALUE);
    out.reason = pdResult.reasonCode();
    if (!pdResult.hasPair()) {
      return false;
    }
    out.decode = replicaIndex.get(pdResult.decodeReplica());
    out.prefill =
        out.reason.equals(ReasonCodes.PD_DECODE_LOCAL)
            ? -1
            : replicaIndex.get(pdResult.prefillReplica());
    return true;
  }

  /** LookupRoute of {@code chain}: the first replica of the answer that is a prefill replica. */
  int topPrefill(final long[] chain) {
    target.lookup(chain, hint);
    lastReason = hint.reasonCode;
    for (int i = 0; i < hint.size; i++) {
      if (hint.replica[i] < o.prefillReplicas) {
        return hint.replica[i];
      }
    }
    return -1;
  }

  String lastReason() {
    return lastReason;
  }

  void report(final int replica, final long[] chain) {
    target.report(replica, chain);
  }

  void evict(final int replica, final long key) {
    target.evict(replica, key);
  }

  void stats(final int replica, final double pressure) {
    target.stats(replica, (float) pressure);
  }

  @Override
  public void close() {
    target.close();
  }
}
