package io.inferencecache.service.server;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The handler pool's FIFO queue, which also knows how long its tasks wait, without allocating per
 * task: each offer takes a sequence number and writes its enqueue time, then the sequence number,
 * into slot {@code seq mod RING} of two rings; the head's sequence number advances with every task
 * taken. A stamp is read only from a slot that carries the expected sequence number, so a slot not
 * yet written (its producer between numbering and stamping) or one left by an earlier lap reads as
 * age 0 instead of a stale, far older time.
 *
 * <p>Three figures feed admission ({@link GrpcServer}): the head's age ({@link #headAgeNanos()}),
 * how long the task a {@link HandlerThread} just took had waited ({@link
 * HandlerThread#taskWaitNanos()}, set by {@code poll}/{@code take} on the taking thread), and the
 * drain interval ({@link #drainIntervalNanos()}): a moving average of the time between two takes
 * while tasks kept waiting, that is, how fast the pool works through the current backlog (reset
 * when the queue empties). {@code size() × drainInterval} predicts how long a task queued now will
 * wait — unlike the head's age, it also bounds the wait of the last task admitted, which at a
 * k-fold overload is k times the head's.
 *
 * <p>All three are estimates: concurrent producers may insert in another order than they were
 * numbered (nanoseconds apart), concurrent takers may swap stamps, and more than {@link #RING}
 * waiting tasks overwrite a slot (age 0 until the head catches up; the count bound of admission
 * still applies). Only {@code offer}, {@code poll} and {@code take} are stamped and counted; the
 * executor uses no other insertion or removal while it runs (a shutdown's drain leaves the rings
 * stale, which no one reads after).
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

  /** When the last take left tasks waiting; 0 when it left the queue empty. */
  private final transient AtomicLong backloggedSince = new AtomicLong();

  /** Moving average (1/8 weight) of the interval between takes while tasks kept waiting. */
  private volatile long drainIntervalNanos;

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
    if (task == null) {
      return null;
    }
    final long seq = head.getAndIncrement();
    final long now = clock.getAsLong();
    final long at = stamp(seq);
    if (Thread.currentThread() instanceof HandlerThread t) {
      t.taskWaitNanos = at == Long.MIN_VALUE ? 0 : Math.max(0, now - at);
    }
    // Only an interval during which some task waited the whole time measures the pool's pace;
    // one that began on an empty queue includes idle time. The pace is that of the current backlog
    // only: once the queue is empty it is forgotten, so one slow spell (a stall, a cold JIT) does
    // not keep shedding calls of a later, healthy burst.
    final boolean empty = isEmpty();
    final long since = backloggedSince.getAndSet(empty ? 0 : now);
    if (empty) {
      drainIntervalNanos = 0;
    } else if (since != 0 && now > since) {
      final long d = drainIntervalNanos;
      // Racy read-modify-write (an estimate); the first interval seeds the average.
      drainIntervalNanos = d == 0 ? now - since : d + ((now - since) - d) / 8;
    }
    return task;
  }

  /** The enqueue time of task {@code seq}, or {@link Long#MIN_VALUE} when its slot is not its. */
  private long stamp(final long seq) {
    final int slot = (int) (seq & (RING - 1));
    if (slotSeq.get(slot) != seq) {
      return Long.MIN_VALUE;
    }
    final long at = enqueuedAt.get(slot);
    return slotSeq.get(slot) == seq ? at : Long.MIN_VALUE; // else overwritten meanwhile
  }

  /**
   * The moving average of the time between two takes while tasks kept waiting (all handler threads
   * together), in nanoseconds; 0 while there is no backlog, or before its second take.
   */
  long drainIntervalNanos() {
    return drainIntervalNanos;
  }

  /**
   * How long a task queued now is expected to wait: the tasks ahead of it times the drain interval,
   * in nanoseconds (saturating).
   */
  long expectedWaitNanos() {
    final long d = drainIntervalNanos;
    final int n = size();
    return n == 0 || d == 0 ? 0 : (d > Long.MAX_VALUE / n ? Long.MAX_VALUE : d * n);
  }

  /**
   * How long the oldest waiting task has waited, in nanoseconds; 0 when nothing waits or its stamp
   * is not readable yet.
   */
  long headAgeNanos() {
    final long at = stamp(head.get());
    return at == Long.MIN_VALUE ? 0 : Math.max(0, clock.getAsLong() - at);
  }
}
