package io.inferencecache.service.lookup;

import io.inferencecache.engine.LookupResult;
import java.util.Arrays;

/**
 * A LookupRouteResponse as the handler produces it, reusable across calls. Writers (the zero-copy
 * response writer and the protobuf builder) read the envelope and the scores from it. Not
 * thread-safe.
 */
public final class LookupOutput {
  String reasonCode = ReasonCodes.NO_HINT;
  boolean echoAdapter;
  long latencyMicros;
  int[] echoTokens = new int[0];
  int echoCount;
  final LookupResult result = new LookupResult();
  int affinityReplica = -1;
  boolean scoresFromResult;

  void reset() {
    reasonCode = ReasonCodes.NO_HINT;
    echoAdapter = false;
    latencyMicros = 0;
    echoCount = 0;
    affinityReplica = -1;
    scoresFromResult = false;
  }

  /** Sets a bare envelope: a reason code, a latency, no scores, no echoes. */
  public void answer(final String reason, final long latencyMicros) {
    reset();
    this.reasonCode = reason;
    this.latencyMicros = Math.max(0, latencyMicros);
  }

  void echo(final int[] tokens, final int count) {
    if (echoTokens.length < count) {
      echoTokens = Arrays.copyOf(tokens, Math.max(count, echoTokens.length * 2));
    } else {
      System.arraycopy(tokens, 0, echoTokens, 0, count);
    }
    echoCount = count;
  }

  public String reasonCode() {
    return reasonCode;
  }

  /** Whether the response echoes the request's adapter_id (index-path answers only). */
  public boolean echoAdapter() {
    return echoAdapter;
  }

  public long latencyMicros() {
    return latencyMicros;
  }

  /** Number of token ids to echo (only when the server tokenized prompt_text). */
  public int echoCount() {
    return echoCount;
  }

  public int echoToken(final int i) {
    return echoTokens[i];
  }

  /** Number of replica scores in the response. */
  public int scoreCount() {
    if (affinityReplica >= 0) {
      return 1;
    }
    return scoresFromResult ? result.size() : 0;
  }

  /** Replica dictionary id of score {@code i}. */
  public int replicaId(final int i) {
    return affinityReplica >= 0 ? affinityReplica : result.replicaId(i);
  }

  public float score(final int i) {
    return affinityReplica >= 0 ? 0f : result.score(i);
  }

  public int matchedTokens(final int i) {
    return affinityReplica >= 0 ? 0 : result.matchedTokens(i);
  }

  public float estimatedCacheHitProb(final int i) {
    return affinityReplica >= 0 ? 0f : result.estimatedCacheHitProb(i);
  }

  /** Wire tier (CacheTier number) of score {@code i}. */
  public int tier(final int i) {
    return affinityReplica >= 0 ? 0 : result.tier(i);
  }
}
