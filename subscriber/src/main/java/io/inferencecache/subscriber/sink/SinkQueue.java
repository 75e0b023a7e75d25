package io.inferencecache.subscriber.sink;

import io.inferencecache.subscriber.index.PrefixRecord;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event path's bounded queue and its drop accounting. Callers' threads enqueue (never blocking,
 * never throwing); the sender thread takes from the head and removes what it delivered. At most
 * {@code maxUpdates} updates and events holding at most {@code maxEntries} entries wait; beyond
 * that the op is dropped, counted, the loss remembered (a resync is asked for once connected again)
 * and a warning logged at most once per {@value GrpcUpdateSink#LOG_EVERY_SECONDS} s. A clear or a
 * resync replaces everything queued. After {@link #close} and its drain deadline every new op is
 * dropped.
 *
 * <p>Thread-safe: one lock guards the state; {@link #resyncRequested} and {@link #closeDeadline}
 * are readable without it.
 */
final class SinkQueue {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcUpdateSink.class);

  /** How long {@link #take} waits for an op before returning (so the sender re-checks). */
  static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private final int maxUpdates;
  private final int maxEntries;
  private final SinkCounters counters;
  private final String target;
  private final String replicaId;
  private final LongSupplier nanoTime;
  private final LogThrottle dropLog;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition(); // the queue changed, or closing
  private final Condition wake = lock.newCondition(); // connectivity changed, or closing
  private final ArrayDeque<SinkOp> queue = new ArrayDeque<>(); // guarded by lock
  private int queuedUpdates; // bounded ops in queue; guarded by lock
  private long queuedEntries; // guarded by lock
  private boolean lost; // guarded by lock
  private boolean closing; // guarded by lock
  private long drainDeadline; // guarded by lock
  private volatile boolean resyncRequested;
  private volatile long closeDeadline = Long.MAX_VALUE;

  SinkQueue(
      final int maxUpdates,
      final int maxEntries,
      final SinkCounters counters,
      final String target,
      final String replicaId,
      final LongSupplier nanoTime) {
    this.maxUpdates = maxUpdates;
    this.maxEntries = maxEntries;
    this.counters = counters;
    this.target = target;
    this.replicaId = replicaId;
    this.nanoTime = nanoTime;
    this.dropLog = new LogThrottle(GrpcUpdateSink.LOG_EVERY_SECONDS, nanoTime);
  }

  // ---------------------------------------------------------------------------------------------
  // Callers' side

  /** Queues {@code op} holding {@code entries} prefix entries, or drops it when full or closed. */
  void enqueue(final SinkOp op, final int entries) {
    lock.lock();
    try {
      final boolean over =
          queuedUpdates >= maxUpdates
              || (queuedEntries > 0 && queuedEntries + entries > maxEntries);
      if (over || (closing && isDrainOver())) {
        dropped(op, entries);
        return;
      }
      queue.add(op);
      queuedUpdates++;
      queuedEntries += entries;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Replaces everything queued by one clear: the server is about to forget it all. */
  void clearAll(final long timestampMicros) {
    lock.lock();
    try {
      if (closing && isDrainOver()) {
        counters.eventsDropped.incrementAndGet();
        return;
      }
      queue.clear();
      queuedUpdates = 1;
      queuedEntries = 0;
      queue.add(new SinkOp.Clear(timestampMicros, false));
      // What was lost before is cleared too; the event path starts over from an empty index.
      lost = false;
      resyncRequested = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Replaces everything queued by a clear and {@code state} in updates of at most {@code perUpdate}
   * entries (outside the bounds), and forgets the loss.
   */
  void resync(final SubscriberUpdate state, final int perUpdate) {
    final List<PrefixRecord> all = state.prefixes();
    lock.lock();
    try {
      queue.clear();
      queuedUpdates = 0;
      queuedEntries = 0;
      queue.add(new SinkOp.Clear(0L, true));
      for (int from = 0; from < all.size(); from += perUpdate) {
        final List<PrefixRecord> chunk = all.subList(from, Math.min(all.size(), from + perUpdate));
        queue.add(
            new SinkOp.Report(
                new SubscriberUpdate(
                    state.replicaId(),
                    state.modelId(),
                    state.tenantId(),
                    state.hashScheme(),
                    state.timestampMicros(),
                    chunk),
                true));
      }
      lost = false;
      resyncRequested = false;
      counters.resyncs.incrementAndGet();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the event path should answer with its whole state ({@link #resync}). */
  boolean resyncRequested() {
    return resyncRequested;
  }

  /** Starts closing: the sender drains until {@code drainTimeoutNanos} from now. Idempotent. */
  void close(final long drainTimeoutNanos) {
    lock.lock();
    try {
      if (!closing) {
        closing = true;
        drainDeadline = nanoTime.getAsLong() + drainTimeoutNanos;
        closeDeadline = drainDeadline;
      }
      changed.signalAll();
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Updates and events waiting (resync content excluded). */
  int queuedUpdates() {
    lock.lock();
    try {
      return queuedUpdates;
    } finally {
      lock.unlock();
    }
  }

  /** Everything waiting, resync content included. */
  int size() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sender's side

  /** When closing ends ({@link Long#MAX_VALUE} before {@link #close}); no lock needed. */
  long closeDeadline() {
    return closeDeadline;
  }

  /**
   * Whether the sender should stop (closing, and drained or out of time); otherwise, when {@code
   * connected} and something was lost, asks for a resync (once).
   */
  boolean shouldStop(final boolean connected) {
    lock.lock();
    try {
      final boolean stop = closing && (queue.isEmpty() || isDrainOver());
      if (!stop && connected && lost && !resyncRequested) {
        resyncRequested = true;
        LOG.info(
            "event=sink_resync_requested server={} replica={}: updates were dropped or lost;"
                + " asking for this replica's whole state",
            target,
            replicaId);
      }
      return stop;
    } finally {
      lock.unlock();
    }
  }

  /** The head op, or null after waiting up to {@link #POLL_NANOS} for one. */
  SinkOp take() {
    lock.lock();
    try {
      if (queue.isEmpty() && !closing) {
        try {
          changed.awaitNanos(POLL_NANOS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return queue.peekFirst();
    } finally {
      lock.unlock();
    }
  }

  /** Removes {@code op} from the head if it is still there (a resync or a clear may have won). */
  void done(final SinkOp op) {
    lock.lock();
    try {
      if (queue.peekFirst() == op) {
        queue.pollFirst();
        if (!op.resync) {
          queuedUpdates--;
          if (op instanceof SinkOp.Report r) {
            queuedEntries -= r.update.prefixes().size();
          }
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** The run of evictions at the head of the queue, at most {@code max}. */
  List<SinkOp.Evict> leadingEvictions(final int max) {
    final List<SinkOp.Evict> run = new ArrayList<>();
    lock.lock();
    try {
      for (SinkOp op : queue) {
        if (!(op instanceof SinkOp.Evict e) || run.size() == max) {
          break;
        }
        run.add(e);
      }
    } finally {
      lock.unlock();
    }
    return run;
  }

  /** Takes the delivered evictions out wherever they still are (evictions commute). */
  void removeDelivered(final List<SinkOp.Evict> delivered) {
    lock.lock();
    try {
      for (SinkOp.Evict e : delivered) {
        if (queue.remove(e)) {
          queuedUpdates--;
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Counts one more attempt of each failed op; drops (and counts) those out of attempts. */
  void failed(final List<? extends SinkOp> failed, final int maxAttempts) {
    lock.lock();
    try {
      for (SinkOp op : failed) {
        op.attempts++;
        if (op.attempts >= maxAttempts && queue.remove(op)) {
          if (!op.resync) {
            queuedUpdates--;
          }
          dropped(op, 0);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /** Remembers that sent data may not have been ingested: a resync follows. */
  void markLost() {
    lock.lock();
    try {
      lost = true;
    } finally {
      lock.unlock();
    }
  }

  /** Waits up to {@code nanos} (less when the drain deadline is nearer) or until {@link #wake}. */
  void awaitWake(final long nanos) {
    lock.lock();
    try {
      long wait = nanos;
      if (closing) {
        wait = Math.min(wait, drainDeadline - nanoTime.getAsLong());
      }
      if (wait > 0) {
        wake.awaitNanos(wait);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
  }

  /** Ends an {@link #awaitWake} early (the channel's state changed). */
  void wake() {
    lock.lock();
    try {
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** At the end of the sender: counts what is still queued as dropped and empties the queue. */
  void dropRemaining(final long drainTimeoutNanos) {
    lock.lock();
    try {
      for (SinkOp op : queue) {
        counters.dropped(op, op instanceof SinkOp.Report r ? r.update.prefixes().size() : 0);
      }
      if (!queue.isEmpty()) {
        LOG.warn(
            "event=sink_closed_with_undelivered server={} replica={} ops={}: not delivered"
                + " within the drain timeout of {} ms",
            target,
            replicaId,
            queue.size(),
            TimeUnit.NANOSECONDS.toMillis(drainTimeoutNanos));
      }
      queue.clear();
      queuedUpdates = 0;
      queuedEntries = 0;
    } finally {
      lock.unlock();
    }
  }

  private boolean isDrainOver() {
    return nanoTime.getAsLong() - drainDeadline >= 0;
  }

  /** Counts a dropped op and marks the loss. Called under the lock. */
  private void dropped(final SinkOp op, final int entries) {
    counters.dropped(op, entries);
    lost = true;
    if (dropLog.allow()) {
      LOG.warn(
          "event=sink_dropped server={} replica={} dropped_updates={} dropped_entries={}"
              + " dropped_events={} queued_updates={} queued_entries={}: the server is unreachable"
              + " or too slow and the buffer is full; a resync follows once it is back",
          target,
          replicaId,
          counters.updatesDropped(),
          counters.entriesDropped(),
          counters.eventsDropped(),
          queuedUpdates,
          queuedEntries);
    }
  }
}
