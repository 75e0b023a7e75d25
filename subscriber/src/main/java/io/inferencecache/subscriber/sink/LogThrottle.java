package io.inferencecache.subscriber.sink;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** Lets one warning through per period, whichever thread asks first. Thread-safe. */
final class LogThrottle {
  private final long periodNanos;
  private final LongSupplier nanoTime;
  private final AtomicLong last;

  LogThrottle(final long periodSeconds, final LongSupplier nanoTime) {
    this.periodNanos = TimeUnit.SECONDS.toNanos(periodSeconds);
    this.nanoTime = nanoTime;
    this.last = new AtomicLong(nanoTime.getAsLong() - Long.MAX_VALUE / 2);
  }

  /** True for the first call of each period (the caller logs), false otherwise. */
  boolean allow() {
    final long now = nanoTime.getAsLong();
    final long prev = last.get();
    return now - prev >= periodNanos && last.compareAndSet(prev, now);
  }
}
