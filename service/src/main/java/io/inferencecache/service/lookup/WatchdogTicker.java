package io.inferencecache.service.lookup;

import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * The pace of a LookupRoute deadline watchdog: a tick every {@code tickNanos} while calls are
 * watched, a sleep of {@code idleNanos} once {@code idleAfterTicks} scans in a row found none, and
 * an immediate wake-up when a call is armed. An idle server's watchdog then wakes ~10 times a
 * second instead of 1,000 (each wake-up scans every pooled call), which matters to a server with a
 * small CPU quota.
 *
 * <p>No armed call is missed: the watchdog declares itself idle (a volatile write) and only then
 * scans once more, and an arming thread publishes its call (a volatile write) before it reads the
 * idle flag in {@link #wake()}; of the two, at least one sees the other's write.
 */
final class WatchdogTicker {
  static final long IDLE_NANOS_DEFAULT = 100_000_000L;
  static final int IDLE_AFTER_TICKS_DEFAULT = 100;

  private final long tickNanos;
  private final long idleNanos;
  private final int idleAfterTicks;
  private volatile boolean idle;
  private volatile Thread watchdog;
  private int emptyScans; // watchdog thread only

  WatchdogTicker(final long tickNanos, final long idleNanos, final int idleAfterTicks) {
    this.tickNanos = tickNanos;
    this.idleNanos = idleNanos;
    this.idleAfterTicks = Math.max(1, idleAfterTicks);
  }

  /** The thread that {@link #await()}s; set before it starts. */
  void bind(final Thread thread) {
    this.watchdog = thread;
  }

  /** Watchdog thread: sleeps one tick, or until woken while idle (or interrupted). */
  void await() {
    LockSupport.parkNanos(idle ? idleNanos : tickNanos);
  }

  /**
   * Watchdog thread, after each scan: whether it saw a watched call; {@code anyWatched} re-checks
   * after going idle.
   */
  void scanned(final boolean sawWatched, final BooleanSupplier anyWatched) {
    if (sawWatched) {
      emptyScans = 0;
      idle = false;
      return;
    }
    if (idle || ++emptyScans < idleAfterTicks) {
      return;
    }
    idle = true;
    if (anyWatched.getAsBoolean()) { // armed between the scan and the flag
      idle = false;
      emptyScans = 0;
    }
  }

  /** After a call is armed (published): wakes an idle watchdog; one volatile read otherwise. */
  void wake() {
    if (idle) {
      idle = false;
      final Thread t = watchdog;
      if (t != null) {
        LockSupport.unpark(t);
      }
    }
  }

  /** Whether the watchdog sleeps the long interval (for tests). */
  boolean idle() {
    return idle;
  }
}
