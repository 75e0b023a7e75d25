package io.inferencecache.engine;

/**
 * The reason codes of a LookupRouteResponse (strings, not an enum: clients treat a code they do not
 * know as no hint). {@link LookupRouter} is the only producer of the LookupRoute codes, {@link
 * PdRouter} of the LookupPDRoute ones ({@code PD_*} and NO_HINT); {@link Outcome} maps the index's
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

  /** LookupPDRoute: a prefill/decode pair chosen (docs/behaviour.md#lookup-pd-route). */
  public static final String PD_PAIR = "PD_PAIR";

  /**
   * LookupPDRoute: a decode replica's own uncached part is below the skip threshold and prefilling
   * there costs no more than the best pair; prefill on that decode replica.
   */
  public static final String PD_DECODE_LOCAL = "PD_DECODE_LOCAL";

  /** LookupPDRoute: no topology by that ref, or none in the tenant's namespace. */
  public static final String PD_TOPOLOGY_NOT_FOUND = "PD_TOPOLOGY_NOT_FOUND";

  /** LookupPDRoute: no ref and the tenant's namespace holds several topologies. */
  public static final String PD_TOPOLOGY_AMBIGUOUS = "PD_TOPOLOGY_AMBIGUOUS";

  /** LookupPDRoute: the prefill or the decode side has no live replica. */
  public static final String PD_POOL_EMPTY = "PD_POOL_EMPTY";

  private ReasonCodes() {}
}
