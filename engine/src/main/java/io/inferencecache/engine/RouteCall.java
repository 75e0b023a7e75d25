package io.inferencecache.engine;

/**
 * The transport's side of one LookupRoute call as {@link LookupRouter} sees it: the caller's
 * deadline and cancellation, the hand-over of the call's whole deadline to a transport watchdog,
 * and the claim that decides who answers.
 */
public interface RouteCall {
  /** The caller's deadline on the router clock (ns), or {@link Long#MAX_VALUE} for none. */
  long deadlineNanos();

  /** Whether the caller cancelled (treated like an expired deadline: TIMEOUT). */
  boolean cancelled();

  /**
   * Called once per call, before anything that can block (tokenizing, the index), with the deadline
   * the router enforces: the tighter of the caller's and the tenant policy's {@code
   * lookupTimeoutMs}, or the default tokenize timeout for a tokenizing call without either; {@link
   * Long#MAX_VALUE} when there is none. A transport whose watchdog answers TIMEOUT on its own arms
   * it here, so that a blocked router is bounded exactly as the router bounds itself. Not called
   * for a call the router answers before resolving the policy (the probe tenant).
   */
  default void deadlineResolved(final long deadlineNanos) {}

  /**
   * Commits the router's own answer for this call. Returns false when the call was already answered
   * by someone else (a transport's deadline watchdog answering TIMEOUT while the router was still
   * running): the router then credits no LFU counter, and the transport neither sends nor counts
   * the router's answer. Idempotent.
   */
  default boolean claim() {
    return true;
  }

  /** No deadline, never cancelled, always claimable. */
  RouteCall NONE =
      new RouteCall() {
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
