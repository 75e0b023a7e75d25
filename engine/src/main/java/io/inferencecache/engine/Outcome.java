package io.inferencecache.engine;

/**
 * What the index concluded for a lookup (its reason code is the one {@link LookupRouter} answers).
 */
public enum Outcome {
  /** No hint (fail-open default, cold start, genuine miss, empty key, malformed chain). */
  NONE(ReasonCodes.NO_HINT),
  PREFIX_MATCH(ReasonCodes.PREFIX_MATCH),
  TENANT_HOT(ReasonCodes.TENANT_HOT),
  UNKNOWN_TENANT(ReasonCodes.UNKNOWN_TENANT),
  UNKNOWN_MODEL(ReasonCodes.UNKNOWN_MODEL),
  UNKNOWN_HASH_SCHEME(ReasonCodes.UNKNOWN_HASH_SCHEME);

  private final String reasonCode;

  Outcome(final String reasonCode) {
    this.reasonCode = reasonCode;
  }

  /** The wire reason code. */
  public String reasonCode() {
    return reasonCode;
  }
}
