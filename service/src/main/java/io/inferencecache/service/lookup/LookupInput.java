package io.inferencecache.service.lookup;

import io.inferencecache.engine.LookupRequest;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.agrona.DirectBuffer;

/**
 * A LookupRouteRequest as the handler sees it, reusable across calls ({@link #reset()}): the index
 * keys, chain, exact key and SLO go straight into the engine's {@link LookupRequest}; token ids and
 * the prompt text are kept here until the handler resolves them. Parsers (the zero-copy one and the
 * protobuf one) fill it. Not thread-safe.
 */
public final class LookupInput {
  final LookupRequest request = new LookupRequest();
  int[] tokenIds = new int[64];
  int tokenIdCount;
  byte[] prompt = new byte[256];
  int promptLength;
  boolean promptTooLong;

  /** Clears every field. */
  public LookupInput reset() {
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
  public LookupInput addTokenId(final int tokenId) {
    if (tokenIdCount == tokenIds.length) {
      tokenIds = Arrays.copyOf(tokenIds, tokenIdCount * 2);
    }
    tokenIds[tokenIdCount++] = tokenId;
    return this;
  }

  public int tokenIdCount() {
    return tokenIdCount;
  }

  /**
   * Sets the prompt text from UTF-8 bytes. Prompts over {@code maxBytes} are not copied, only
   * flagged (the handler fails open without tokenizing).
   */
  public LookupInput prompt(
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

  /** Sets the prompt text. */
  public LookupInput prompt(final String text, final int maxBytes) {
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

  String promptString() {
    return new String(prompt, 0, promptLength, StandardCharsets.UTF_8);
  }
}
