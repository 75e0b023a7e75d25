package io.inferencecache.service.lookup;

/** The caller's deadline and cancellation, as the handler sees them. */
public interface CallContext {
  /** The caller's deadline on the handler clock (ns), or {@link Long#MAX_VALUE} for none. */
  long deadlineNanos();

  /** Whether the caller cancelled (treated like an expired deadline: TIMEOUT). */
  boolean cancelled();

  /**
   * Commits the handler's own answer for this call. Returns false when the call was already
   * answered by someone else (a transport's deadline watchdog answering TIMEOUT while the handler
   * was still running): the handler then neither credits LFU counters nor records a metric, since
   * its answer is never delivered and the watchdog counted the call. Idempotent.
   */
  default boolean claim() {
    return true;
  }

  /** No deadline, never cancelled. */
  CallContext NONE =
      new CallContext() {
        @Override
        public long deadlineNanos() {
          return Long.MAX_VALUE;
        }

        @Override
        public boolean cancelled() {
          return false;
        }
      };
}
