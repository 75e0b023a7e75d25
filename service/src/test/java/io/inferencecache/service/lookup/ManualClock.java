package io.inferencecache.service.lookup;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/** The handler clock for tests: real {@link System#nanoTime()} plus an offset the test advances. */
public final class ManualClock implements LongSupplier {
  private final AtomicLong offset = new AtomicLong();

  @Override
  public long getAsLong() {
    return System.nanoTime() + offset.get();
  }

  /** Moves the clock forward by {@code d}. */
  public void advance(final Duration d) {
    offset.addAndGet(d.toNanos());
  }
}
