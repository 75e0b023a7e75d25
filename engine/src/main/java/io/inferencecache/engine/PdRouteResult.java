package io.inferencecache.engine;

/**
 * The answer of {@link PdRouter} for one LookupPDRoute, read into the caller's reusable object: the
 * reason code, both replicas (both set or neither), their pools, the transport hint, the matched
 * prefix of the prefill replica, a message on a miss, and the estimates behind the choice. Holds
 * the router's per-call scratch, so a warm call allocates nothing. Not thread-safe: one per call in
 * flight.
 */
public final class PdRouteResult {
  String reasonCode = ReasonCodes.NO_HINT;
  String prefillReplica = "";
  String decodeReplica = "";
  String prefillPool = "";
  String decodePool = "";
  String transportHint = "";
  String topologyRef = "";
  String message = "";
  int prefillMatchedTokens;
  int promptTokens;
  float estimatedTtftMs;
  float transferMs;
  long latencyMicros;
  boolean internalError;

  // Scratch: the index walk and the best PdRouter.CANDIDATES of each role.
  final LookupResult lookup = new LookupResult();
  final int[] prefill = new int[PdRouter.CANDIDATES];
  final float[] prefillCost = new float[PdRouter.CANDIDATES];
  final float[] prefillLoad = new float[PdRouter.CANDIDATES];
  final int[] prefillMatched = new int[PdRouter.CANDIDATES];
  int prefillCount;
  final int[] decode = new int[PdRouter.CANDIDATES];
  final float[] decodeWait = new float[PdRouter.CANDIDATES];
  final float[] decodeLoad = new float[PdRouter.CANDIDATES];
  final int[] decodeMatched = new int[PdRouter.CANDIDATES];
  int decodeCount;

  void reset() {
    reasonCode = ReasonCodes.NO_HINT;
    prefillReplica = "";
    decodeReplica = "";
    prefillPool = "";
    decodePool = "";
    transportHint = "";
    topologyRef = "";
    message = "";
    prefillMatchedTokens = 0;
    promptTokens = 0;
    estimatedTtftMs = 0f;
    transferMs = 0f;
    latencyMicros = 0;
    internalError = false;
    prefillCount = 0;
    decodeCount = 0;
  }

  /**
   * Sets a bare answer without the router (a shed call, a watchdog): a reason code, a message, a
   * latency, no pair.
   */
  public void answer(final String reason, final String why, final long micros) {
    reset();
    reasonCode = reason;
    message = why == null ? "" : why;
    latencyMicros = Math.max(0, micros);
  }

  /** {@code PD_PAIR}, {@code PD_DECODE_LOCAL}, {@code PD_TOPOLOGY_NOT_FOUND}, ... */
  public String reasonCode() {
    return reasonCode;
  }

  /** The replica to prefill on, or empty (then {@link #decodeReplica()} is empty too). */
  public String prefillReplica() {
    return prefillReplica;
  }

  /** The replica to decode on, or empty (then {@link #prefillReplica()} is empty too). */
  public String decodeReplica() {
    return decodeReplica;
  }

  public String prefillPool() {
    return prefillPool;
  }

  public String decodePool() {
    return decodePool;
  }

  /** The topology's transport, empty when unknown (or no topology resolved). */
  public String transportHint() {
    return transportHint;
  }

  /** {@code namespace/name} of the topology used, empty when none resolved. */
  public String topologyRef() {
    return topologyRef;
  }

  /** Why there is no pair (names the input or the pool), empty on a pair. */
  public String message() {
    return message;
  }

  /** Tokens of the prompt the prefill replica already holds (0: none cached). */
  public int prefillMatchedTokens() {
    return prefillMatchedTokens;
  }

  /** The prompt's length in tokens the decision used. */
  public int promptTokens() {
    return promptTokens;
  }

  /** The expected time to first token of the answer (ms): prefill + transfer + decode wait. */
  public float estimatedTtftMs() {
    return estimatedTtftMs;
  }

  /** The KV transfer part of {@link #estimatedTtftMs()} (ms); 0 when decode-local. */
  public float transferMs() {
    return transferMs;
  }

  public long latencyMicros() {
    return latencyMicros;
  }

  /** Whether the answer is a NO_HINT for an internal fault (logged). */
  public boolean internalError() {
    return internalError;
  }

  /** Whether a pair was answered (both replicas set). */
  public boolean hasPair() {
    return !prefillReplica.isEmpty();
  }
}
