package io.inferencecache.service.server;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The handler pool's FIFO queue, which also knows how long its oldest task has waited, without
 * allocating per task: the enqueue time of each task goes into a ring of {@link #RING} longs
 * indexed by the task's sequence number, and the head's sequence number advances with every task
 * taken.
 *
 * <p>The age is an estimate: a task taken between the two reads of {@link #headAgeNanos} or not yet
 * stamped reads a neighbour's time, and more than {@link #RING} waiting tasks read a newer one (an
 * under-estimate). Admission compares it against a bound of hundreds of milliseconds, where a
 * microsecond's error does not matter. Only {@code offer}, {@code poll} and {@code take} are
 * stamped and counted; the executor uses no other insertion or removal while it runs (a shutdown's
 * drain leaves the ring stale, which no one reads after).
 */
final class AgedTaskQueue extends LinkedBlockingQueue<Runnable> {
  private static final long serialVersionUID = 1L;

  /** Ring slots, a power of two above the default admission bound of 1,024 waiting tasks. */
  static final int RING = 4096;

  private final transient long[] enqueuedAt = new long[RING];
  private final transient AtomicLong tail = new AtomicLong();
  private final transient AtomicLong head = new AtomicLong();
  private final transient LongSupplier clock;

  AgedTaskQueue(final LongSupplier clock) {
    this.clock = clock;
  }

  @Override
  public boolean offer(final Runnable task) {
    // Stamp before inserting: a consumer that takes the task at once finds its own time. The queue
    // is unbounded, so the insertion cannot fail and every sequence number gets its task.
    final long seq = tail.getAndIncrement();
    enqueuedAt[(int) (seq & (RING - 1))] = clock.getAsLong();
    return super.offer(task);
  }

  @Override
  public Runnable poll() {
    return taken(super.poll());
  }

  @Override
  public Runnable poll(final long timeout, final TimeUnit unit) throws InterruptedException {
    return taken(super.poll(timeout, unit));
  }

  @Override
  public Runnable take() throws InterruptedException {
    return taken(super.take());
  }

  private Runnable taken(final Runnable task) {
    if (task != null) {
      head.incrementAndGet();
    }
    return task;
  }

  /** How long the oldest waiting task has waited, in nanoseconds; 0 when nothing waits. */
  long headAgeNanos() {
    if (isEmpty()) {
      return 0;
    }
    final long seq = head.get();
    return Math.max(0, clock.getAsLong() - enqueuedAt[(int) (seq & (RING - 1))]);
  }
}
