package io.inferencecache.subscriber.sink;

import java.util.concurrent.atomic.AtomicLong;

/** What the sink has delivered, dropped and lost, readable from any thread. */
public final class SinkCounters {
  final AtomicLong updatesSent = new AtomicLong();
  final AtomicLong entriesSent = new AtomicLong();
  final AtomicLong eventsSent = new AtomicLong();
  final AtomicLong updatesDropped = new AtomicLong();
  final AtomicLong entriesDropped = new AtomicLong();
  final AtomicLong eventsDropped = new AtomicLong();
  final AtomicLong updatesUnconfirmed = new AtomicLong();
  final AtomicLong entriesUnconfirmed = new AtomicLong();
  final AtomicLong reconnects = new AtomicLong();
  final AtomicLong resyncs = new AtomicLong();
  final AtomicLong streamsOpened = new AtomicLong();
  final AtomicLong statsSent = new AtomicLong();
  final AtomicLong statsFailed = new AtomicLong();

  /** Counts one dropped op of the event path with its entries. */
  void dropped(final SinkOp op, final int entries) {
    if (op instanceof SinkOp.Report) {
      updatesDropped.incrementAndGet();
      entriesDropped.addAndGet(entries);
    } else {
      eventsDropped.incrementAndGet();
    }
  }

  /** Updates written to a report stream. */
  public long updatesSent() {
    return updatesSent.get();
  }

  /** Prefix entries written to a report stream. */
  public long entriesSent() {
    return entriesSent.get();
  }

  /** PublishEvent calls (evictions and clears) the server acknowledged. */
  public long eventsSent() {
    return eventsSent.get();
  }

  /** Updates dropped: buffer full, or still queued when the sink closed. */
  public long updatesDropped() {
    return updatesDropped.get();
  }

  /** Prefix entries in the dropped updates. */
  public long entriesDropped() {
    return entriesDropped.get();
  }

  /** Evictions and clears dropped: buffer full, out of attempts, or undelivered at close. */
  public long eventsDropped() {
    return eventsDropped.get();
  }

  /** Updates sent on streams that failed before the server confirmed them. */
  public long updatesUnconfirmed() {
    return updatesUnconfirmed.get();
  }

  /** Prefix entries of those updates. */
  public long entriesUnconfirmed() {
    return entriesUnconfirmed.get();
  }

  /** Times the connection was re-established after a failure. */
  public long reconnects() {
    return reconnects.get();
  }

  /** Resyncs carried out. */
  public long resyncs() {
    return resyncs.get();
  }

  /** ReportCacheState streams opened for the event path. */
  public long streamsOpened() {
    return streamsOpened.get();
  }

  /** Stats samples delivered. */
  public long statsSent() {
    return statsSent.get();
  }

  /** Stats samples not delivered. */
  public long statsFailed() {
    return statsFailed.get();
  }
}
