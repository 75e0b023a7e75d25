package io.inferencecache.service.server;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The handler pool's FIFO queue, which also knows how long its oldest task has waited, without
 * allocating per task: each offer takes a sequence number and writes its enqueue time, then the
 * sequence number, into slot {@code seq mod RING} of two rings; the head's sequence number advances
 * with every task taken. The head's age is read only from a slot that carries the head's own
 * sequence number, so a slot not yet written (its producer between numbering and stamping) or one
 * left by an earlier lap reads as age 0 instead of a stale, far older time.
 *
 * <p>The age is an estimate: concurrent producers may insert in another order than they were
 * numbered (nanoseconds apart), and more than {@link #RING} waiting tasks overwrite the head's slot
 * (age 0 until the head catches up; the count bound of admission still applies). Only {@code
 * offer}, {@code poll} and {@code take} are stamped and counted; the executor uses no other
 * insertion or removal while it runs (a shutdown's drain leaves the rings stale, which no one reads
 * after).
 */
final class AgedTaskQueue extends LinkedBlockingQueue<Runnable> {
  private static final long serialVersionUID = 1L;

  /** Ring slots, a power of two above the default admission bound of 1,024 waiting tasks. */
  static final int RING = 4096;

  private final transient AtomicLongArray enqueuedAt = new AtomicLongArray(RING);
  private final transient AtomicLongArray slotSeq = new AtomicLongArray(RING);
  private final transient AtomicLong tail = new AtomicLong();
  private final transient AtomicLong head = new AtomicLong();
  private final transient LongSupplier clock;

  AgedTaskQueue(final LongSupplier clock) {
    this.clock = clock;
    for (int i = 0; i < RING; i++) {
      slotSeq.set(i, -1); // no sequence number yet
    }
  }

  @Override
  public boolean offer(final Runnable task) {
    // Stamp before inserting: a consumer that takes the task at once finds its own time. The queue
    // is unbounded, so the insertion cannot fail and every sequence number gets its task.
    final long seq = tail.getAndIncrement();
    final int slot = (int) (seq & (RING - 1));
    enqueuedAt.set(slot, clock.getAsLong());
    slotSeq.set(slot, seq); // after the time: a reader that sees seq sees the time
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

  /**
   * How long the oldest waiting task has waited, in nanoseconds; 0 when nothing waits or its stamp
   * is not readable yet.
   */
  long headAgeNanos() {
    final long seq = head.get();
    final int slot = (int) (seq & (RING - 1));
    if (slotSeq.get(slot) != seq) {
      return 0;
    }
    final long at = enqueuedAt.get(slot);
    if (slotSeq.get(slot) != seq) {
      return 0; // overwritten meanwhile
    }
    return Math.max(0, clock.getAsLong() - at);
  }
}
