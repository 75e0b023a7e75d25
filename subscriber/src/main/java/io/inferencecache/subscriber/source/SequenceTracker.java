package io.inferencecache.subscriber.source;

import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the 8-byte big-endian sequence numbers vLLM puts in the second frame of each message and
 * reports discontinuities: a jump forward by more than one is a <b>gap</b> (batches missed: a
 * high-water-mark drop, a reconnect, an undelivered message), a sequence that does not move forward
 * is an engine <b>restart</b>. The first sequence seen is never a discontinuity. Sequences compare
 * as unsigned 64-bit values.
 *
 * <p>Each discontinuity is counted and logged once at WARN with the old and new sequence; the
 * caller then resynchronises (clears its state and reports {@code allCleared}).
 *
 * <p>{@link #observe} is called by one thread; the counters may be read from any thread.
 */
public final class SequenceTracker {
  private static final Logger LOG = LoggerFactory.getLogger(SequenceTracker.class);

  /** What kind of discontinuity. */
  public enum Kind {
    /** The sequence jumped forward by more than one: batches were missed. */
    GAP,
    /** The sequence did not move forward: the engine restarted. */
    RESTART
  }

  /**
   * A discontinuity between two consecutive messages.
   *
   * @param kind gap or restart
   * @param previous the last sequence seen before
   * @param current the sequence that broke the run
   */
  public record Discontinuity(Kind kind, long previous, long current) {}

  private final AtomicLong gaps = new AtomicLong();
  private final AtomicLong restarts = new AtomicLong();
  private boolean seen;
  private long last;

  /**
   * Records {@code sequence}.
   *
   * @return the discontinuity it reveals, or {@code null} when it follows on (or is the first)
   */
  public Discontinuity observe(final long sequence) {
    final boolean first = !seen;
    final long previous = last;
    seen = true;
    last = sequence;
    if (first) {
      return null;
    }
    if (Long.compareUnsigned(sequence, previous) > 0) {
      if (sequence - previous == 1) {
        return null;
      }
      gaps.incrementAndGet();
      LOG.warn(
          "event=kv_event_sequence_gap previous_seq={} seq={} missed={}; resetting this"
              + " replica's prefixes",
          Long.toUnsignedString(previous),
          Long.toUnsignedString(sequence),
          Long.toUnsignedString(sequence - previous - 1));
      return new Discontinuity(Kind.GAP, previous, sequence);
    }
    restarts.incrementAndGet();
    LOG.warn(
        "event=kv_event_engine_restart previous_seq={} seq={}; resetting this replica's prefixes",
        Long.toUnsignedString(previous),
        Long.toUnsignedString(sequence));
    return new Discontinuity(Kind.RESTART, previous, sequence);
  }

  /** Gaps seen so far. */
  public long gaps() {
    return gaps.get();
  }

  /** Restarts seen so far. */
  public long restarts() {
    return restarts.get();
  }
}
