package io.inferencecache.engine.fingerprint;

import net.openhft.hashing.LongHashFunction;

/**
 * The content fingerprint of the {@code vllm} hash scheme: parent-chained XXH3-64 (seed {@value
 * #SEED}) over little-endian u32 token ids, one hash per full block of tokens.
 *
 * <pre>
 * content[i] = XXH3_64(seed)(le32(tokens of block i))
 * prefix[0]  = parent absent ? content[0] : XXH3_64(seed)(le64(parent) ‖ le64(content[0]))
 * prefix[i]  = XXH3_64(seed)(le64(prefix[i-1]) ‖ le64(content[i]))
 * </pre>
 *
 * Trailing tokens short of a full block are dropped. On the wire a hash is the 8-byte big-endian
 * form of the unsigned 64-bit value ({@link #toWire(long)}).
 *
 * <p>Thread-safe and allocation-free apart from the result arrays of the convenience methods.
 */
public final class Fingerprint {
  /** The XXH3 seed every producer and consumer of the {@code vllm} scheme uses. */
  public static final long SEED = 1337L;

  /** Size of a hash on the wire, in bytes. */
  public static final int WIRE_BYTES = 8;

  private static final LongHashFunction XXH3 = LongHashFunction.xx3(SEED);

  private Fingerprint() {}

  /**
   * Hash of one block's tokens: XXH3-64 over the little-endian u32 encoding of {@code
   * tokens[offset..offset+length)}.
   */
  public static long contentHash(final int[] tokens, final int offset, final int length) {
    // LongHashFunction.hashInts reads ints in little-endian order: exactly le32 concatenation.
    return XXH3.hashInts(tokens, offset, length);
  }

  /** {@code XXH3_64(seed)(le64(parent) ‖ le64(content))}. Allocates a 2-element array. */
  public static long chain(final long parent, final long content) {
    return chain(parent, content, new long[2]);
  }

  /** {@code XXH3_64(seed)(le64(parent) ‖ le64(content))}, using the caller's 2-long scratch. */
  public static long chain(final long parent, final long content, final long[] scratch) {
    scratch[0] = parent;
    scratch[1] = content;
    return XXH3.hashLongs(scratch, 0, 2);
  }

  /**
   * Prefix hashes of every full block of {@code tokens}, without a parent.
   *
   * @return one hash per full block; empty when there is no full block or {@code blockSize <= 0}.
   */
  public static long[] prefixHashes(final int[] tokens, final int blockSize) {
    return prefixHashes(tokens, 0, tokens.length, blockSize, false, 0L);
  }

  /**
   * Prefix hashes of every full block of {@code tokens[offset..offset+length)}, chained from {@code
   * parent} when {@code hasParent}.
   */
  public static long[] prefixHashes(
      final int[] tokens,
      final int offset,
      final int length,
      final int blockSize,
      final boolean hasParent,
      final long parent) {
    if (blockSize <= 0 || length < blockSize) {
      return new long[0];
    }
    final int blocks = length / blockSize;
    final long[] out = new long[blocks];
    final long[] pair = new long[2];
    boolean chained = hasParent;
    long previous = parent;
    for (int i = 0; i < blocks; i++) {
      final long content = contentHash(tokens, offset + i * blockSize, blockSize);
      final long prefix;
      if (chained) {
        pair[0] = previous;
        pair[1] = content;
        prefix = XXH3.hashLongs(pair);
      } else {
        prefix = content;
      }
      out[i] = prefix;
      previous = prefix;
      chained = true;
    }
    return out;
  }

  /** The 8-byte big-endian wire form of a hash. */
  public static byte[] toWire(final long hash) {
    final byte[] out = new byte[WIRE_BYTES];
    toWire(hash, out, 0);
    return out;
  }

  /** Writes the 8-byte big-endian wire form of {@code hash} into {@code dst} at {@code offset}. */
  public static void toWire(final long hash, final byte[] dst, final int offset) {
    for (int i = 0; i < WIRE_BYTES; i++) {
      dst[offset + i] = (byte) (hash >>> (56 - 8 * i));
    }
  }

  /** Reads an 8-byte big-endian wire hash. */
  public static long fromWire(final byte[] src, final int offset) {
    long v = 0;
    for (int i = 0; i < WIRE_BYTES; i++) {
      v = (v << 8) | (src[offset + i] & 0xFFL);
    }
    return v;
  }
}
