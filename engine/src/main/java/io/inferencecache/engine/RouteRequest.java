package io.inferencecache.engine;

import io.inferencecache.engine.fingerprint.Fingerprint;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import org.agrona.DirectBuffer;

/**
 * A LookupRouteRequest as {@link LookupRouter} reads it, owned by the caller and reused across
 * calls ({@link #reset()}): the index keys, chain, exact key and SLO go straight into the engine's
 * {@link LookupRequest}; token ids and the prompt text wait here until the router resolves them. It
 * also carries the router's per-call scratch (SHA-256 for the affinity seed, fingerprint buffers),
 * so a warm call allocates nothing on the chain and exact paths. Parsers (the service's zero-copy
 * one and its protobuf one) fill it. Not thread-safe: one per call in flight.
 */
public final class RouteRequest {
  final LookupRequest request = new LookupRequest();
  int[] tokenIds = new int[64];
  int tokenIdCount;
  byte[] prompt = new byte[256];
  int promptLength;
  boolean promptTooLong;

  // Router scratch.
  final MessageDigest sha256;
  final byte[] digest = new byte[32];
  final byte[] wire = new byte[Fingerprint.WIRE_BYTES];
  final long[] pair = new long[2];

  public RouteRequest() {
    try {
      sha256 = MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required by the JDK", e);
    }
  }

  /** Clears every field. */
  public RouteRequest reset() {
    request.reset();
    tokenIdCount = 0;
    promptLength = 0;
    promptTooLong = false;
    return this;
  }

  /** The engine request (keys, chain, exact key, SLO) to fill. */
  public LookupRequest request() {
    return request;
  }

  /** Appends one token id (uint32 on the wire, kept as its bit pattern). */
  public RouteRequest addTokenId(final int tokenId) {
    if (tokenIdCount == tokenIds.length) {
      tokenIds = Arrays.copyOf(tokenIds, tokenIdCount * 2);
    }
    tokenIds[tokenIdCount++] = tokenId;
    return this;
  }

  public int tokenIdCount() {
    return tokenIdCount;
  }

  /** Token id {@code i} as set by {@link #addTokenId}. */
  public int tokenId(final int i) {
    return tokenIds[i];
  }

  /**
   * Sets the prompt text from UTF-8 bytes. A prompt over {@code maxBytes} is not copied, only
   * flagged (the router fails open without tokenizing).
   */
  public RouteRequest prompt(
      final DirectBuffer src, final int offset, final int length, final int maxBytes) {
    if (length > maxBytes) {
      promptTooLong = true;
      promptLength = length;
      return this;
    }
    ensurePrompt(length);
    src.getBytes(offset, prompt, 0, length);
    promptLength = length;
    return this;
  }

  /**
   * Sets the prompt text (allocates its UTF-8 bytes); see {@link #prompt(DirectBuffer, int, int,
   * int)}.
   */
  public RouteRequest prompt(final String text, final int maxBytes) {
    final byte[] b = text.getBytes(StandardCharsets.UTF_8);
    if (b.length > maxBytes) {
      promptTooLong = true;
      promptLength = b.length;
      return this;
    }
    ensurePrompt(b.length);
    System.arraycopy(b, 0, prompt, 0, b.length);
    promptLength = b.length;
    return this;
  }

  private void ensurePrompt(final int n) {
    if (prompt.length < n) {
      prompt = new byte[Math.max(n, prompt.length * 2)];
    }
  }

  public boolean hasPrompt() {
    return promptLength > 0;
  }

  /** The prompt's length in UTF-8 bytes (also when it was flagged too long). */
  public int promptLength() {
    return promptLength;
  }

  /** Whether the prompt was over the parser's limit (not copied). */
  public boolean promptTooLong() {
    return promptTooLong;
  }

  /** The prompt text (allocates), or null when it was flagged too long. */
  public String promptText() {
    return promptTooLong ? null : new String(prompt, 0, promptLength, StandardCharsets.UTF_8);
  }
}
