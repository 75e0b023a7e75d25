package io.inferencecache.controlplane.server.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Tokens that passed a review recently (docs/behaviour.md#auth): keyed by the SHA-256 hex of the
 * token (the token itself is never kept), each valid for a TTL (default 30 s), at most {@code
 * maxEntries} (default 32). When full, expired entries are pruned first, then the soonest-expiring
 * one is evicted. Only successful reviews enter, so unauthenticated junk cannot push a valid token
 * out. Thread-safe (one small lock).
 */
public final class TokenCache {
  public static final long DEFAULT_TTL_NANOS = 30_000_000_000L;
  public static final int DEFAULT_MAX_ENTRIES = 32;

  private final long ttlNanos;
  private final int maxEntries;
  private final LongSupplier nanoClock;
  private final Map<String, Long> expiries = new HashMap<>();

  public TokenCache(final long ttlNanos, final int maxEntries, final LongSupplier nanoClock) {
    if (ttlNanos <= 0 || maxEntries <= 0) {
      throw new IllegalArgumentException("token cache TTL and size must be positive");
    }
    this.ttlNanos = ttlNanos;
    this.maxEntries = maxEntries;
    this.nanoClock = nanoClock;
  }

  /** SHA-256 of {@code token}, lower-case hex. */
  public static String key(final String token) {
    try {
      final byte[] d =
          MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.UTF_8));
      final StringBuilder sb = new StringBuilder(64);
      for (final byte b : d) {
        sb.append(Character.forDigit((b >> 4) & 0xF, 16)).append(Character.forDigit(b & 0xF, 16));
      }
      return sb.toString();
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("SHA-256 is required of every JRE", e);
    }
  }

  /** Whether {@code key} is cached and unexpired. */
  public synchronized boolean contains(final String key) {
    final Long expiry = expiries.get(key);
    if (expiry == null) {
      return false;
    }
    if (nanoClock.getAsLong() - expiry >= 0) {
      expiries.remove(key);
      return false;
    }
    return true;
  }

  /** Caches {@code key} for the TTL, making room as described above. */
  public synchronized void put(final String key) {
    final long now = nanoClock.getAsLong();
    if (!expiries.containsKey(key) && expiries.size() >= maxEntries) {
      final Iterator<Map.Entry<String, Long>> it = expiries.entrySet().iterator();
      while (it.hasNext()) {
        if (now - it.next().getValue() >= 0) {
          it.remove();
        }
      }
      while (expiries.size() >= maxEntries) {
        String soonest = null;
        long soonestExpiry = Long.MAX_VALUE;
        for (final Map.Entry<String, Long> e : expiries.entrySet()) {
          if (soonest == null || e.getValue() - soonestExpiry < 0) {
            soonest = e.getKey();
            soonestExpiry = e.getValue();
          }
        }
        expiries.remove(soonest);
      }
    }
    expiries.put(key, now + ttlNanos);
  }

  /** Entries currently held (expired ones included until pruned). */
  public synchronized int size() {
    return expiries.size();
  }
}
