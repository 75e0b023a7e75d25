package io.inferencecache.engine;

import java.util.List;

/**
 * One {@code PrefixEntry} of an update: either a block-hash chain ({@code blockHashes} with
 * parallel {@code blockTokenCounts}, each block stored with the cumulative count) or a legacy
 * single hash ({@code prefixHash} with {@code tokenCount}); a chain entry with a non-empty {@code
 * prefixHash} stores both. {@code adapterId} null or empty falls back to the update's adapter.
 *
 * @param tier the wire tier (0 unspecified → T1; negative → cold sentinel; unknown kept)
 */
public record IngestPrefix(
    byte[] prefixHash,
    int tokenCount,
    List<byte[]> blockHashes,
    int[] blockTokenCounts,
    int tier,
    String adapterId) {

  /** A legacy single-hash entry. */
  public static IngestPrefix legacy(final byte[] hash, final int tokenCount, final int tier) {
    return new IngestPrefix(hash, tokenCount, List.of(), new int[0], tier, "");
  }

  /** A chain entry. */
  public static IngestPrefix chain(final List<byte[]> hashes, final int[] counts, final int tier) {
    return new IngestPrefix(new byte[0], 0, hashes, counts, tier, "");
  }

  /** This entry with another adapter. */
  public IngestPrefix withAdapter(final String adapter) {
    return new IngestPrefix(prefixHash, tokenCount, blockHashes, blockTokenCounts, tier, adapter);
  }
}
