package io.inferencecache.service.lookup;

/** The caller's deadline and cancellation, as the handler sees them. */
public interface CallContext {
  /** The caller's deadline on the handler clock (ns), or {@link Long#MAX_VALUE} for none. */
  long deadlineNanos();

  /** Whether the caller cancelled (treated like an expired deadline: TIMEOUT). */
  boolean cancelled();

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
