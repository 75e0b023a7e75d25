package io.inferencecache.service.log;

import java.util.function.LongSupplier;

/**
 * Bounds how many lines of one kind are logged: at most {@code maxLines} in each window of {@code
 * intervalNanos}. A window starts at the first line asked for after the previous window ended
 * (fixed windows, no background thread). A line over the budget is suppressed and counted; the next
 * line that is allowed is told how many were suppressed since the previous allowed one, so the log
 * says what it left out. Thread-safe (one small lock, no allocation per call).
 */
public final class LogRateLimiter {
  /** What {@link #acquire()} returns for a line that must not be logged. */
  public static final long SUPPRESS = -1;

  private final int maxLines;
  private final long intervalNanos;
  private final LongSupplier nanoClock;
  private boolean started;
  private long windowStart;
  private int linesInWindow;
  private long suppressed;

  /**
   * @param maxLines lines allowed per window (at least 1)
   * @param intervalNanos the window's length (positive)
   * @param nanoClock a monotonic clock ({@code System::nanoTime})
   */
  public LogRateLimiter(
      final int maxLines, final long intervalNanos, final LongSupplier nanoClock) {
    if (maxLines < 1 || intervalNanos <= 0) {
      throw new IllegalArgumentException("log rate limit and interval must be positive");
    }
    this.maxLines = maxLines;
    this.intervalNanos = intervalNanos;
    this.nanoClock = nanoClock;
  }

  /**
   * Asks to log one line.
   *
   * @return {@link #SUPPRESS} if the line must not be logged; otherwise how many lines were
   *     suppressed since the previous line that was allowed (0 if none), which the caller reports
   */
  public synchronized long acquire() {
    final long now = nanoClock.getAsLong();
    if (!started || now - windowStart >= intervalNanos) {
      started = true;
      windowStart = now;
      linesInWindow = 0;
    }
    if (linesInWindow >= maxLines) {
      suppressed++;
      return SUPPRESS;
    }
    linesInWindow++;
    final long s = suppressed;
    suppressed = 0;
    return s;
  }

  /** Lines suppressed since the last allowed one (not yet reported). */
  public synchronized long pendingSuppressed() {
    return suppressed;
  }
}
