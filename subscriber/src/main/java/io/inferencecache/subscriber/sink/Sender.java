package io.inferencecache.subscriber.sink;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sender loop: one daemon thread that delivers the queue in call order. Each turn it notices a
 * stream the server ended, stops once closing is drained (or out of time), asks for a resync after
 * a loss, waits for the connection while the server is unreachable, and otherwise hands the head op
 * to the stream ({@link ReportStreams}) or to {@link EventPublisher}. At the end it confirms the
 * open stream and counts what is left as dropped.
 */
final class Sender implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcUpdateSink.class);

  private final SinkQueue queue;
  private final Connection connection;
  private final ReportStreams streams;
  private final EventPublisher events;
  private final long drainTimeoutNanos;
  private final Thread thread;

  Sender(
      final SinkQueue queue,
      final Connection connection,
      final ReportStreams streams,
      final EventPublisher events,
      final long drainTimeoutNanos) {
    this.queue = queue;
    this.connection = connection;
    this.streams = streams;
    this.events = events;
    this.drainTimeoutNanos = drainTimeoutNanos;
    this.thread = new Thread(this, "kvevent-grpc-sink");
    thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Waits up to {@code millis} for the loop to end; interrupts it if it has not. */
  boolean join(final long millis) {
    try {
      thread.join(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (thread.isAlive()) {
      thread.interrupt();
      return false;
    }
    return true;
  }

  @Override
  public void run() {
    try {
      while (true) {
        streams.check();
        if (queue.shouldStop(connection.connected())) {
          break;
        }
        if (!connection.connected()) {
          connection.await();
          continue;
        }
        final SinkOp op = queue.take();
        if (op instanceof SinkOp.Report r) {
          streams.send(r);
        } else if (op instanceof SinkOp.Clear c) {
          events.sendClear(c);
        } else if (op instanceof SinkOp.Evict e) {
          events.sendEvictions(e);
        }
      }
      if (streams.open() != null) {
        streams.barrier(true);
      }
      queue.dropRemaining(drainTimeoutNanos);
    } catch (RuntimeException | Error e) {
      LOG.error("event=sink_sender_failed reason=\"{}\"", String.valueOf(e), e);
    }
  }
}
