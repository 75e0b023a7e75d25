package io.inferencecache.service.server;

/** What tests outside this package may observe of a server's handler queue. */
public final class HandlerQueue {
  private HandlerQueue() {}

  /**
   * Whether exactly {@code calls} tasks wait for a handler thread and even the most recently queued
   * one has waited longer than the server's {@link GrpcServerConfig#maxQueueDelay()}: the handler
   * thread that reaches any of them sheds it.
   */
  public static boolean allWaitedPastQueueDelay(final GrpcServer server, final int calls) {
    return server.queuedTasks() == calls
        && server.newestQueuedTaskWaitNanos() > server.config().maxQueueDelay().toNanos();
  }
}
