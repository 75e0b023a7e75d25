package io.inferencecache.subscriber.sink;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogThrottleTest {
  @Test
  void letsOneLineThroughPerPeriod() {
    final AtomicLong clock = new AtomicLong(123L);
    final LogThrottle t = new LogThrottle(10, clock::get);
    assertThat(t.allow()).as("the first line").isTrue();
    assertThat(t.allow()).isFalse();
    clock.addAndGet(TimeUnit.SECONDS.toNanos(10) - 1);
    assertThat(t.allow()).isFalse();
    clock.addAndGet(1);
    assertThat(t.allow()).isTrue();
    assertThat(t.allow()).isFalse();
  }
}
