package io.inferencecache.service.lookup;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.engine.Outcome;
import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.engine.policy.PolicyStore;
import io.inferencecache.engine.policy.ResolvedPolicy;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * LookupRoute's decision procedure (spec §2.9), transport-agnostic: it reads a {@link LookupInput}
 * and fills a {@link LookupOutput}. Thread-safe; per-thread scratch is kept in {@link Scratch}
 * objects owned by the caller, so a warm call allocates nothing on the chain and exact paths.
 *
 * <p><b>Fail-open.</b> Every outcome, including an internal fault, is an answer with a reason code;
 * {@link #handle} never throws. LookupRoute logs nothing on its normal paths.
 */
public final class LookupRouteHandler {
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

  private static final Logger LOG = LoggerFactory.getLogger(LookupRouteHandler.class);

  /** Test hook run right before the index is consulted (fault and latency injection). */
  public interface IndexHook {
    void beforeIndexLookup() throws Exception;

    IndexHook NONE = () -> {};
  }

  /** Per-thread scratch: SHA-256 for the affinity seed and fingerprint buffers. */
  public static final class Scratch {
    final MessageDigest sha256;
    final byte[] digest = new byte[32];
    final byte[] wire = new byte[Fingerprint.WIRE_BYTES];
    final long[] pair = new long[2];

    public Scratch() {
      try {
        sha256 = MessageDigest.getInstance("SHA-256");
      } catch (NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is required by the JDK", e);
      }
    }
  }

  private final CacheIndex index;
  private final PolicyStore policies;
  private final PromptTokenizer tokenizer;
  private final int blockSize;
  private final LookupMetrics metrics;
  private final LongSupplier nanoTime;
  private final Semaphore tokenizePermits = new Semaphore(MAX_CONCURRENT_TOKENIZE);
  private volatile IndexHook hook = IndexHook.NONE;

  public LookupRouteHandler(
      final CacheIndex index,
      final PromptTokenizer tokenizer,
      final int engineBlockSize,
      final LookupMetrics metrics,
      final LongSupplier nanoTime) {
    this.index = index;
    this.policies = index.policyStore();
    this.tokenizer = tokenizer;
    this.blockSize = engineBlockSize > 0 ? engineBlockSize : DEFAULT_ENGINE_BLOCK_SIZE;
    this.metrics = metrics;
    this.nanoTime = nanoTime;
  }

  /** Installs a test hook (see {@link IndexHook}). */
  public void indexHook(final IndexHook h) {
    this.hook = h == null ? IndexHook.NONE : h;
  }

  /** The engine block size used for token_ids / prompt_text fingerprints. */
  public int blockSize() {
    return blockSize;
  }

  /** The policy's own deadline for this input's tenant, on the handler clock, if any. */
  public long policyDeadline(final LookupInput in, final long start) {
    final ResolvedPolicy p = policies.resolve(index.idOf(in.request.tenant()));
    return p.lookupTimeoutMs() > 0
        ? start + TimeUnit.MILLISECONDS.toNanos(p.lookupTimeoutMs())
        : Long.MAX_VALUE;
  }

  /**
   * The deadline a call runs under (spec §2.9 steps 2-3), on the handler clock: the tighter of the
   * caller's and the tenant policy's {@code lookupTimeoutMs}; a call that will tokenize prompt_text
   * and has neither gets {@link #DEFAULT_TOKENIZE_TIMEOUT_NANOS}. {@link Long#MAX_VALUE} when there
   * is none. Transports that answer TIMEOUT on their own (watchdogs) must use this deadline, so
   * that a blocked handler is bounded exactly as the handler is.
   */
  public long deadline(final LookupInput in, final long callerDeadline, final long start) {
    return deadline(in, policies.resolve(index.idOf(in.request.tenant())), callerDeadline, start);
  }

  private static long deadline(
      final LookupInput in,
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
  private static boolean willTokenize(final LookupInput in, final boolean chainOn) {
    final LookupRequest q = in.request;
    return in.promptLength > 0
        && (!chainOn || (q.blockHashCount() == 0 && q.blockTokenCountCount() == 0))
        && q.exactLength() == 0
        && in.tokenIdCount == 0;
  }

  /**
   * Answers one LookupRoute. Never throws: an internal fault is answered as NO_HINT (counted).
   *
   * @param start the handler-clock time at which the call arrived (for latency)
   */
  public void handle(
      final LookupInput in,
      final LookupOutput out,
      final CallContext call,
      final Scratch scratch,
      final long start) {
    out.reset();
    final LookupRequest q = in.request;
    final String model = modelLabel(q);
    try {
      decide(in, out, call, scratch, start);
    } catch (RuntimeException | Error e) {
      if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
        throw vme;
      }
      LOG.error("event=lookup_route_internal_error reason=\"{}\"", String.valueOf(e), e);
      metrics.internalError();
      out.reset();
      out.reasonCode = ReasonCodes.NO_HINT;
      out.latencyMicros = micros(nanoTime.getAsLong() - start);
    }
    if (!call.claim()) {
      return; // already answered (TIMEOUT) and counted by the transport's watchdog
    }
    final boolean probe = isProbeTenant(q);
    metrics.record(
        model, out.reasonCode, out.scoreCount() > 0, probe ? 0 : nanoTime.getAsLong() - start);
  }

  private boolean isProbeTenant(final LookupRequest q) {
    final int id = index.idOf(q.tenant());
    return id >= 0 && CacheIndex.RESERVED_TENANT.equals(index.replicaName(id));
  }

  private String modelLabel(final LookupRequest q) {
    final int id = index.idOf(q.model());
    return id >= 0 ? index.replicaName(id) : q.model().toString();
  }

  private static long micros(final long nanos) {
    return nanos <= 0 ? 0 : nanos / 1000;
  }

  private boolean expired(final long deadline, final CallContext call) {
    return call.cancelled() || (deadline != Long.MAX_VALUE && nanoTime.getAsLong() >= deadline);
  }

  private void finish(final LookupOutput out, final String reason, final long start) {
    out.reasonCode = reason;
    out.latencyMicros = micros(nanoTime.getAsLong() - start);
  }

  private void decide(
      final LookupInput in,
      final LookupOutput out,
      final CallContext call,
      final Scratch scratch,
      final long start) {
    final LookupRequest q = in.request;

    // 1. Reserved probe tenant: never routed to, latency 0.
    if (isProbeTenant(q)) {
      out.reasonCode = ReasonCodes.NO_HINT;
      out.latencyMicros = 0;
      return;
    }

    // 2-3. Deadlines: the tighter of the caller's and the policy's budget; a tokenizing lookup
    // always has one.
    final ResolvedPolicy policy = policies.resolve(index.idOf(q.tenant()));
    final long budgetNanos =
        policy.lookupTimeoutMs() > 0 ? TimeUnit.MILLISECONDS.toNanos(policy.lookupTimeoutMs()) : 0;
    final long deadline = deadline(in, policy, call.deadlineNanos(), start);
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
    final boolean failOpen = resolveInputs(in, out, scratch, chainOn, rawHashes, rawCounts);

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
    final int effective = q.effectiveTokens();
    final boolean belowMinPrefix = minPrefix > 0 && effective < minPrefix;
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
    index.lookupRoute(q, r);
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
    if (outcome == Outcome.PREFIX_MATCH) {
      final float floor = policy.routingFloorScore();
      if (floor > 0f && r.score(0) < floor) {
        outcome = Outcome.NONE;
      }
    }
    if (outcome != r.outcome()) {
      r.downgrade(outcome);
    }

    out.echoAdapter = true;
    // 14. Affinity fallback for a would-be NO_HINT.
    if (outcome == Outcome.NONE
        && policy.affinityRouting()
        && !q.tenant().isEmpty()
        && !q.model().isEmpty()
        && !q.hashScheme().isEmpty()
        && rawHashes == rawCounts // the raw wire chain is not malformed
        && CacheIndex.affinitySeedDigest(q, scratch.sha256, scratch.digest)) {
      final int replica = index.affinityHint(q, scratch.digest);
      if (replica >= 0) {
        out.affinityReplica = replica;
        finish(out, ReasonCodes.AFFINITY_HINT, start);
        return;
      }
    }

    // 15. LFU credit for a delivered prefix match.
    // Only an answer that is actually delivered is credited: the call is claimed first, so a
    // TIMEOUT already sent by a watchdog is never credited.
    if (outcome == Outcome.PREFIX_MATCH && call.claim()) {
      index.creditDelivered(r);
    }
    // 16.
    out.scoresFromResult = outcome == Outcome.PREFIX_MATCH || outcome == Outcome.TENANT_HOT;
    finish(out, outcome.reasonCode(), start);
  }

  /** Step 6; returns true to fail open. */
  private boolean resolveInputs(
      final LookupInput in,
      final LookupOutput out,
      final Scratch scratch,
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
      return !chainFromTokens(in.tokenIds, in.tokenIdCount, q, scratch, chainOn);
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
        final String model = modelLabel(q);
        if (!tokenizer.supports(model)) {
          return true;
        }
        tokens = tokenizer.encodeUserTurn(model, in.promptString());
      } catch (Exception e) {
        return true;
      } finally {
        tokenizePermits.release();
      }
      if (tokens == null || tokens.length == 0 || tokens.length > MAX_LOOKUP_TOKENS) {
        return true;
      }
      out.echo(tokens, tokens.length);
      return !chainFromTokens(tokens, tokens.length, q, scratch, chainOn);
    }
    return chainIgnored;
  }

  /**
   * Fingerprints {@code tokens} at the engine block size into the request: the chain (unless chain
   * matching is off) and the exact key = last block hash with the sum of the counts. Returns false
   * when there is no full block.
   */
  private boolean chainFromTokens(
      final int[] tokens,
      final int count,
      final LookupRequest q,
      final Scratch scratch,
      final boolean chainOn) {
    final int bs = blockSize;
    final int blocks = count / bs;
    if (blocks == 0) {
      return false;
    }
    q.clearChain();
    long prefix = 0;
    for (int b = 0; b < blocks; b++) {
      final long content = Fingerprint.contentHash(tokens, b * bs, bs);
      prefix = b == 0 ? content : Fingerprint.chain(prefix, content, scratch.pair);
      if (chainOn) {
        Fingerprint.toWire(prefix, scratch.wire, 0);
        q.addBlockHash(scratch.wire, 0, Fingerprint.WIRE_BYTES).addBlockTokenCount(bs);
      }
    }
    Fingerprint.toWire(prefix, scratch.wire, 0);
    q.exact(scratch.wire, 0, Fingerprint.WIRE_BYTES, blocks * bs);
    return true;
  }
}
