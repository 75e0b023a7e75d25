package io.inferencecache.subscriber.sink;

/**
 * The reconnection backoff: starts at {@code initial}, doubles after every wait up to {@code max},
 * and goes back to {@code initial} after a successful delivery. Not thread-safe (the sender
 * thread's).
 */
final class Backoff {
  private final long initialNanos;
  private final long maxNanos;
  private long currentNanos;

  Backoff(final long initialNanos, final long maxNanos) {
    if (initialNanos <= 0 || maxNanos < initialNanos) {
      throw new IllegalArgumentException(
          "backoff: want 0 < initial <= max, got " + initialNanos + " / " + maxNanos);
    }
    this.initialNanos = initialNanos;
    this.maxNanos = maxNanos;
    this.currentNanos = initialNanos;
  }

  /** The wait before the next connection check. */
  long currentNanos() {
    return currentNanos;
  }

  /** After a wait: the next one is twice as long, capped at the maximum. */
  void grow() {
    currentNanos = currentNanos > maxNanos / 2 ? maxNanos : Math.min(maxNanos, currentNanos * 2);
  }

  /** After a success: back to the first wait. */
  void reset() {
    currentNanos = initialNanos;
  }
}
