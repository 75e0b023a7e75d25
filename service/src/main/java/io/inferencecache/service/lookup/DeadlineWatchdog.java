package io.inferencecache.service.lookup;

import io.inferencecache.service.concurrent.CopyOnWriteArray;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.agrona.concurrent.ManyToManyConcurrentArrayQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one deadline watchdog of LookupRoute, shared by the zero-copy and the protobuf path: a daemon
 * thread that answers TIMEOUT on time for a call whose handler is stuck past the call's deadline
 * (behind a slow tokenizer, say), without any per-call allocation. It scans the calls of its {@link
 * Pool}s, paced by a {@link WatchdogTicker} (1 ms ticks while a call is armed, a long sleep when
 * none is).
 */
final class DeadlineWatchdog implements AutoCloseable {
  /** Deadline watchdog tick while calls are watched: 1 ms. */
  static final long TICK_NANOS = 1_000_000L;

  private static final Logger LOG = LoggerFactory.getLogger(DeadlineWatchdog.class);

  /** A pooled call the watchdog can answer. */
  interface Call {
    /** The call's state (who answers it, and its deadline). */
    WatchedCall watch();

    /**
     * Watchdog thread, once it won the call at {@code nowNanos}: send TIMEOUT and count it. The
     * call is no longer tracked and never returns to its pool.
     */
    void timedOut(long nowNanos);
  }

  /**
   * A pool of reusable calls this watchdog tracks: every call it ever created and has not let go.
   *
   * @param <T> the call type
   */
  static final class Pool<T extends Call> {
    private final ManyToManyConcurrentArrayQueue<T> free;
    private final Supplier<T> factory;
    private final CopyOnWriteArray<Call> tracked = new CopyOnWriteArray<>(new Call[0]);

    private Pool(final int capacity, final Supplier<T> factory) {
      this.free = new ManyToManyConcurrentArrayQueue<>(Math.max(2, capacity));
      this.factory = factory;
    }

    /** A pooled call, or a new one (tracked from now on). */
    T acquire() {
      T c = free.poll();
      if (c == null) {
        c = factory.get();
        tracked.add(c);
      }
      return c;
    }

    /** Back to the pool (a full pool lets it go); a call the watchdog answered is never reused. */
    void release(final T c) {
      c.watch().idle();
      if (!c.watch().abandoned() && !free.offer(c)) {
        tracked.remove(c);
      }
    }

    /** Calls back in this pool, waiting to be reused (for tests). */
    int idle() {
      return free.size();
    }

    /** Live calls of this pool the watchdog scans (every one created and not yet let go). */
    int tracked() {
      return tracked.size();
    }
  }

  private final LongSupplier nanoTime;
  private final WatchdogTicker ticker;
  private final CopyOnWriteArray<Pool<?>> pools = new CopyOnWriteArray<>(new Pool<?>[0]);
  private final BooleanSupplier anyWatched = this::anyWatched;
  private final Thread thread;
  private volatile boolean running = true;

  DeadlineWatchdog(final LongSupplier nanoTime, final WatchdogTicker ticker) {
    this.nanoTime = nanoTime;
    this.ticker = ticker;
    this.thread = new Thread(this::watch, "lookup-deadline-watchdog");
    this.thread.setDaemon(true);
    ticker.bind(thread);
    this.thread.start();
  }

  /** A watchdog at the default pace ({@link #TICK_NANOS}, then idle). */
  static DeadlineWatchdog start(final LongSupplier nanoTime) {
    return new DeadlineWatchdog(
        nanoTime,
        new WatchdogTicker(
            TICK_NANOS,
            WatchdogTicker.IDLE_NANOS_DEFAULT,
            WatchdogTicker.IDLE_AFTER_TICKS_DEFAULT));
  }

  /** A new pool of calls made by {@code factory}, tracked by this watchdog. */
  <T extends Call> Pool<T> pool(final int capacity, final Supplier<T> factory) {
    final Pool<T> p = new Pool<>(capacity, factory);
    pools.add(p);
    return p;
  }

  /**
   * After {@code c} was armed with a deadline (a volatile write): wakes an idle watchdog so that it
   * sees the call.
   */
  void armed(final Call c) {
    if (c.watch().watched()) {
      ticker.wake();
    }
  }

  /** The watchdog's pace (for tests). */
  WatchdogTicker ticker() {
    return ticker;
  }

  private void watch() {
    while (running) {
      ticker.await();
      final long now = nanoTime.getAsLong();
      boolean saw = false;
      for (Pool<?> p : pools.snapshot()) {
        for (Call c : p.tracked.snapshot()) {
          final WatchedCall w = c.watch();
          if (w.watched()) {
            saw = true;
            if (w.expireIfDue(now)) {
              p.tracked.remove(c);
              timeout(c, now);
            }
          }
        }
      }
      ticker.scanned(saw, anyWatched);
    }
  }

  private static void timeout(final Call c, final long now) {
    try {
      c.timedOut(now);
    } catch (RuntimeException e) {
      LOG.debug("event=lookup_route_timeout_send_failed reason=\"{}\"", String.valueOf(e));
    }
  }

  private boolean anyWatched() {
    for (Pool<?> p : pools.snapshot()) {
      for (Call c : p.tracked.snapshot()) {
        if (c.watch().watched()) {
          return true;
        }
      }
    }
    return false;
  }

  @Override
  public void close() {
    running = false;
    thread.interrupt();
  }
}
