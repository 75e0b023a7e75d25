package io.inferencecache.service.admission;

import io.grpc.ServerCall;

/**
 * Answers a call the server sheds under overload, instead of {@code RESOURCE_EXHAUSTED}: a
 * fail-open RPC (LookupRoute) answers its "no hint" response with status OK.
 */
@FunctionalInterface
public interface ShedResponder {
  /**
   * Answers {@code call} (send headers, a message, and close) and returns true; or returns false to
   * let the server refuse it with {@code RESOURCE_EXHAUSTED}. Runs on a transport thread (a call
   * refused at admission) or a handler thread (one reached too late): must be quick and must not
   * block.
   */
  boolean answer(ServerCall<?, ?> call);
}
