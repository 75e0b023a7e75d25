package io.inferencecache.perf.replay;

import java.util.Random;

/**
 * The routing decision of each {@link PdPolicy} for one request: a (prefill, decode) pair, or the
 * decode replica alone (decode-local prefill). The index policies ask {@link PdIndex}; the peers
 * read the fleet's exact state ({@link PdReplica}: caches, queues, batches). Ties of the peers'
 * scorers are broken by the run's seeded {@link Random}.
 */
final class PdRouting {
  /** One decision: {@code prefill} is -1 for decode-local. */
  static final class Decision {
    int prefill;
    int decode;
    String reason = "";

    boolean local() {
      return prefill < 0;
    }
  }

  private final PdOptions o;
  private final PdPolicy policy;
  private final PdReplica[] fleet;
  private final PdIndex index;
  private final Random random;
  private final int firstDecode;
  private int prefillTurn;
  private int decodeTurn;

  PdRouting(
      final PdOptions o,
      final PdPolicy policy,
      final PdReplica[] fleet,
      final PdIndex index,
      final Random random) {
    this.o = o;
    this.policy = policy;
    this.fleet = fleet;
    this.index = index;
    this.random = random;
    this.firstDecode = o.prefillReplicas;
  }

  /** Decides for a prompt of {@code inputTokens} tokens with block chain {@code chain}. */
  void choose(final long[] chain, final int inputTokens, final Decision out) throws Exception {
    out.reason = "";
    switch (policy) {
      case PD_ROUTER -> {
        if (!index.pdRoute(chain, inputTokens, out)) {
          out.prefill = nextPrefill(); // a gateway's fallback on a fail-open answer
          out.decode = nextDecode();
        }
      }
      case PD_BLIND -> {
        final int p = index.topPrefill(chain);
        out.prefill = p >= 0 ? p : nextPrefill();
        out.decode = nextDecode();
        out.reason = index.lastReason();
      }
      case DYNAMO -> dynamo(chain, inputTokens, out);
      case LLMD -> llmd(chain, inputTokens, out);
      case SGLANG -> sglang(chain, out);
    }
  }

  private int nextPrefill() {
    final int p = prefillTurn;
    prefillTurn = (prefillTurn + 1) % o.prefillReplicas;
    return p;
  }

  private int nextDecode() {
    final int d = firstDecode + decodeTurn;
    decodeTurn = (decodeTurn + 1) % o.decodeReplicas;
    return d;
  }

  /** Prompt tokens not cached on replica {@code r}. */
  private long uncached(final int r, final long[] chain, final int inputTokens) {
    return Math.max(
        0, inputTokens - (long) fleet[r].prefixMatch(chain) * MooncakeTraceFile.TOKENS_PER_BLOCK);
  }

  private void dynamo(final long[] chain, final int inputTokens, final Decision out) {
    // Decode by load: fewest active blocks (running, queued and incoming prompts).
    out.decode =
        best(firstDecode, fleet.length, r -> -(fleet[r].runningBlocks + fleet[r].queuedBlocks));
    if (uncached(out.decode, chain, inputTokens) < o.dynamoLocalPrefillTokens) {
      out.prefill = -1;
      return;
    }
    out.prefill =
        best(
            0,
            firstDecode,
            r ->
                -(o.dynamoOverlapWeight * (chain.length - fleet[r].prefixMatch(chain))
                    + fleet[r].runningBlocks
                    + fleet[r].queuedBlocks));
  }

  private void llmd(final long[] chain, final int inputTokens, final Decision out) {
    final double[] qd = waitingRange(firstDecode, fleet.length);
    out.decode =
        best(
            firstDecode,
            fleet.length,
            r -> o.llmdQueueWeight * queueScore(r, qd) + o.llmdKvWeight * (1 - fleet[r].kvUse()));
    if (uncached(out.decode, chain, inputTokens) < o.llmdThresholdTokens) {
      out.prefill = -1;
      return;
    }
    final double[] qp = waitingRange(0, firstDecode);
    out.prefill =
        best(
            0,
            firstDecode,
            r ->
                o.llmdPrefixWeight * fleet[r].prefixMatch(chain) / chain.length
                    + o.llmdQueueWeight * queueScore(r, qp)
                    + o.llmdKvWeight * (1 - fleet[r].kvUse()));
  }

  private void sglang(final long[] chain, final Decision out) {
    int minLoad = Integer.MAX_VALUE;
    int maxLoad = 0;
    for (int r = 0; r < firstDecode; r++) {
      minLoad = Math.min(minLoad, fleet[r].load());
      maxLoad = Math.max(maxLoad, fleet[r].load());
    }
    final boolean imbalanced =
        maxLoad - minLoad > o.sglangBalanceAbs && maxLoad > o.sglangBalanceRel * minLoad;
    final int cached = best(0, firstDecode, r -> fleet[r].prefixMatch(chain));
    if (!imbalanced
        && (double) fleet[cached].prefixMatch(chain) / chain.length > o.sglangCacheThreshold) {
      out.prefill = cached;
    } else {
      out.prefill = best(0, firstDecode, r -> -fleet[r].load());
    }
    // Power of two choices: two distinct decode replicas at random, the less loaded one.
    final int a = firstDecode + random.nextInt(o.decodeReplicas);
    int b = a;
    if (o.decodeReplicas > 1) {
      b =
          firstDecode
              + (a - firstDecode + 1 + random.nextInt(o.decodeReplicas - 1)) % o.decodeReplicas;
    }
    out.decode = fleet[b].load() < fleet[a].load() ? b : a;
  }

  /** Min and max of the waiting requests over replicas {@code [from, to)}. */
  private double[] waitingRange(final int from, final int to) {
    double min = Double.MAX_VALUE;
    double max = -Double.MAX_VALUE;
    for (int r = from; r < to; r++) {
      min = Math.min(min, fleet[r].waiting());
      max = Math.max(max, fleet[r].waiting());
    }
    return new double[] {min, max};
  }

  /** llm-d's queue scorer: 1 for the shortest waiting queue, 0 for the longest. */
  private double queueScore(final int r, final double[] range) {
    return range[1] == range[0] ? 1.0 : (range[1] - fleet[r].waiting()) / (range[1] - range[0]);
  }

  /** The replica of {@code [from, to)} with the highest score; ties at random (reservoir). */
  private int best(
      final int from, final int to, final java.util.function.IntToDoubleFunction score) {
    int best = -1;
    int ties = 0;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int r = from; r < to; r++) {
      final double s = score.applyAsDouble(r);
      if (s > bestScore) {
        bestScore = s;
        best = r;
        ties = 1;
      } else if (s == bestScore && random.nextInt(++ties) == 0) {
        best = r;
      }
    }
    return best;
  }
}
