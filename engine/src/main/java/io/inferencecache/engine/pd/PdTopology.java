package io.inferencecache.engine.pd;

import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * One prefill/decode topology (a PDTopology resource as the server holds it). Defaults are applied
 * here, so the record always holds the values the router uses.
 *
 * @param namespace the namespace; equals the LookupPDRoute {@code tenant_id} it serves without a
 *     {@code pd_topology_ref}; non-empty, no {@code /}
 * @param name non-empty, no {@code /}
 * @param transport {@code Mooncake}, {@code NIXL}, {@code Direct} or empty (unknown); answered as
 *     {@code transport_hint}; {@code null} → empty
 * @param decodeLocalPrefillTokens the skip rule: a decode replica whose own uncached part is below
 *     this may prefill the prompt itself ({@code PD_DECODE_LOCAL}) when that costs no more than the
 *     best pair; 0 (the default) never skips; ≥ 0
 * @param links the link classes' bandwidths; {@code null} → {@link PdLinks#DEFAULTS}
 * @param kvBytesPerToken KV bytes moved per prompt token; ≤ 0 → {@link #KV_BYTES_PER_TOKEN_DEFAULT}
 * @param prefillPools at least one
 * @param decodePools at least one
 * @param acceleratorTypes the types the pools name; {@code null} → empty
 */
public record PdTopology(
    String namespace,
    String name,
    String transport,
    int decodeLocalPrefillTokens,
    PdLinks links,
    long kvBytesPerToken,
    List<PdPool> prefillPools,
    List<PdPool> decodePools,
    List<AcceleratorType> acceleratorTypes) {

  /**
   * KV bytes per token when none is given: 131,072 (a Llama-3-8B class model in 16-bit: 32 layers ×
   * 8 KV heads × 128 dims × 2 (K and V) × 2 bytes).
   */
  public static final long KV_BYTES_PER_TOKEN_DEFAULT = 131_072L;

  /** The transports a topology may name (besides empty). */
  public static final Set<String> TRANSPORTS = Set.of("Mooncake", "NIXL", "Direct");

  public PdTopology {
    namespace = segment("namespace", namespace);
    name = segment("name", name);
    transport = transport == null ? "" : transport;
    if (!transport.isEmpty() && !TRANSPORTS.contains(transport)) {
      throw new IllegalArgumentException(
          "transport must be one of Mooncake, NIXL, Direct or empty, got " + transport);
    }
    if (decodeLocalPrefillTokens < 0) {
      throw new IllegalArgumentException(
          "decodeLocalPrefillTokens must be >= 0, got " + decodeLocalPrefillTokens);
    }
    links = links == null ? PdLinks.DEFAULTS : links;
    kvBytesPerToken = kvBytesPerToken > 0 ? kvBytesPerToken : KV_BYTES_PER_TOKEN_DEFAULT;
    prefillPools = prefillPools == null ? List.of() : List.copyOf(prefillPools);
    decodePools = decodePools == null ? List.of() : List.copyOf(decodePools);
    if (prefillPools.isEmpty()) {
      throw new IllegalArgumentException("prefillPools must hold at least one pool");
    }
    if (decodePools.isEmpty()) {
      throw new IllegalArgumentException("decodePools must hold at least one pool");
    }
    acceleratorTypes = acceleratorTypes == null ? List.of() : List.copyOf(acceleratorTypes);
  }

  /** {@code namespace/name}, the form {@code pd_topology_ref} names it by. */
  public String ref() {
    return namespace + "/" + name;
  }

  private static String segment(final String field, final String v) {
    Objects.requireNonNull(v, field);
    if (v.isEmpty() || v.indexOf('/') >= 0) {
      throw new IllegalArgumentException(field + " must be non-empty without '/', got '" + v + "'");
    }
    return v;
  }
}
