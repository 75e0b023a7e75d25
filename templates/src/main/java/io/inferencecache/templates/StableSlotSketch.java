package io.inferencecache.templates;

import com.dynatrace.hash4j.distinctcount.UltraLogLog;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;

/**
 * How many distinct values one Stable slot has been rendered with: an UltraLogLog sketch (hash4j)
 * of precision {@value #PRECISION} — {@code 2^P} one-byte registers, 1 KiB, about 2.4 % relative
 * standard error at any count — over the 64-bit Komihash of each value. A Stable slot whose count
 * keeps climbing (a timestamp or a request id in a "stable" system prompt) is busting the prefix
 * cache.
 *
 * <p>Thread-safe. {@link #add} hashes the value without allocating and skips the sketch when the
 * value is the one it saw last (the common case of a really stable slot); otherwise it updates the
 * registers under this object's monitor, a few nanoseconds.
 */
public final class StableSlotSketch {
  /** log2 of the register count. */
  public static final int PRECISION = 10;

  private static final Hasher64 HASH = Hashing.komihash5_0();

  private final UltraLogLog sketch = UltraLogLog.create(PRECISION);
  private volatile long lastHash;
  private volatile boolean seen;

  /** Counts {@code value}. */
  public void add(final CharSequence value) {
    final long h = HASH.hashCharsToLong(value);
    if (seen && h == lastHash) {
      return;
    }
    synchronized (this) {
      sketch.add(h);
    }
    lastHash = h;
    seen = true;
  }

  /** The estimated number of distinct values counted so far (0 before the first). */
  public synchronized double estimate() {
    return sketch.getDistinctCountEstimate();
  }
}
