package io.inferencecache.service.admission;

import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.LongSupplier;

/**
 * The handler pool's FIFO queue, which also knows how long its tasks wait, without allocating per
 * task: each offer takes a sequence number and writes its enqueue time, then the sequence number,
 * into slot {@code seq mod ring size} of two rings; the head's sequence number advances with every
 * task taken. A stamp is read only from a slot that carries the expected sequence number, so a slot
 * not yet written (its producer between numbering and stamping) or one left by an earlier lap reads
 * as age 0 instead of a stale, far older time.
 *
 * <p>Three figures feed admission ({@code GrpcServer}): the head's age ({@link #headAgeNanos()}),
 * how long the task a {@link HandlerThread} just took had waited ({@link
 * HandlerThread#taskWaitNanos()}, set by {@code poll}/{@code take} on the taking thread), and the
 * drain interval ({@link #drainIntervalNanos()}): the average time between two takes while tasks
 * kept waiting, that is, how fast the pool works through the current backlog (reset when the queue
 * empties). An interval counts only if the task taken at its end was already waiting at its start
 * (so it holds no idle time, whatever the interleaving of takers); the first {@value #MEAN_SAMPLES}
 * intervals of a backlog are averaged plainly, later ones with weight 1/8, and the estimate is used
 * only from {@value #MIN_SAMPLES} intervals on, so one outlier (a GC pause, a slow task at the head
 * of a burst) does not shed a healthy burst. {@code size() × drainInterval} predicts how long a
 * task queued now will wait — unlike the head's age, it also bounds the wait of the last task
 * admitted, which at a k-fold overload is k times the head's.
 *
 * <p>All three are estimates: concurrent producers may insert in another order than they were
 * numbered (nanoseconds apart), concurrent takers may swap stamps, and more waiting tasks than the
 * ring has slots (at least twice the admission bound) overwrite a slot (age 0 until the head
 * catches up; the count bound of admission still applies). Only {@code offer}, {@code poll} and
 * {@code take} are stamped and counted; the executor uses no other insertion or removal while it
 * runs (a shutdown's drain leaves the rings stale, which no one reads after).
 */
final class AgedTaskQueue extends LinkedBlockingQueue<Runnable> {
  private static final long serialVersionUID = 1L;

  /** Fewest ring slots: a power of two well above the default admission bound of 1,024. */
  static final int MIN_RING = 4096;

  /** Backlog intervals averaged plainly before the moving average takes over. */
  static final int MEAN_SAMPLES = 8;

  /** Backlog intervals needed before {@link #expectedWaitNanos()} is other than 0. */
  static final int MIN_SAMPLES = 4;

  private final transient int ringMask;
  private final transient AtomicLongArray enqueuedAt;
  private final transient AtomicLongArray slotSeq;
  private final transient AtomicLong tail = new AtomicLong();
  private final transient AtomicLong head = new AtomicLong();
  private final transient LongSupplier clock;

  /** When the last take left tasks waiting; 0 when it left the queue empty. */
  private final transient AtomicLong backloggedSince = new AtomicLong();

  /** Average interval between takes while tasks kept waiting, and how many went into it. */
  private volatile long drainIntervalNanos;

  private volatile int drainSamples;

  /**
   * @param clock nanosecond clock
   * @param admissionBound waiting tasks at which admission refuses new calls; the ring has at least
   *     twice as many slots
   */
  AgedTaskQueue(final LongSupplier clock, final int admissionBound) {
    this.clock = clock;
    final int twice = Math.max(2, 2 * Math.max(1, admissionBound));
    final int ring = Math.max(MIN_RING, Integer.highestOneBit(twice - 1) << 1);
    this.ringMask = ring - 1;
    this.enqueuedAt = new AtomicLongArray(ring);
    this.slotSeq = new AtomicLongArray(ring);
    for (int i = 0; i < ring; i++) {
      slotSeq.set(i, -1); // no sequence number yet
    }
  }

  @Override
  public boolean offer(final Runnable task) {
    // Stamp before inserting: a consumer that takes the task at once finds its own time. The queue
    // is unbounded, so the insertion cannot fail and every sequence number gets its task.
    final long seq = tail.getAndIncrement();
    final int slot = (int) (seq & ringMask);
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
      drainSamples = 0;
      drainIntervalNanos = 0;
    } else if (since != 0 && at != Long.MIN_VALUE && at <= since && now > since) {
      // This task waited through the whole interval: the pool was busy all along. Racy
      // read-modify-write of the average (an estimate).
      final int k = drainSamples;
      final long d = drainIntervalNanos;
      drainIntervalNanos = d + ((now - since) - d) / (k < MEAN_SAMPLES ? k + 1 : 8);
      drainSamples = Math.min(k + 1, MEAN_SAMPLES);
    }
    return task;
  }

  /** The enqueue time of task {@code seq}, or {@link Long#MIN_VALUE} when its slot is not its. */
  private long stamp(final long seq) {
    final int slot = (int) (seq & ringMask);
    if (slotSeq.get(slot) != seq) {
      return Long.MIN_VALUE;
    }
    final long at = enqueuedAt.get(slot);
    return slotSeq.get(slot) == seq ? at : Long.MIN_VALUE; // else overwritten meanwhile
  }

  /**
   * The average time between two takes while tasks kept waiting (all handler threads together), in
   * nanoseconds; 0 while there is no backlog or before its first such interval.
   */
  long drainIntervalNanos() {
    return drainIntervalNanos;
  }

  /**
   * How long a task queued now is expected to wait: the tasks ahead of it times the drain interval,
   * in nanoseconds (saturating); 0 until the current backlog has given {@value #MIN_SAMPLES}
   * intervals.
   */
  long expectedWaitNanos() {
    if (drainSamples < MIN_SAMPLES) {
      return 0;
    }
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

  /**
   * How long the most recently queued task has waited, in nanoseconds, while any task waits; 0 when
   * nothing waits or its stamp is not readable yet. Not used for admission (for tests: once every
   * expected task is queued, each of them has waited at least this long).
   */
  long newestAgeNanos() {
    if (isEmpty()) {
      return 0;
    }
    final long at = stamp(tail.get() - 1);
    return at == Long.MIN_VALUE ? 0 : Math.max(0, clock.getAsLong() - at);
  }
}
