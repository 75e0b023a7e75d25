package io.inferencecache.engine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.agrona.DirectBuffer;

/**
 * The index's view of a lookup, reusable across calls (call {@link #reset()}). Filling it copies
 * hash bytes into its own storage (from arrays or buffer views) without allocating once warmed up.
 * Not thread-safe: one per calling thread.
 *
 * <p>The chain is present when either {@link #blockHashCount()} or {@link #blockTokenCountCount()}
 * is non-zero; it is malformed when they differ. Otherwise the exact key ({@link #exactHash}, which
 * may be empty) is used.
 */
public final class LookupRequest {
  /** 8-byte views of byte arrays, in native order (a copy's order does not matter). */
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());

  final StringView tenant = new StringView();
  final StringView model = new StringView();
  final StringView scheme = new StringView();
  final StringView adapter = new StringView();

  byte[] chainBytes = new byte[64 * 8];
  int chainBytesUsed;
  int[] hashOffset = new int[64];
  int[] hashLength = new int[64];
  int hashCount;
  int[] counts = new int[64];
  int countCount;

  byte[] exact = new byte[32];
  int exactLength;
  int exactTokenCount;

  int ttftMs;
  int maxReplicas;
  final byte[] lenScratch = new byte[4];

  /** Clears everything. */
  public LookupRequest reset() {
    tenant.set("");
    model.set("");
    scheme.set("");
    adapter.set("");
    chainBytesUsed = 0;
    hashCount = 0;
    countCount = 0;
    exactLength = 0;
    exactTokenCount = 0;
    ttftMs = 0;
    maxReplicas = 0;
    return this;
  }

  public StringView tenant() {
    return tenant;
  }

  public StringView model() {
    return model;
  }

  public StringView hashScheme() {
    return scheme;
  }

  public StringView adapter() {
    return adapter;
  }

  /** Convenience for callers holding Strings. */
  public LookupRequest keys(
      final String tenantId,
      final String modelId,
      final String hashScheme,
      final String adapterId) {
    tenant.set(tenantId);
    model.set(modelId);
    scheme.set(hashScheme);
    adapter.set(adapterId);
    return this;
  }

  /** SLO time-to-first-token in ms (0 = none). */
  public LookupRequest ttftMs(final int ttft) {
    this.ttftMs = ttft;
    return this;
  }

  /**
   * The most replicas the caller wants in the answer, the best by score (0 = all of them, the
   * default). Negative values count as 0.
   */
  public LookupRequest maxReplicas(final int max) {
    this.maxReplicas = Math.max(0, max);
    return this;
  }

  public int maxReplicas() {
    return maxReplicas;
  }

  private int reserveHash(final int len) {
    if (hashCount == hashOffset.length) {
      hashOffset = Arrays.copyOf(hashOffset, hashCount * 2);
      hashLength = Arrays.copyOf(hashLength, hashCount * 2);
    }
    if (chainBytesUsed + len > chainBytes.length) {
      chainBytes = Arrays.copyOf(chainBytes, Math.max(chainBytes.length * 2, chainBytesUsed + len));
    }
    final int at = chainBytesUsed;
    hashOffset[hashCount] = at;
    hashLength[hashCount] = len;
    hashCount++;
    chainBytesUsed += len;
    return at;
  }

  /** Appends a block hash (copied). */
  public LookupRequest addBlockHash(final byte[] src, final int offset, final int len) {
    final int at = reserveHash(len);
    if (len == Long.BYTES) {
      LONGS.set(chainBytes, at, (long) LONGS.get(src, offset)); // the common 8-byte hash
    } else {
      System.arraycopy(src, offset, chainBytes, at, len);
    }
    return this;
  }

  /** Appends a block hash (copied). */
  public LookupRequest addBlockHash(final byte[] hash) {
    return addBlockHash(hash, 0, hash.length);
  }

  /** Appends a block hash from a buffer view (copied). */
  public LookupRequest addBlockHash(final DirectBuffer src, final int offset, final int len) {
    final int at = reserveHash(len);
    if (len == Long.BYTES) {
      LONGS.set(chainBytes, at, src.getLong(offset)); // native order both sides: bytes as sent
    } else {
      src.getBytes(offset, chainBytes, at, len);
    }
    return this;
  }

  /** Appends a block's token count. */
  public LookupRequest addBlockTokenCount(final int count) {
    if (countCount == counts.length) {
      counts = Arrays.copyOf(counts, countCount * 2);
    }
    counts[countCount++] = count;
    return this;
  }

  /** Drops the chain (both arrays). */
  public LookupRequest clearChain() {
    hashCount = 0;
    countCount = 0;
    chainBytesUsed = 0;
    return this;
  }

  /** Sets the exact (legacy) key and its token count. */
  public LookupRequest exact(final byte[] hash, final int offset, final int len, final int tokens) {
    if (exact.length < len) {
      exact = new byte[Math.max(len, exact.length * 2)];
    }
    System.arraycopy(hash, offset, exact, 0, len);
    exactLength = len;
    exactTokenCount = tokens;
    return this;
  }

  /** Sets the exact (legacy) key from a buffer view. */
  public LookupRequest exact(
      final DirectBuffer hash, final int offset, final int len, final int tokens) {
    if (exact.length < len) {
      exact = new byte[Math.max(len, exact.length * 2)];
    }
    hash.getBytes(offset, exact, 0, len);
    exactLength = len;
    exactTokenCount = tokens;
    return this;
  }

  /** Sets the exact (legacy) key. */
  public LookupRequest exact(final byte[] hash, final int tokens) {
    return exact(hash, 0, hash.length, tokens);
  }

  public int blockHashCount() {
    return hashCount;
  }

  public int blockTokenCountCount() {
    return countCount;
  }

  /** Whether either chain array is non-empty. */
  public boolean hasChain() {
    return hashCount > 0 || countCount > 0;
  }

  /** Whether the chain arrays differ in length. */
  public boolean chainMalformed() {
    return hashCount != countCount;
  }

  public int blockTokenCount(final int i) {
    return counts[i];
  }

  /** Length of block hash {@code i}. */
  public int blockHashLength(final int i) {
    return hashLength[i];
  }

  /** Copies block hash {@code i} into {@code dst} at {@code offset}. */
  public void copyBlockHash(final int i, final byte[] dst, final int offset) {
    System.arraycopy(chainBytes, hashOffset[i], dst, offset, hashLength[i]);
  }

  /** Backing array of block hash {@code i}; see {@link #blockHashOffset}. */
  public byte[] blockHashArray() {
    return chainBytes;
  }

  public int blockHashOffset(final int i) {
    return hashOffset[i];
  }

  public int exactLength() {
    return exactLength;
  }

  public byte[] exactArray() {
    return exact;
  }

  public int exactTokenCount() {
    return exactTokenCount;
  }

  public int ttftMs() {
    return ttftMs;
  }

  /**
   * Tokens the request claims: the sum of the block token counts when a chain is present (int32,
   * wrapping), otherwise the exact key's count.
   */
  public int effectiveTokens() {
    if (hashCount > 0) {
      int sum = 0;
      for (int i = 0; i < countCount; i++) {
        sum += counts[i];
      }
      return sum;
    }
    return exactTokenCount;
  }
}
