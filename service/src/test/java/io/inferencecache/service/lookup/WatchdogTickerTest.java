package io.inferencecache.service.lookup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(30)
class WatchdogTickerTest {
  private static final long MINUTE = TimeUnit.MINUTES.toNanos(1);

  @Test
  void goesIdleOnlyAfterTheConfiguredRunOfEmptyScans() {
    final WatchdogTicker t = new WatchdogTicker(1_000_000L, MINUTE, 3);
    t.scanned(false, () -> false);
    t.scanned(false, () -> false);
    assertThat(t.idle()).isFalse();
    t.scanned(true, () -> true); // a watched call resets the run
    t.scanned(false, () -> false);
    t.scanned(false, () -> false);
    assertThat(t.idle()).isFalse();
    t.scanned(false, () -> false);
    assertThat(t.idle()).isTrue();
    t.scanned(true, () -> true);
    assertThat(t.idle()).isFalse();
  }

  @Test
  void staysAwakeWhenACallWasArmedBetweenTheScanAndGoingIdle() {
    final WatchdogTicker t = new WatchdogTicker(1_000_000L, MINUTE, 1);
    t.scanned(false, () -> true); // the re-check after the idle flag finds the call
    assertThat(t.idle()).isFalse();
    t.scanned(false, () -> false);
    assertThat(t.idle()).isTrue();
  }

  @Test
  void wakeEndsAnIdleSleepAtOnce() throws Exception {
    final WatchdogTicker t = new WatchdogTicker(1_000_000L, MINUTE, 1);
    final AtomicInteger ticks = new AtomicInteger();
    final AtomicBoolean running = new AtomicBoolean(true);
    final Thread watchdog =
        new Thread(
            () -> {
              while (running.get()) {
                t.await();
                ticks.incrementAndGet();
                t.scanned(false, () -> false);
              }
            });
    t.bind(watchdog);
    watchdog.setDaemon(true);
    watchdog.start();
    await().atMost(Duration.ofSeconds(10)).until(t::idle);
    // Only the watchdog thread parks, and once idle only for the minute: now in that sleep.
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> watchdog.getState() == Thread.State.TIMED_WAITING);
    final int before = ticks.get();

    t.wake();

    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () ->
                assertThat(ticks.get())
                    .as("woken long before the minute is over")
                    .isGreaterThan(before));
    running.set(false);
    watchdog.interrupt();
    watchdog.join(5_000);
  }

  @Test
  void wakeOnAnAwakeWatchdogIsANoOp() {
    final WatchdogTicker t = new WatchdogTicker(1_000_000L, MINUTE, 1);
    t.wake(); // nothing bound, not idle: nothing to do
    assertThat(t.idle()).isFalse();
  }
}
