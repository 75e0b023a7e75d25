package io.inferencecache.engine;

/** What the index concluded for a lookup (the handler maps it to a reason code). */
public enum Outcome {
  /** No hint (fail-open default, cold start, genuine miss, empty key, malformed chain). */
  NONE("NO_HINT"),
  PREFIX_MATCH("PREFIX_MATCH"),
  TENANT_HOT("TENANT_HOT"),
  UNKNOWN_TENANT("UNKNOWN_TENANT"),
  UNKNOWN_MODEL("UNKNOWN_MODEL"),
  UNKNOWN_HASH_SCHEME("UNKNOWN_HASH_SCHEME");

  private final String reasonCode;

  Outcome(final String reasonCode) {
    this.reasonCode = reasonCode;
  }

  /** The wire reason code. */
  public String reasonCode() {
    return reasonCode;
  }
}
