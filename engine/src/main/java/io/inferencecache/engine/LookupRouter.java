package io.inferencecache.engine;

import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.policy.EvictionAlgorithm;
import io.inferencecache.engine.policy.PolicyStore;
import io.inferencecache.engine.policy.ResolvedPolicy;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole LookupRoute decision, in one place and in order (the numbered steps of {@code decide}):
 * one {@link #route} call reads a {@link RouteRequest} and fills a {@link RouteResult}. The tenant
 * and model ids, the tenant's policy and the probe-tenant check are resolved once per call; then
 * the deadline, the chain requirement, the inputs (chain, exact key, token ids, or prompt text
 * through the service's {@link RouteTokenizer}), the minimum-prefix gate, the index, the strategy
 * and result gates, the affinity fallback, the LFU credit and the replica names of the scores, all
 * from that one pass. A routing rule changes here and nowhere else; transports only parse, watch
 * deadlines and write the result.
 *
 * <p><b>Threads and memory.</b> Any number of threads; no lock is taken (tokenizing is bounded by a
 * non-blocking permit). Everything per call lives in the caller's request and result objects, so a
 * warm call on the chain or exact path allocates nothing.
 *
 * <p><b>Fail-open.</b> Every outcome, an internal fault included, is an answer with a reason code:
 * {@link #route} never throws for an expected outcome (a fault is logged, answered NO_HINT and
 * flagged in {@link RouteResult#internalError()}). Nothing is logged on the normal paths.
 */
public final class LookupRouter {
  /** Largest token_ids list (and tokenizer output) accepted: {@code 1 << 20}. */
  public static final int MAX_LOOKUP_TOKENS = 1 << 20;

  /** Largest prompt_text accepted, in UTF-8 bytes: {@code 1 << 20}. */
  public static final int MAX_PROMPT_TEXT_BYTES = 1 << 20;

  /** Concurrent tokenizations; a saturated tokenizer fails open. */
  public static final int MAX_CONCURRENT_TOKENIZE = 64;

  /** Deadline applied to a tokenizing lookup that has no other deadline. */
  public static final long DEFAULT_TOKENIZE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

  /** Engine block size used to fingerprint token ids when none is configured. */
  public static final int DEFAULT_ENGINE_BLOCK_SIZE = 16;

  private static final Logger LOG = LoggerFactory.getLogger(LookupRouter.class);

  /** Test hook run right before the index is consulted (fault and latency injection). */
  public interface IndexHook {
    void beforeIndexLookup() throws Exception;

    IndexHook NONE = () -> {};
  }

  private final EngineState state;
  private final LfuCounters lfuCounters;
  private final boolean policiesFromStore;
  private final Lookups lookups;
  private final StringDictionary dict;
  private final PolicyStore policies;
  private final RouteTokenizer tokenizer;
  private final int blockSize;
  private final LongSupplier nanoTime;
  private final LoadAwareRouting loadAware;
  private final CostModelRouting costModel;
  private final Semaphore tokenizePermits = new Semaphore(MAX_CONCURRENT_TOKENIZE);
  private volatile IndexHook hook = IndexHook.NONE;

  /**
   * A router over {@code index} and its policy store.
   *
   * @param engineBlockSize tokens per block when fingerprinting token ids (non-positive: {@link
   *     #DEFAULT_ENGINE_BLOCK_SIZE})
   * @param nanoTime the clock of call start times, deadlines and latencies
   */
  public LookupRouter(
      final CacheIndex index,
      final RouteTokenizer tokenizer,
      final int engineBlockSize,
      final LongSupplier nanoTime) {
    this.state = index.state();
    this.lookups = new Lookups(state);
    this.dict = state.dict;
    this.lfuCounters = state.lfuCounters;
    this.policiesFromStore = state.policiesFromStore;
    this.policies = state.policyStore;
    this.tokenizer = tokenizer;
    this.blockSize = engineBlockSize > 0 ? engineBlockSize : DEFAULT_ENGINE_BLOCK_SIZE;
    this.nanoTime = nanoTime;
    final AnswerCounts answers = new AnswerCounts();
    this.loadAware = new LoadAwareRouting(state, answers);
    this.costModel = new CostModelRouting(state, answers);
  }

  /** Installs a test hook (see {@link IndexHook}). */
  public void indexHook(final IndexHook h) {
    this.hook = h == null ? IndexHook.NONE : h;
  }

  /** The engine block size used for token_ids / prompt_text fingerprints. */
  public int blockSize() {
    return blockSize;
  }

  /**
   * Answers one LookupRoute into {@code out}. Never throws for an expected outcome; an internal
   * fault is answered NO_HINT and flagged.
   *
   * @param start the router-clock time at which the call arrived (for deadlines and latency)
   */
  public void route(
      final RouteRequest in, final RouteResult out, final RouteCall call, final long start) {
    out.reset();
    final LookupRequest q = in.request;
    final int tenantId = q.tenant.resolve(dict);
    final int modelId = q.model.resolve(dict);
    out.modelLabel = modelId >= 0 ? dict.string(modelId) : q.model.toString();
    out.probeTenant = tenantId >= 0 && tenantId == state.registry.reservedTenantId();
    try {
      decide(in, out, call, start, tenantId, modelId);
      out.fillNames(dict);
    } catch (RuntimeException | Error e) {
      if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
        throw vme;
      }
      LOG.error("event=lookup_route_internal_error reason=\"{}\"", String.valueOf(e), e);
      final String model = out.modelLabel;
      final boolean probe = out.probeTenant;
      out.answer(ReasonCodes.NO_HINT, micros(nanoTime.getAsLong() - start));
      out.modelLabel = model;
      out.probeTenant = probe;
      out.internalError = true;
    }
  }

  private static long micros(final long nanos) {
    return nanos <= 0 ? 0 : nanos / 1000;
  }

  private boolean expired(final long deadline, final RouteCall call) {
    return call.cancelled() || (deadline != Long.MAX_VALUE && nanoTime.getAsLong() >= deadline);
  }

  private void finish(final RouteResult out, final String reason, final long start) {
    out.reasonCode = reason;
    out.latencyMicros = micros(nanoTime.getAsLong() - start);
  }

  /** Steps 2-3: the tighter of the caller's and the policy's budget; a tokenizing call has one. */
  private static long deadline(
      final RouteRequest in,
      final ResolvedPolicy policy,
      final long callerDeadline,
      final long start) {
    long deadline = callerDeadline;
    if (policy.lookupTimeoutMs() > 0) {
      deadline =
          Math.min(deadline, start + TimeUnit.MILLISECONDS.toNanos(policy.lookupTimeoutMs()));
    }
    if (deadline == Long.MAX_VALUE && willTokenize(in, policy.enableChainMatching())) {
      deadline = start + DEFAULT_TOKENIZE_TIMEOUT_NANOS;
    }
    return deadline;
  }

  /** Step 3: whether the prompt text will be tokenized. */
  private static boolean willTokenize(final RouteRequest in, final boolean chainOn) {
    final LookupRequest q = in.request;
    return in.promptLength > 0
        && (!chainOn || (q.blockHashCount() == 0 && q.blockTokenCountCount() == 0))
        && q.exactLength() == 0
        && in.tokenIdCount == 0;
  }

  private void decide(
      final RouteRequest in,
      final RouteResult out,
      final RouteCall call,
      final long start,
      final int tenantId,
      final int modelId) {
    final LookupRequest q = in.request;

    // 1. Reserved probe tenant: never routed to, latency 0.
    if (out.probeTenant) {
      out.reasonCode = ReasonCodes.NO_HINT;
      out.latencyMicros = 0;
      return;
    }

    // 2-3. Deadlines, handed to the transport's watchdog before anything can block.
    final ResolvedPolicy policy = policies.resolve(tenantId);
    final long budgetNanos =
        policy.lookupTimeoutMs() > 0 ? TimeUnit.MILLISECONDS.toNanos(policy.lookupTimeoutMs()) : 0;
    final long deadline = deadline(in, policy, call.deadlineNanos(), start);
    call.deadlineResolved(deadline);
    final boolean chainOn = policy.enableChainMatching();
    final int rawHashes = q.blockHashCount();
    final int rawCounts = q.blockTokenCountCount();

    // 4. Already expired.
    if (expired(deadline, call)) {
      finish(out, ReasonCodes.TIMEOUT, start);
      return;
    }

    // 5. requireChain: only a valid wire chain satisfies it.
    if (policy.requireChain() && !(rawHashes > 0 && rawHashes == rawCounts)) {
      finish(out, ReasonCodes.POLICY_REQUIRES_CHAIN, start);
      return;
    }

    // 6. Resolve the inputs.
    final boolean failOpen = resolveInputs(in, out, chainOn, rawHashes, rawCounts);

    // 7-8.
    if (expired(deadline, call)) {
      finish(out, ReasonCodes.TIMEOUT, start);
      return;
    }
    if (failOpen) {
      finish(out, ReasonCodes.NO_HINT, start);
      return;
    }

    // 9. Minimum prefix gate (short-circuits only when affinity cannot take over).
    final int minPrefix = policy.minimumPrefixTokens();
    final boolean belowMinPrefix = minPrefix > 0 && q.effectiveTokens() < minPrefix;
    if (belowMinPrefix && !policy.affinityRouting()) {
      finish(out, ReasonCodes.NO_HINT, start);
      return;
    }

    // 10. Chain matching off: the index sees the exact key only.
    if (!chainOn) {
      q.clearChain();
    }

    // 11. The index.
    final LookupResult r = out.result;
    final long lookupStart = nanoTime.getAsLong();
    runHook();
    final boolean lfu = lfu(tenantId, policy);
    final int cap = policy.answerCap(q.maxReplicas());
    lookups.lookupAndClassify(
        q, r, tenantId, modelId, lfu, earlyCap(cap, policy), policy.minimumMatchedTokens());
    if (expired(deadline, call)
        || (budgetNanos > 0 && nanoTime.getAsLong() - lookupStart > budgetNanos)) {
      r.clear();
      finish(out, ReasonCodes.TIMEOUT, start);
      return;
    }
    Outcome outcome = r.outcome();

    // 12. Strategy gate.
    if (outcome == Outcome.TENANT_HOT && !policy.enableTenantHot()) {
      outcome = Outcome.NONE;
    }
    // 13. Result-side gates.
    if (belowMinPrefix && (outcome == Outcome.PREFIX_MATCH || outcome == Outcome.TENANT_HOT)) {
      outcome = Outcome.NONE;
    }
    if (outcome == Outcome.PREFIX_MATCH
        && r.retainMatchedAtLeast(policy.minimumMatchedTokens()) == 0) {
      outcome = Outcome.NONE;
    }
    final boolean affinityAllowed =
        policy.affinityRouting()
            && !q.tenant.isEmpty()
            && !q.model.isEmpty()
            && !q.scheme.isEmpty()
            && rawHashes == rawCounts; // the raw wire chain is not malformed
    // 13a. Cost-model routing of a chain lookup (opt-in): every serving replica by expected TTFT,
    // before the score floor (the cost weighs a shallow or shared match itself).
    String decided = null;
    if (policy.costModel()
        && q.hasChain()
        && (outcome == Outcome.PREFIX_MATCH || outcome == Outcome.NONE)) {
      if (outcome != r.outcome()) {
        r.downgrade(outcome);
      }
      decided = costModel.route(in, r, affinityAllowed, policy, out);
      if (ReasonCodes.AFFINITY_HINT.equals(decided)) {
        r.downgrade(Outcome.NONE);
        out.echoAdapter = true;
        finish(out, ReasonCodes.AFFINITY_HINT, start);
        return;
      }
    }
    if (outcome == Outcome.PREFIX_MATCH && decided == null && failsFloor(q, r, policy)) {
      outcome = Outcome.NONE;
    }
    if (outcome != r.outcome()) {
      r.downgrade(outcome);
    }
    // 13b. Load-aware ranking of a prefix match (opt-in; the upstream order otherwise).
    if (outcome == Outcome.PREFIX_MATCH && policy.loadAware() && decided == null) {
      loadAware.rank(r, policy, out);
      loadAware.answered(r, r.replicaId(0), policy);
    }

    // 13c. The answer cap (opt-in): the best replicas only; those cut are not credited.
    if (cap > 0 && (outcome == Outcome.PREFIX_MATCH || outcome == Outcome.TENANT_HOT)) {
      r.truncate(cap);
    }

    out.echoAdapter = true;
    // 14. Affinity fallback for a would-be NO_HINT.
    if (outcome == Outcome.NONE
        && affinityAllowed
        && Lookups.affinitySeedDigest(q, in.sha256, in.digest)) {
      if (policy.loadAware()) {
        final int ranked = loadAware.affinity(r, in.digest, policy, out);
        if (ranked > 0) {
          out.affinityRanked(ranked);
          loadAware.answered(r, out.affinityReplica, policy);
          finish(out, ReasonCodes.AFFINITY_HINT, start);
          return;
        }
      }
      final int replica = policy.loadAware() ? -1 : lookups.affinityHint(r, in.digest);
      if (replica >= 0) {
        out.affinityReplica = replica;
        finish(out, ReasonCodes.AFFINITY_HINT, start);
        return;
      }
    }

    // 15. LFU credit for a delivered prefix match. Only an answer that is actually delivered is
    // credited: the call is claimed first, so a TIMEOUT already sent by a watchdog never is.
    if (outcome == Outcome.PREFIX_MATCH && call.claim()) {
      lookups.creditDelivered(r, lfu);
    }
    // 16.
    out.scoresFromResult = outcome == Outcome.PREFIX_MATCH || outcome == Outcome.TENANT_HOT;
    finish(out, outcome.reasonCode(), start);
  }

  /**
   * The cap the index may apply while it ranks (a partial selection: the rest is never sorted;
   * replicas under the matched-tokens floor rank last there, so the floor of step 13 still sees the
   * best that pass it), or 0 under load-aware ranking, which reorders the whole answer: then every
   * entry is sorted and the cap is applied at step 13c only.
   */
  private static int earlyCap(final int cap, final ResolvedPolicy policy) {
    return policy.loadAware() ? 0 : cap;
  }

  /** Step 13's score floor: whether a prefix match is too weak to route on. */
  private boolean failsFloor(final LookupRequest q, final LookupResult r, final ResolvedPolicy p) {
    final float floor = p.routingFloorScore();
    return floor > 0f && (p.loadAware() ? !loadAware.passesFloor(q, r, floor) : r.score(0) < floor);
  }

  /** Whether the tenant evicts by LFU, from the policy already resolved when the index reads it. */
  private boolean lfu(final int tenantId, final ResolvedPolicy policy) {
    if (policiesFromStore) {
      return policy.eviction() == EvictionAlgorithm.LFU && lfuCounters.ready(tenantId);
    }
    return tenantId >= 0 && lfuCounters.lfu(tenantId);
  }

  private void runHook() {
    try {
      hook.beforeIndexLookup();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("index lookup interrupted", e);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Step 6; returns true to fail open. */
  private boolean resolveInputs(
      final RouteRequest in,
      final RouteResult out,
      final boolean chainOn,
      final int rawHashes,
      final int rawCounts) {
    final LookupRequest q = in.request;
    boolean chainIgnored = false;
    if (!chainOn) {
      if (q.exactLength() > 0) {
        q.clearChain(); // exact (prefix_hash, prefix_token_count); chain ignored even if malformed
        return false;
      }
      chainIgnored = rawHashes > 0 || rawCounts > 0;
      q.clearChain();
    }
    if (q.hasChain() || q.exactLength() > 0) {
      return q.chainMalformed() && q.hasChain();
    }
    if (in.tokenIdCount > 0) {
      if (in.tokenIdCount > MAX_LOOKUP_TOKENS) {
        return true;
      }
      return !chainFromTokens(in.tokenIds, in.tokenIdCount, in, chainOn);
    }
    if (in.promptLength > 0) {
      if (in.promptTooLong || in.promptLength > MAX_PROMPT_TEXT_BYTES) {
        return true;
      }
      if (!tokenizePermits.tryAcquire()) {
        return true; // saturated: shed load, fail open
      }
      final int[] tokens;
      try {
        final String model = out.modelLabel;
        if (!tokenizer.supports(model)) {
          return true;
        }
        tokens = tokenizer.encodeUserTurn(model, in.promptText());
      } catch (Exception e) {
        return true;
      } finally {
        tokenizePermits.release();
      }
      if (tokens == null || tokens.length == 0 || tokens.length > MAX_LOOKUP_TOKENS) {
        return true;
      }
      out.echo(tokens, tokens.length);
      return !chainFromTokens(tokens, tokens.length, in, chainOn);
    }
    return chainIgnored;
  }

  /**
   * Fingerprints {@code tokens} at the engine block size into the request: the chain (unless chain
   * matching is off) and the exact key = last block hash with the sum of the counts. Returns false
   * when there is no full block.
   */
  private boolean chainFromTokens(
      final int[] tokens, final int count, final RouteRequest in, final boolean chainOn) {
    final LookupRequest q = in.request;
    final int bs = blockSize;
    final int blocks = count / bs;
    if (blocks == 0) {
      return false;
    }
    q.clearChain();
    long prefix = 0;
    for (int b = 0; b < blocks; b++) {
      final long content = Fingerprint.contentHash(tokens, b * bs, bs);
      prefix = b == 0 ? content : Fingerprint.chain(prefix, content, in.pair);
      if (chainOn) {
        Fingerprint.toWire(prefix, in.wire, 0);
        q.addBlockHash(in.wire, 0, Fingerprint.WIRE_BYTES).addBlockTokenCount(bs);
      }
    }
    Fingerprint.toWire(prefix, in.wire, 0);
    q.exact(in.wire, 0, Fingerprint.WIRE_BYTES, blocks * bs);
    return true;
  }
}
