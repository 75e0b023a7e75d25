package io.inferencecache.service.admission;

import io.netty.util.concurrent.FastThreadLocalThread;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A thread of the gRPC handler pool. It carries how long the task it runs had waited in the pool's
 * {@link AgedTaskQueue}, so that a call reached only after waiting past {@code grpc.maxQueueDelay}
 * can be shed instead of served late, without a thread-local lookup. A Netty {@link
 * FastThreadLocalThread}, like the threads of Netty's own factory, so the transport's buffer caches
 * stay fast on it.
 */
final class HandlerThread extends FastThreadLocalThread {
  /** Written by the queue when this thread takes a task; read by this thread only. */
  long taskWaitNanos;

  private HandlerThread(final Runnable task, final String name) {
    super(task, name);
    setDaemon(true);
  }

  /**
   * How long the task the current thread runs had waited in the handler queue, in nanoseconds; 0 on
   * any other thread, for a task handed to a new thread directly, or when its stamp was not
   * readable.
   */
  static long taskWaitNanos() {
    return Thread.currentThread() instanceof HandlerThread t ? t.taskWaitNanos : 0;
  }

  /** Daemon handler threads named {@code prefix-N}. */
  static ThreadFactory factory(final String prefix) {
    final AtomicInteger n = new AtomicInteger();
    return task -> new HandlerThread(task, prefix + "-" + n.incrementAndGet());
  }
}
