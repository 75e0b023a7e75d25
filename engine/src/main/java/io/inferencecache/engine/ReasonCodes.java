package io.inferencecache.engine;

/**
 * The reason codes of a LookupRouteResponse (strings, not an enum: clients treat a code they do not
 * know as no hint). {@link LookupRouter} is the only producer; {@link Outcome} maps the index's
 * conclusions onto the same strings.
 */
public final class ReasonCodes {
  public static final String PREFIX_MATCH = "PREFIX_MATCH";
  public static final String TENANT_HOT = "TENANT_HOT";
  public static final String AFFINITY_HINT = "AFFINITY_HINT";
  public static final String NO_HINT = "NO_HINT";
  public static final String POLICY_REQUIRES_CHAIN = "POLICY_REQUIRES_CHAIN";
  public static final String TIMEOUT = "TIMEOUT";
  public static final String UNKNOWN_TENANT = "UNKNOWN_TENANT";
  public static final String UNKNOWN_MODEL = "UNKNOWN_MODEL";
  public static final String UNKNOWN_HASH_SCHEME = "UNKNOWN_HASH_SCHEME";
  public static final String OK = "OK";

  private ReasonCodes() {}
}
