package io.inferencecache.engine;

import io.inferencecache.engine.internal.ScopeState;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;
import io.inferencecache.engine.pd.CompiledTopology;
import io.inferencecache.engine.pd.PdTopologyStore;
import io.inferencecache.engine.pd.PendingPrefill;
import io.inferencecache.engine.policy.PolicyStore;
import io.inferencecache.engine.policy.ResolvedPolicy;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole LookupPDRoute decision, in one place and in order (docs/behaviour.md#lookup-pd-route):
 * one {@link #route} call reads a {@link PdRouteRequest} and fills a {@link PdRouteResult}. It
 * scores prefill/decode <em>pairs</em>, not two independent picks:
 *
 * <ol>
 *   <li><b>Topology.</b> {@code pd_topology_ref} ({@code namespace/name}) names it; without one,
 *       the tenant's namespace must hold exactly one ({@code PD_TOPOLOGY_NOT_FOUND}, {@code
 *       PD_TOPOLOGY_AMBIGUOUS}). A ref that is not {@code namespace/name} is bad input (NO_HINT).
 *   <li><b>Input.</b> A chain whose two arrays differ in length is bad input (NO_HINT); the
 *       prompt's length is {@code prompt_token_count}, at least the chain's (or exact key's)
 *       tokens.
 *   <li><b>Index.</b> One walk of the chain (or read of the exact key) in the tenant's (model,
 *       scheme, adapter) partition: every holder's matched tokens (what LookupRoute ranks by).
 *       Without a hash scheme (a legacy client), the (tenant, model)'s only scheme in the index, if
 *       it has exactly one. The caller's deadline and the tenant policy's {@code lookupTimeoutMs}
 *       are checked after the walk (the decision never blocks: no tokenizer, no lock).
 *   <li><b>Live members.</b> A member is live when the index holds, for the call's (tenant, model),
 *       a stats row whose last sign of life ({@code lastSeen}: stats or REPLICA_UPDATED) is within
 *       the tenant's TTL, or entries in the call's (tenant, model, scheme). A side with no live
 *       member: {@code PD_POOL_EMPTY}.
 *   <li><b>Prefill candidates.</b> Every live prefill member by its expected time to first token in
 *       the cost model ({@link CostModelRouting#cost}: uncached tokens ÷ prefillTokensPerSecond +
 *       the wait for a slot from its staleness-discounted reported load, {@link
 *       CostModelRouting#load}) + its backlog: the uncached tokens this router sent it since its
 *       last stats report ({@link PendingPrefill}) ÷ prefillTokensPerSecond, so prefill load is
 *       counted in tokens, not requests; then its load, then replica-id order; the best {@link
 *       #CANDIDATES}.
 *   <li><b>Decode candidates.</b> Every live decode member by the wait for a slot (+ the backlog of
 *       decode-local prefills sent to it), then its load, then replica-id order; the best {@link
 *       #CANDIDATES}. In the same pass, the cheapest decode-local answer ({@link #localCost}) among
 *       the members whose own uncached part is below the topology's {@code
 *       decodeLocalPrefillTokens}.
 *   <li><b>Pairs.</b> Each of the ≤ 4 × 4 pairs costs prefill estimate + KV transfer (prompt tokens
 *       × kvBytesPerToken ÷ the link class's bandwidth: same replica 0, same node, same accelerator
 *       vendor, cross) + decode wait; the cheapest wins; among equal pairs, the earlier decode
 *       candidate, then the earlier prefill candidate (so equal replicas take turns by load, and an
 *       idle fleet starts with the first replica ids).
 *   <li><b>Skip rule.</b> When that decode-local answer costs no more than the best pair, its
 *       replica is answered for both: {@code PD_DECODE_LOCAL}; its uncached tokens join its backlog
 *       and the answer its load.
 *   <li><b>Answer.</b> {@code PD_PAIR} with both replicas, their pools, the transport hint and the
 *       prefill replica's matched tokens; the prefill replica's uncached tokens join its backlog,
 *       the answer the decode replica's load, until each one's next stats report.
 * </ol>
 *
 * <p><b>Never half a pair</b>: both replicas are set or neither. <b>Fail-open</b>: every miss is an
 * answer with a reason code and a message; an internal fault is logged, answered NO_HINT and
 * flagged ({@link PdRouteResult#internalError()}); {@link #route} never throws for an expected
 * outcome. <b>Threads and memory</b>: any number of threads, no lock; everything per call lives in
 * the caller's request and result, so a warm call allocates nothing. O(members × holders) per call.
 * The index's LFU counters are not credited (a P/D answer is not a LookupRoute hit).
 */
public final class PdRouter {
  /** Candidates kept per role before pairs are scored. */
  public static final int CANDIDATES = 4;

  static final String MSG_BAD_REF = "pd_topology_ref must be namespace/name";
  static final String MSG_REF_NOT_FOUND = "no topology named by pd_topology_ref";
  static final String MSG_NO_TENANT = "no pd_topology_ref and no tenant_id";
  static final String MSG_TENANT_NONE = "no topology in the tenant's namespace";
  static final String MSG_TENANT_SEVERAL =
      "several topologies in the tenant's namespace: set pd_topology_ref";
  static final String MSG_CHAIN_MALFORMED = "block_hashes and block_token_counts differ in length";
  static final String MSG_BAD_TOKENS = "prompt_token_count must be >= 0";
  static final String MSG_PREFILL_EMPTY = "no live replica in the prefill pools";
  static final String MSG_DECODE_EMPTY = "no live replica in the decode pools";
  static final String MSG_DEADLINE = "deadline exceeded";
  static final String MSG_PROBE = "the probe tenant is never routed";
  static final String MSG_INTERNAL = "internal error";

  private static final Logger LOG = LoggerFactory.getLogger(PdRouter.class);

  private final EngineState state;
  private final Lookups lookups;
  private final StringDictionary dict;
  private final PartitionRegistry registry;
  private final PolicyStore policies;
  private final PdTopologyStore topologies;
  private final CostModelRouting costModel;
  private final AnswerCounts answers;
  private final PendingPrefill pending;
  private final LongSupplier nanoTime;

  /**
   * A router over {@code index}, its policy store (the cost model's parameters, the TTL) and its
   * topology store.
   *
   * @param nanoTime the clock of call start times, deadlines and latencies
   */
  public PdRouter(final CacheIndex index, final LongSupplier nanoTime) {
    this.state = index.state();
    this.lookups = new Lookups(state);
    this.dict = state.dict;
    this.registry = state.registry;
    this.policies = state.policyStore;
    this.topologies = state.pdTopologyStore;
    this.answers = new AnswerCounts();
    this.pending = new PendingPrefill();
    this.costModel = new CostModelRouting(state, answers);
    this.nanoTime = nanoTime;
  }

  /** The topologies this router reads. */
  public PdTopologyStore topologies() {
    return topologies;
  }

  /**
   * Answers one LookupPDRoute into {@code out}. Never throws for an expected outcome.
   *
   * @param start the router-clock time at which the call arrived
   * @param deadline the router-clock time after which the answer is NO_HINT ({@link
   *     Long#MAX_VALUE}: none)
   */
  public void route(
      final PdRouteRequest in, final PdRouteResult out, final long start, final long deadline) {
    out.reset();
    try {
      decide(in, out, start, deadline);
    } catch (RuntimeException | Error e) {
      if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
        throw vme;
      }
      LOG.error("event=lookup_pd_route_internal_error reason=\"{}\"", String.valueOf(e), e);
      out.answer(ReasonCodes.NO_HINT, MSG_INTERNAL, micros(nanoTime.getAsLong() - start));
      out.internalError = true;
    }
  }

  private static long micros(final long nanos) {
    return nanos <= 0 ? 0 : nanos / 1000;
  }

  private void finish(
      final PdRouteResult out, final String reason, final String why, final long start) {
    out.reasonCode = reason;
    out.message = why;
    out.latencyMicros = micros(nanoTime.getAsLong() - start);
  }

  private void decide(
      final PdRouteRequest in, final PdRouteResult out, final long start, final long deadline) {
    final LookupRequest q = in.request;
    final int tenantId = q.tenant.resolve(dict);
    if (tenantId >= 0 && tenantId == state.registry.reservedTenantId()) {
      finish(out, ReasonCodes.NO_HINT, MSG_PROBE, start);
      return;
    }

    // 1. The topology.
    final CompiledTopology t;
    final String ref = in.topologyRef;
    if (!ref.isEmpty()) {
      if (!wellFormedRef(ref)) {
        finish(out, ReasonCodes.NO_HINT, MSG_BAD_REF, start);
        return;
      }
      t = topologies.byRef(ref);
      if (t == null) {
        finish(out, ReasonCodes.PD_TOPOLOGY_NOT_FOUND, MSG_REF_NOT_FOUND, start);
        return;
      }
    } else {
      if (q.tenant.isEmpty()) {
        finish(out, ReasonCodes.PD_TOPOLOGY_NOT_FOUND, MSG_NO_TENANT, start);
        return;
      }
      final CompiledTopology[] mine = topologies.inNamespace(tenantId);
      if (mine.length == 0) {
        finish(out, ReasonCodes.PD_TOPOLOGY_NOT_FOUND, MSG_TENANT_NONE, start);
        return;
      }
      if (mine.length > 1) {
        finish(out, ReasonCodes.PD_TOPOLOGY_AMBIGUOUS, MSG_TENANT_SEVERAL, start);
        return;
      }
      t = mine[0];
    }
    out.topologyRef = t.ref();
    out.transportHint = t.transport();

    // 2. The input.
    if (q.hasChain() && q.chainMalformed()) {
      finish(out, ReasonCodes.NO_HINT, MSG_CHAIN_MALFORMED, start);
      return;
    }
    if (in.promptTokens < 0) {
      finish(out, ReasonCodes.NO_HINT, MSG_BAD_TOKENS, start);
      return;
    }
    final int tokens = Math.max(in.promptTokens, Math.max(0, q.effectiveTokens()));
    out.promptTokens = tokens;

    // 3. The index: every holder's matched tokens. Without a hash_scheme (a legacy client), the
    // (tenant, model)'s only scheme in the index, if it has one.
    final int modelId = q.model.resolve(dict);
    final TenantModelState tm = registry.tm(tenantId, modelId);
    if (q.scheme.isEmpty() && tm != null && tm.scopes().length == 1) {
      final ScopeState only = registry.scopeById(tm.scopes()[0]);
      if (only != null) {
        q.scheme.set(dict.string(only.scheme));
      }
    }
    final ScopeState scope = registry.scope(tm, q.scheme.resolve(dict));
    final LookupResult r = out.lookup;
    lookups.lookupAndClassify(q, r, tenantId, modelId, false, 0, 0);
    if (r.outcome() != Outcome.PREFIX_MATCH) {
      r.clear(); // TENANT_HOT and the misses hold no matched prefix
    }
    final ResolvedPolicy policy = policies.resolve(tenantId);
    final long now = state.clock.nanoTime();
    final long ttl = state.ttlNanosOf(tenantId);
    final long budget =
        policy.lookupTimeoutMs() > 0
            ? start + TimeUnit.MILLISECONDS.toNanos(policy.lookupTimeoutMs())
            : Long.MAX_VALUE;
    if (nanoTime.getAsLong() >= Math.min(deadline, budget)) {
      finish(out, ReasonCodes.NO_HINT, MSG_DEADLINE, start);
      return;
    }

    // 4-5. Live prefill members, the best CANDIDATES by expected time to first token.
    final int np = t.size(CompiledTopology.PREFILL);
    for (int i = 0; i < np; i++) {
      final int id = t.replica(CompiledTopology.PREFILL, i);
      if (!live(tm, scope, id, now, ttl)) {
        continue;
      }
      final int m = matched(r, id);
      final float load = costModel.load(tm, id, now, ttl, policy);
      final float c = CostModelRouting.cost(tokens, m, load, policy) + backlogMs(tm, id, policy);
      out.prefillCount =
          keep(
              t,
              CompiledTopology.PREFILL,
              out.prefill,
              out.prefillCost,
              out.prefillLoad,
              out.prefillMatched,
              out.prefillCount,
              i,
              c,
              load,
              m);
    }
    if (out.prefillCount == 0) {
      finish(out, ReasonCodes.PD_POOL_EMPTY, MSG_PREFILL_EMPTY, start);
      return;
    }

    // 6. Live decode members, the best CANDIDATES by wait, load, replica-id order; and the
    // cheapest decode-local answer among those whose own uncached part is below the threshold.
    final int threshold = t.decodeLocalPrefillTokens();
    int local = -1;
    int localMatched = 0;
    float localCost = Float.POSITIVE_INFINITY;
    final int nd = t.size(CompiledTopology.DECODE);
    for (int i = 0; i < nd; i++) {
      final int id = t.replica(CompiledTopology.DECODE, i);
      if (!live(tm, scope, id, now, ttl)) {
        continue;
      }
      final float load = costModel.load(tm, id, now, ttl, policy);
      final int m = matched(r, id);
      final float backlog = backlogMs(tm, id, policy);
      if (threshold > 0 && tokens - m < threshold) {
        final float c = localCost(tokens, m, load, backlog, policy);
        if (local < 0
            || c < localCost
            || (c == localCost
                && t.rank(CompiledTopology.DECODE, i) < t.rank(CompiledTopology.DECODE, local))) {
          local = i;
          localCost = c;
          localMatched = m;
        }
      }
      out.decodeCount =
          keep(
              t,
              CompiledTopology.DECODE,
              out.decode,
              out.decodeWait,
              out.decodeLoad,
              out.decodeMatched,
              out.decodeCount,
              i,
              CostModelRouting.cost(0, 0, load, policy) + backlog,
              load,
              m);
    }
    if (out.decodeCount == 0) {
      finish(out, ReasonCodes.PD_POOL_EMPTY, MSG_DECODE_EMPTY, start);
      return;
    }

    // 7. Every pair: prefill + transfer + decode wait; ties to the earlier candidates.
    final double kvBytes = (double) tokens * t.kvBytesPerToken();
    int bestP = -1;
    int bestD = -1;
    double best = Double.POSITIVE_INFINITY;
    double bestTransfer = 0;
    for (int b = 0; b < out.decodeCount; b++) {
      for (int a = 0; a < out.prefillCount; a++) {
        final double transfer = transferMs(t, out.prefill[a], out.decode[b], kvBytes);
        final double cost = out.prefillCost[a] + transfer + out.decodeWait[b];
        if (cost < best) { // strict: among equals, the earlier candidates (decode, then prefill)
          best = cost;
          bestP = a;
          bestD = b;
          bestTransfer = transfer;
        }
      }
    }

    // 8. Skip rule: decode-local when a decode member's own uncached part is below the threshold
    // and prefilling there (with the stall it causes its batch) costs no more than the best pair.
    if (local >= 0 && localCost <= best) {
      final String name = t.replicaName(CompiledTopology.DECODE, local);
      final int d = t.replica(CompiledTopology.DECODE, local);
      out.prefillReplica = name;
      out.decodeReplica = name;
      out.prefillPool = t.pool(CompiledTopology.DECODE, local);
      out.decodePool = out.prefillPool;
      out.prefillMatchedTokens = localMatched;
      out.estimatedTtftMs = localCost;
      out.transferMs = 0f;
      pending.add(d, reportedAt(tm, d), tokens - localMatched);
      answers.answered(tm, d);
      finish(out, ReasonCodes.PD_DECODE_LOCAL, "", start);
      return;
    }

    // 9. The pair.
    final int p = out.prefill[bestP];
    final int d = out.decode[bestD];
    out.prefillReplica = t.replicaName(CompiledTopology.PREFILL, p);
    out.decodeReplica = t.replicaName(CompiledTopology.DECODE, d);
    out.prefillPool = t.pool(CompiledTopology.PREFILL, p);
    out.decodePool = t.pool(CompiledTopology.DECODE, d);
    out.prefillMatchedTokens = out.prefillMatched[bestP];
    out.estimatedTtftMs = (float) best;
    out.transferMs = (float) bestTransfer;
    final int pid = t.replica(CompiledTopology.PREFILL, p);
    pending.add(pid, reportedAt(tm, pid), tokens - out.prefillMatched[bestP]);
    answers.answered(tm, t.replica(CompiledTopology.DECODE, d));
    finish(out, ReasonCodes.PD_PAIR, "", start);
  }

  /**
   * The expected time to first token of a decode-local answer on a decode member: its own uncached
   * prefill and its wait (the cost model), plus the stall that prefill causes the batch it runs,
   * charged as the prefill time × the member's occupancy ({@code load ÷ slots}, at most 1: a full
   * batch pays as much again).
   */
  static float localCost(
      final int tokens,
      final int matched,
      final float load,
      final float backlogMs,
      final ResolvedPolicy policy) {
    final float prefillMs = Math.max(0, tokens - matched) * 1000f / policy.prefillTokensPerSecond();
    final float occupancy = Math.min(1f, Math.max(0f, load / policy.slots()));
    return CostModelRouting.cost(tokens, matched, load, policy) + backlogMs + prefillMs * occupancy;
  }

  /**
   * The prefill work (ms) this router sent to {@code replica} since its last stats report: the
   * uncached tokens of those answers ÷ prefillTokensPerSecond.
   */
  private float backlogMs(
      final TenantModelState tm, final int replica, final ResolvedPolicy policy) {
    final long queued = pending.since(replica, reportedAt(tm, replica));
    return queued == 0 ? 0f : queued * 1000f / policy.prefillTokensPerSecond();
  }

  /** When {@code replica}'s current stats were reported ({@link Long#MIN_VALUE}: never). */
  private static long reportedAt(final TenantModelState tm, final int replica) {
    final StatsRow row = tm == null ? null : tm.stats.get(replica);
    return row == null ? Long.MIN_VALUE : row.statsReported();
  }

  /** Whether {@code ref} is {@code namespace/name}: one '/', neither part empty. */
  static boolean wellFormedRef(final String ref) {
    final int slash = ref.indexOf('/');
    return slash > 0 && slash < ref.length() - 1 && ref.indexOf('/', slash + 1) < 0;
  }

  /**
   * Whether {@code replica} is live for the call: a stats row seen within the TTL, or entries in
   * the call's scope.
   */
  private static boolean live(
      final TenantModelState tm,
      final ScopeState scope,
      final int replica,
      final long now,
      final long ttl) {
    if (replica < 0 || tm == null) {
      return false;
    }
    final StatsRow row = tm.stats.get(replica);
    if (row != null && ScoreMath.freshness(now - row.lastSeen(), ttl) > 0f) {
      return true;
    }
    return scope != null && scope.serves(replica);
  }

  /**
   * The matched tokens of {@code replica} in the walk's answer (0 when it holds no leading run).
   */
  private static int matched(final LookupResult r, final int replica) {
    for (int j = 0; j < r.size; j++) {
      if (r.replica[j] == replica) {
        return r.matched[j];
      }
    }
    return 0;
  }

  /** KV transfer time (ms) of {@code kvBytes} between prefill member p and decode member d. */
  static double transferMs(
      final CompiledTopology t, final int p, final int d, final double kvBytes) {
    final double bw = t.bytesPerMs(p, d);
    return Double.isInfinite(bw) ? 0d : kvBytes / bw;
  }

  /**
   * Inserts member {@code i} of {@code role} into that role's candidates ({@code idx}, {@code
   * cost}, {@code load}, {@code matched}: the first {@code n} ordered by cost, then load, then
   * replica-id order) if it ranks among the best {@link #CANDIDATES}; returns the new count.
   */
  private static int keep(
      final CompiledTopology t,
      final int role,
      final int[] idx,
      final float[] cost,
      final float[] load,
      final int[] matched,
      final int count,
      final int i,
      final float c,
      final float l,
      final int m) {
    final int rank = t.rank(role, i);
    int n = count;
    int at = n;
    while (at > 0) {
      final int o = at - 1;
      if (c < cost[o]
          || (c == cost[o] && (l < load[o] || (l == load[o] && rank < t.rank(role, idx[o]))))) {
        at = o;
      } else {
        break;
      }
    }
    if (at >= CANDIDATES) {
      return n;
    }
    if (n == CANDIDATES) {
      n--; // the last one drops out
    }
    for (int k = n; k > at; k--) {
      idx[k] = idx[k - 1];
      cost[k] = cost[k - 1];
      load[k] = load[k - 1];
      matched[k] = matched[k - 1];
    }
    idx[at] = i;
    cost[at] = c;
    load[at] = l;
    matched[at] = m;
    return n + 1;
  }
}
