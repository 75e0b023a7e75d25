package io.inferencecache.engine;

import io.inferencecache.engine.internal.StringDictionary;
import java.util.Arrays;

/**
 * The answer of {@link LookupRouter} for one LookupRoute, read into the caller's reusable object:
 * the reason code, the latency, the replica scores best first with each replica's name (as a String
 * and as UTF-8 bytes, filled in the same pass, so writers never go back to the index), the token
 * ids to echo, and what the transport needs to record the call (model label, probe tenant, internal
 * fault). Writers (the service's zero-copy encoder and its protobuf builder) read it. Not
 * thread-safe: one per call in flight.
 */
public final class RouteResult {
  private static final String[] NO_NAMES = new String[0];
  private static final byte[][] NO_UTF8 = new byte[0][];

  String reasonCode = ReasonCodes.NO_HINT;
  boolean echoAdapter;
  long latencyMicros;
  int[] echoTokens = new int[0];
  int echoCount;
  final LookupResult result = new LookupResult();
  int affinityReplica = -1;
  // Load-aware AFFINITY_HINT: the ranked replicas (affinityReplica is the first of them).
  int affinityCount;
  private int[] affinityReplicas = new int[4];
  private float[] rankScratch = new float[16];
  boolean scoresFromResult;
  String modelLabel = "";
  boolean probeTenant;
  boolean internalError;
  private String[] names = NO_NAMES;
  private byte[][] namesUtf8 = NO_UTF8;

  void reset() {
    reasonCode = ReasonCodes.NO_HINT;
    echoAdapter = false;
    latencyMicros = 0;
    echoCount = 0;
    affinityReplica = -1;
    affinityCount = 0;
    scoresFromResult = false;
    modelLabel = "";
    probeTenant = false;
    internalError = false;
  }

  /**
   * Sets a bare envelope: a reason code, a latency, no scores, no echoes (for answers a transport
   * gives without the router: a malformed request, a watchdog TIMEOUT, a shed call).
   */
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

  /**
   * Scratch for {@link LoadAwareRouting}: room for {@code n} replica ids (grows, never shrinks).
   */
  int[] affinityScratch(final int n) {
    if (affinityReplicas.length < n) {
      affinityReplicas = new int[Math.max(n, affinityReplicas.length * 2)];
    }
    return affinityReplicas;
  }

  /** Scratch for {@link LoadAwareRouting}: room for {@code n} floats (grows, never shrinks). */
  float[] rankScratch(final int n) {
    if (rankScratch.length < n) {
      rankScratch = new float[Math.max(n, rankScratch.length * 2)];
    }
    return rankScratch;
  }

  /** Sets the load-aware affinity answer: the first {@code count} replicas of the scratch. */
  void affinityRanked(final int count) {
    affinityCount = count;
    affinityReplica = affinityReplicas[0];
  }

  /** Fills the names of the scores to deliver, from the same dictionary the ids came from. */
  void fillNames(final StringDictionary dict) {
    final int n = scoreCount();
    if (names.length < n) {
      final int c = Math.max(n, names.length * 2);
      names = new String[c];
      namesUtf8 = new byte[c][];
    }
    for (int i = 0; i < n; i++) {
      final int id = replicaId(i);
      names[i] = dict.string(id);
      namesUtf8[i] = dict.utf8(id);
    }
  }

  public String reasonCode() {
    return reasonCode;
  }

  /** Whether the response echoes the request's adapter_id (answers from the index path only). */
  public boolean echoAdapter() {
    return echoAdapter;
  }

  public long latencyMicros() {
    return latencyMicros;
  }

  /** Number of token ids to echo (only when the router tokenized prompt_text). */
  public int echoCount() {
    return echoCount;
  }

  public int echoToken(final int i) {
    return echoTokens[i];
  }

  /** Number of replica scores in the response. */
  public int scoreCount() {
    if (affinityReplica >= 0) {
      return affinityCount > 0 ? affinityCount : 1;
    }
    return scoresFromResult ? result.size() : 0;
  }

  /** Replica dictionary id of score {@code i}. */
  public int replicaId(final int i) {
    if (affinityReplica >= 0) {
      return affinityCount > 0 ? affinityReplicas[i] : affinityReplica;
    }
    return result.replicaId(i);
  }

  /** Replica name of score {@code i}. */
  public String replicaName(final int i) {
    return names[i];
  }

  /** Replica name of score {@code i} as UTF-8 (shared with the index: do not modify). */
  public byte[] replicaNameUtf8(final int i) {
    return namesUtf8[i];
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

  /**
   * The request's model as a metrics label: the interned name when the index knows the model (no
   * allocation), else the request's bytes as a String.
   */
  public String modelLabel() {
    return modelLabel;
  }

  /** Whether the request named the reserved probe tenant (answered NO_HINT, latency 0). */
  public boolean probeTenant() {
    return probeTenant;
  }

  /** Whether an internal fault was answered NO_HINT by the router's fail-open guard. */
  public boolean internalError() {
    return internalError;
  }
}
