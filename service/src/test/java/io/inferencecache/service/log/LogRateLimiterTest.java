package io.inferencecache.service.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class LogRateLimiterTest {
  private final AtomicLong now = new AtomicLong(-5_000L); // any origin, negative included

  @Test
  void allowsMaxLinesPerWindowThenReportsWhatItSuppressed() {
    final LogRateLimiter l = new LogRateLimiter(3, 1_000, now::get);
    final List<Long> got = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      got.add(l.acquire());
    }
    assertThat(got).containsExactly(0L, 0L, 0L, -1L, -1L, -1L, -1L, -1L, -1L, -1L);
    assertThat(l.pendingSuppressed()).isEqualTo(7);
    now.addAndGet(999); // still the same window
    assertThat(l.acquire()).isEqualTo(LogRateLimiter.SUPPRESS);
    now.addAndGet(1); // the window is over: the first line of the next one carries the count
    assertThat(l.acquire()).isEqualTo(8);
    assertThat(l.acquire()).isEqualTo(0);
    assertThat(l.acquire()).isEqualTo(0);
    assertThat(l.acquire()).isEqualTo(LogRateLimiter.SUPPRESS);
    assertThat(l.pendingSuppressed()).isEqualTo(1);
  }

  @Test
  void aQuietPeriodStartsAFreshWindow() {
    final LogRateLimiter l = new LogRateLimiter(1, 1_000, now::get);
    assertThat(l.acquire()).isEqualTo(0);
    now.addAndGet(1_000_000);
    assertThat(l.acquire()).isEqualTo(0);
    assertThat(l.acquire()).isEqualTo(LogRateLimiter.SUPPRESS);
  }

  @Test
  void concurrentCallersShareOneBudgetAndNothingIsLost() throws Exception {
    final LogRateLimiter l = new LogRateLimiter(10, Long.MAX_VALUE, now::get);
    final AtomicLong allowed = new AtomicLong();
    final AtomicLong suppressed = new AtomicLong();
    final List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < 8; t++) {
      final Thread th =
          new Thread(
              () -> {
                for (int i = 0; i < 1_000; i++) {
                  if (l.acquire() == LogRateLimiter.SUPPRESS) {
                    suppressed.incrementAndGet();
                  } else {
                    allowed.incrementAndGet();
                  }
                }
              });
      threads.add(th);
      th.start();
    }
    for (final Thread th : threads) {
      th.join(10_000);
    }
    assertThat(allowed.get()).isEqualTo(10);
    assertThat(suppressed.get()).isEqualTo(7_990);
    assertThat(l.pendingSuppressed()).isEqualTo(7_990);
  }

  @Test
  void rejectsNonPositiveLimits() {
    assertThatThrownBy(() -> new LogRateLimiter(0, 1, now::get))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new LogRateLimiter(1, 0, now::get))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
