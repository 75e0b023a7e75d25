package io.inferencecache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.concurrent.TimeUnit;
import org.agrona.concurrent.EpochNanoClock;
import org.junit.jupiter.api.Test;

/** The index's default clock, which every lookup reads once. */
class DefaultClockTest {

  private static final int READS = 5_000;

  @Test
  void readingTheDefaultClockAllocatesNothingEvenBeforeTheJitCompilesIt() {
    final EpochNanoClock clock = new IndexConfig().clock();
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long sink = 0;
    final long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < READS; i++) {
      sink += clock.nanoTime();
    }
    final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
    assertThat(sink).isNotZero();
    // Instant-based clocks allocate 24 B a read until C2 scalar-replaces it: 120 kB here.
    assertThat(allocated).as("bytes allocated by %d reads", READS).isLessThan(READS);
  }

  @Test
  void theDefaultClockReadsEpochTime() {
    final long wallNanos = TimeUnit.MILLISECONDS.toNanos(System.currentTimeMillis());
    final long clockNanos = new IndexConfig().clock().nanoTime();
    assertThat(Math.abs(clockNanos - wallNanos)).isLessThan(TimeUnit.SECONDS.toNanos(2));
  }
}
