package io.inferencecache.subscriber.sink;

/** One queued delivery of the event path: a report, an eviction or a clear. */
abstract sealed class SinkOp permits SinkOp.Report, SinkOp.Evict, SinkOp.Clear {
  /** Part of a resync: outside the buffer bounds. */
  final boolean resync;

  /** Failed delivery attempts (unary calls only); the sender thread's. */
  int attempts;

  private SinkOp(final boolean resync) {
    this.resync = resync;
  }

  /** An update for the open {@code ReportCacheState} stream. */
  static final class Report extends SinkOp {
    final SubscriberUpdate update;

    Report(final SubscriberUpdate update, final boolean resync) {
      super(resync);
      this.update = update;
    }
  }

  /** A {@code PublishEvent(PREFIX_EVICTED)}. */
  static final class Evict extends SinkOp {
    final byte[] hash;
    final String adapterId;
    final long timestampMicros;

    Evict(final byte[] hash, final String adapterId, final long timestampMicros) {
      super(false);
      this.hash = hash;
      this.adapterId = adapterId;
      this.timestampMicros = timestampMicros;
    }
  }

  /** A {@code PublishEvent(ALL_CLEARED)}. */
  static final class Clear extends SinkOp {
    final long timestampMicros;

    Clear(final long timestampMicros, final boolean resync) {
      super(resync);
      this.timestampMicros = timestampMicros;
    }
  }
}
