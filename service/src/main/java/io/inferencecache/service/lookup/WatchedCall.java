package io.inferencecache.service.lookup;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who answers one LookupRoute call, the handler or the {@link DeadlineWatchdog}, and when the
 * watchdog may: the state every pooled call of both LookupRoute paths carries. The handler's thread
 * {@link #start}s a call, the router {@link #arm}s it with its deadline, and then exactly one of
 * {@link #claim()} (the handler) and {@link #expireIfDue} (the watchdog) wins. A call the watchdog
 * answered is {@link #abandoned()}: its handler thread may still be using it, so it never goes back
 * to its pool.
 */
final class WatchedCall {
  static final int IDLE = 0;
  static final int RUNNING = 1;
  static final int ANSWERED = 2;

  /** The handler committed its answer (see {@link #claim()}); the watchdog leaves it alone. */
  static final int CLAIMED = 3;

  private final AtomicInteger state = new AtomicInteger(IDLE);
  private volatile long deadlineNanos = Long.MAX_VALUE;
  private volatile long startNanos;
  private volatile boolean abandoned;

  /** Handler thread: the call is running from {@code start}, not yet watched. */
  void start(final long start) {
    deadlineNanos = Long.MAX_VALUE;
    startNanos = start;
    state.set(RUNNING);
  }

  /** Router, through the call: the deadline to answer TIMEOUT at ({@link Long#MAX_VALUE}: none). */
  void arm(final long deadline) {
    deadlineNanos = deadline;
  }

  /**
   * Running → claimed, unless the watchdog already answered (then false). A call that is not
   * running (driven directly, as in the in-process benchmark) is always the handler's.
   */
  boolean claim() {
    while (true) {
      final int s = state.get();
      if (s == ANSWERED) {
        return false;
      }
      if (s != RUNNING || state.compareAndSet(RUNNING, CLAIMED)) {
        return true;
      }
    }
  }

  /** Handler thread, after a successful claim: the answer is being sent. */
  void answered() {
    state.set(ANSWERED);
  }

  /** Back to idle (the call is being returned to its pool). */
  void idle() {
    state.set(IDLE);
  }

  /** A running call with a deadline: the watchdog must answer it if the handler misses it. */
  boolean watched() {
    return state.get() == RUNNING && deadlineNanos != Long.MAX_VALUE;
  }

  /** Watchdog: takes the call when its deadline has passed at {@code now}; marks it abandoned. */
  boolean expireIfDue(final long now) {
    if (now >= deadlineNanos && state.compareAndSet(RUNNING, ANSWERED)) {
      abandoned = true;
      return true;
    }
    return false;
  }

  boolean abandoned() {
    return abandoned;
  }

  long startNanos() {
    return startNanos;
  }

  int state() {
    return state.get();
  }
}
