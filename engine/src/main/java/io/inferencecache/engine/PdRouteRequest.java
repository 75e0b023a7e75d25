package io.inferencecache.engine;

/**
 * One LookupPDRoute as {@link PdRouter} reads it, reusable across calls ({@link #reset()}): the
 * tenant, model, hash scheme, adapter and the chain (or the legacy exact key) in a {@link
 * LookupRequest}, the topology reference and the prompt's length. Not thread-safe: one per call in
 * flight.
 */
public final class PdRouteRequest {
  final LookupRequest request = new LookupRequest();
  String topologyRef = "";
  int promptTokens;

  /** Clears everything. */
  public PdRouteRequest reset() {
    request.reset();
    topologyRef = "";
    promptTokens = 0;
    return this;
  }

  /** The tenant, model, scheme, adapter and chain (or exact key) of the call. */
  public LookupRequest request() {
    return request;
  }

  /** {@code namespace/name} of the topology, or empty (the tenant's only one). */
  public PdRouteRequest topologyRef(final String ref) {
    this.topologyRef = ref == null ? "" : ref;
    return this;
  }

  public String topologyRef() {
    return topologyRef;
  }

  /**
   * The prompt's length in tokens (0: the chain's or the exact key's token count). A count below
   * the chain's is raised to it.
   */
  public PdRouteRequest promptTokens(final int tokens) {
    this.promptTokens = tokens;
    return this;
  }

  public int promptTokens() {
    return promptTokens;
  }
}
