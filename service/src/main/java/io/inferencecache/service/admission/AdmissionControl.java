package io.inferencecache.service.admission;

import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallExecutorSupplier;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * Admission control of the gRPC listener: the fixed handler pool and the decision, per new call, to
 * run it or shed it (the rules are in {@code GrpcServer}'s class comment, "Threads and overload").
 * Two hooks go into the Netty server: {@link #callExecutor()} decides on the event loop as soon as
 * a call's headers arrive, and {@link #interceptor()}, which must run before every other
 * interceptor, closes the calls refused there and those reached by a handler thread only after
 * waiting longer than {@code maxQueueDelay}. Thread-safe.
 */
public final class AdmissionControl {
  /** Status of a call refused because the handler queue is full or too slow. */
  static final Status OVERLOADED =
      Status.RESOURCE_EXHAUSTED.withDescription(
          "server overloaded: call shed (handler queue full or too slow)");

  /** Server-internal mark on a refused call's headers; removed from client-sent headers. */
  private static final Metadata.Key<String> SHED_MARK =
      Metadata.Key.of("x-inferencecache-internal-shed", Metadata.ASCII_STRING_MARSHALLER);

  private static final Executor INLINE = Runnable::run;

  private final int queueCapacity;
  private final long maxQueueDelayNanos;
  private final AgedTaskQueue queue;
  private final ThreadPoolExecutor executor;
  private final List<ShedResponder> responders;
  private final LongAdder rejectedCalls = new LongAdder();

  /**
   * The handler pool ({@code threads} daemon threads named {@code inferencecache-grpc-handler-N})
   * and its admission rules.
   */
  public AdmissionControl(
      final int threads,
      final int queueCapacity,
      final Duration maxQueueDelay,
      final List<ShedResponder> responders) {
    this.queueCapacity = queueCapacity;
    this.maxQueueDelayNanos = nanos(maxQueueDelay);
    this.queue = new AgedTaskQueue(System::nanoTime, queueCapacity);
    this.responders = List.copyOf(responders);
    this.executor =
        new ThreadPoolExecutor(
            threads,
            threads,
            0L,
            TimeUnit.MILLISECONDS,
            queue,
            HandlerThread.factory("inferencecache-grpc-handler"));
  }

  /** The per-call executor choice for {@code NettyServerBuilder#callExecutor}. */
  public ServerCallExecutorSupplier callExecutor() {
    return this::executorFor;
  }

  /** The interceptor that closes shed calls; register it so that it runs first. */
  public ServerInterceptor interceptor() {
    return new Shed();
  }

  /** Calls shed so far (see {@code GrpcServer.rejectedCalls()}). */
  public long rejectedCalls() {
    return rejectedCalls.sum();
  }

  /** Tasks waiting for a handler thread (see {@code GrpcServer.queuedTasks()}). */
  public int queuedTasks() {
    return queue.size();
  }

  /** See {@code GrpcServer.newestQueuedTaskWaitNanos()}. */
  public long newestQueuedTaskWaitNanos() {
    return queue.newestAgeNanos();
  }

  /** The handler pool, for shutdown. */
  public ThreadPoolExecutor executor() {
    return executor;
  }

  private <Q, R> Executor executorFor(final ServerCall<Q, R> call, final Metadata headers) {
    // discardAll on transport-built headers copies them into a new Object[] even when the key is
    // absent (every call); containsKey reads them in place.
    if (headers.containsKey(SHED_MARK)) {
      headers.discardAll(SHED_MARK);
    }
    if (overloaded()) {
      rejectedCalls.increment();
      headers.put(SHED_MARK, "1");
      return INLINE; // Shed closes the call at once; nothing of it reaches the handler pool.
    }
    return executor;
  }

  private boolean overloaded() {
    if (queue.size() >= queueCapacity || queue.headAgeNanos() > maxQueueDelayNanos) {
      return true;
    }
    final long expected = queue.expectedWaitNanos();
    if (expected == 0) {
      return false;
    }
    if (expected > maxQueueDelayNanos) {
      return true;
    }
    // Runs in the call's context (gRPC's method lookup): its deadline, if the client sent one.
    final Deadline deadline = Context.current().getDeadline();
    return deadline != null && deadline.timeRemaining(TimeUnit.NANOSECONDS) < expected;
  }

  /**
   * Closes the calls {@link #executorFor} refused, and those whose first task waited in the handler
   * queue past {@code maxQueueDelay}, before any other interceptor or handler sees them.
   */
  private final class Shed implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        final ServerCall<Q, R> call, final Metadata headers, final ServerCallHandler<Q, R> next) {
      if (headers.containsKey(SHED_MARK)) {
        headers.discardAll(SHED_MARK); // refused at admission; counted there
      } else if (HandlerThread.taskWaitNanos() > maxQueueDelayNanos) {
        rejectedCalls.increment(); // admitted, but reached too late: answer now, do no work
      } else {
        return next.startCall(call, headers);
      }
      for (ShedResponder r : responders) {
        if (r.answer(call)) {
          return new ServerCall.Listener<>() {};
        }
      }
      call.close(OVERLOADED, new Metadata());
      return new ServerCall.Listener<>() {};
    }
  }

  /** Duration to nanoseconds, saturating instead of overflowing. */
  public static long nanos(final Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE;
    }
  }
}
