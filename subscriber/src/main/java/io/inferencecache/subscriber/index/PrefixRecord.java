package io.inferencecache.subscriber.index;

import java.util.Arrays;
import java.util.HexFormat;
import java.util.Objects;

/**
 * One prefix the engine holds: maps 1:1 to a legacy {@code PrefixEntry} (prefix_hash, token_count,
 * adapter_id, tier) of a {@code CacheStateUpdate}.
 *
 * <p>Immutable and thread-safe: the hash is copied in and out.
 */
public final class PrefixRecord {
  /** {@code CACHE_TIER_T1}: resident in the engine's KV cache (HBM). */
  public static final int TIER_T1 = 1;

  /** {@code CACHE_TIER_T2}: evicted from HBM but held by an external offload tier (L2). */
  public static final int TIER_T2 = 2;

  private final byte[] prefixHash;
  private final int tokenCount;
  private final String adapterId;
  private final int tier;

  /**
   * @param prefixHash the 8-byte big-endian content fingerprint of the prefix (copied)
   * @param tokenCount cumulative tokens of the prefix (int32, wraps like the upstream running sum)
   * @param adapterId the adapter partition; {@code ""} is the base model
   * @param tier {@link #TIER_T1} or {@link #TIER_T2}
   */
  public PrefixRecord(
      final byte[] prefixHash, final int tokenCount, final String adapterId, final int tier) {
    this.prefixHash = prefixHash.clone();
    this.tokenCount = tokenCount;
    this.adapterId = Objects.requireNonNull(adapterId, "adapterId");
    this.tier = tier;
  }

  /** The prefix hash (a copy). */
  public byte[] prefixHash() {
    return prefixHash.clone();
  }

  /**
   * The prefix hash itself, not a copy, for the sink's zero-copy mapping: callers must not modify
   * it.
   */
  public byte[] prefixHashUnsafe() {
    return prefixHash;
  }

  /** Cumulative token count of the prefix. */
  public int tokenCount() {
    return tokenCount;
  }

  /** Adapter partition; {@code ""} for the base model. */
  public String adapterId() {
    return adapterId;
  }

  /** {@link #TIER_T1} or {@link #TIER_T2}. */
  public int tier() {
    return tier;
  }

  @Override
  public boolean equals(final Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof PrefixRecord)) {
      return false;
    }
    final PrefixRecord that = (PrefixRecord) o;
    return tokenCount == that.tokenCount
        && tier == that.tier
        && Arrays.equals(prefixHash, that.prefixHash)
        && adapterId.equals(that.adapterId);
  }

  @Override
  public int hashCode() {
    return 31 * (31 * (31 * Arrays.hashCode(prefixHash) + tokenCount) + adapterId.hashCode())
        + tier;
  }

  @Override
  public String toString() {
    return "PrefixRecord{hash="
        + HexFormat.of().formatHex(prefixHash)
        + ", tokens="
        + tokenCount
        + ", adapter='"
        + adapterId
        + "', tier="
        + tier
        + '}';
  }
}
