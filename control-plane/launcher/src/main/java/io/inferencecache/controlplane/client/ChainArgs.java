package io.inferencecache.controlplane.client;

import com.google.protobuf.ByteString;
import io.inferencecache.engine.fingerprint.Fingerprint;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses the {@code client} commands' list flags. Every method throws {@link
 * IllegalArgumentException} with a message that names the flag, the bad item and what is expected,
 * ready to print as a usage error.
 *
 * <h2>Block hashes</h2>
 *
 * A comma-separated list. Each item is a number, decimal ({@code 16863443419780771464}) or {@code
 * 0x}-hex of at most 16 digits ({@code 0xea07...}), sent as the 8-byte big-endian unsigned 64-bit
 * value the {@code vllm} scheme puts on the wire, so {@code 16} and {@code 0x10} are the same hash;
 * or {@code 0x}-hex of more than 16 digits (an even number), sent as those raw bytes (a longer hash
 * such as a 32-byte digest). Hashes over {@value #MAX_HASH_BYTES} bytes are refused: the server
 * would drop them.
 *
 * <p>Stateless and thread-safe.
 */
public final class ChainArgs {
  /** Longest hash the server stores, in bytes. */
  public static final int MAX_HASH_BYTES = 256;

  private ChainArgs() {}

  /** The hashes of {@code list}, in order (see the class comment). */
  public static List<ByteString> blockHashes(final String flag, final String list) {
    final List<ByteString> out = new ArrayList<>();
    for (final String item : items(flag, list)) {
      out.add(hash(flag, item));
    }
    return out;
  }

  /** One hash item (see the class comment). */
  static ByteString hash(final String flag, final String item) {
    final String lower = item.toLowerCase(Locale.ROOT);
    if (lower.startsWith("0x")) {
      final String hex = lower.substring(2);
      if (hex.isEmpty() || !hex.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
        throw bad(flag, item, "is not a hash: want decimal or 0x-hex digits");
      }
      if (hex.length() <= 16) {
        return ByteString.copyFrom(Fingerprint.toWire(Long.parseUnsignedLong(hex, 16)));
      }
      if (hex.length() % 2 != 0) {
        throw bad(
            flag, item, "has an odd number of hex digits: a hash longer than 8 bytes is raw bytes");
      }
      if (hex.length() / 2 > MAX_HASH_BYTES) {
        throw bad(
            flag, item, "is longer than " + MAX_HASH_BYTES + " bytes: the server would drop it");
      }
      final byte[] raw = new byte[hex.length() / 2];
      for (int i = 0; i < raw.length; i++) {
        raw[i] = (byte) Integer.parseInt(hex, 2 * i, 2 * i + 2, 16);
      }
      return ByteString.copyFrom(raw);
    }
    if (!lower.chars().allMatch(c -> c >= '0' && c <= '9')) {
      throw bad(flag, item, "is not a hash: want decimal or 0x-hex digits");
    }
    try {
      return ByteString.copyFrom(Fingerprint.toWire(Long.parseUnsignedLong(lower)));
    } catch (NumberFormatException e) {
      throw bad(flag, item, "is out of range: a decimal hash is at most 18446744073709551615");
    }
  }

  /** Positive token counts, one per item. */
  public static List<Integer> tokenCounts(final String flag, final String list) {
    final List<Integer> out = new ArrayList<>();
    for (final String item : items(flag, list)) {
      final int n;
      try {
        n = Integer.parseInt(item);
      } catch (NumberFormatException e) {
        throw bad(flag, item, "is not a token count: want a positive whole number");
      }
      if (n <= 0) {
        throw bad(flag, item, "is not a token count: want a positive whole number");
      }
      out.add(n);
    }
    return out;
  }

  /** Token ids: unsigned 32-bit values, returned as their int bit patterns. */
  public static int[] tokenIds(final String flag, final String list) {
    final List<String> items = items(flag, list);
    final int[] out = new int[items.size()];
    for (int i = 0; i < out.length; i++) {
      try {
        out[i] = Integer.parseUnsignedInt(items.get(i));
      } catch (NumberFormatException e) {
        throw bad(flag, items.get(i), "is not a token id: want a whole number 0..4294967295");
      }
    }
    return out;
  }

  /**
   * The per-block token counts of a chain of {@code blocks} blocks: {@code explicit} when given
   * (its length must be {@code blocks}), else {@code perBlock} for each.
   */
  public static List<Integer> countsFor(
      final int blocks, final List<Integer> explicit, final int perBlock) {
    if (explicit != null) {
      if (explicit.size() != blocks) {
        throw new IllegalArgumentException(
            "--block-tokens has "
                + explicit.size()
                + " counts for "
                + blocks
                + " blocks: give one count per block, or --tokens-per-block");
      }
      return explicit;
    }
    if (perBlock <= 0) {
      throw new IllegalArgumentException(
          "--tokens-per-block " + perBlock + " must be a positive whole number");
    }
    final List<Integer> out = new ArrayList<>(blocks);
    for (int i = 0; i < blocks; i++) {
      out.add(perBlock);
    }
    return out;
  }

  /**
   * The {@code vllm}-scheme chain of {@code tokens}, the hashes the server computes for a lookup's
   * {@code token_ids} (and the sidecar for an engine's blocks) at the same block size.
   */
  public static List<ByteString> fingerprint(final int[] tokens, final int blockSize) {
    if (blockSize <= 0) {
      throw new IllegalArgumentException(
          "--tokens-per-block " + blockSize + " must be a positive whole number");
    }
    final long[] hashes = Fingerprint.prefixHashes(tokens, blockSize);
    if (hashes.length == 0) {
      throw new IllegalArgumentException(
          "--token-ids: "
              + tokens.length
              + " tokens make no full block of "
              + blockSize
              + ": give at least "
              + blockSize);
    }
    final List<ByteString> out = new ArrayList<>(hashes.length);
    for (final long h : hashes) {
      out.add(ByteString.copyFrom(Fingerprint.toWire(h)));
    }
    return out;
  }

  private static List<String> items(final String flag, final String list) {
    final List<String> out = new ArrayList<>();
    for (final String raw : list.split(",", -1)) {
      final String item = raw.trim();
      if (item.isEmpty()) {
        throw new IllegalArgumentException(
            flag + " \"" + list + "\" has an empty item: want a comma-separated list");
      }
      out.add(item);
    }
    return out;
  }

  private static IllegalArgumentException bad(
      final String flag, final String item, final String what) {
    return new IllegalArgumentException(flag + ": \"" + item + "\" " + what);
  }
}
