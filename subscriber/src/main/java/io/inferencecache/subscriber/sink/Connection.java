package io.inferencecache.subscriber.sink;

import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the server is believed reachable, and getting back to it: after a failure the sender
 * waits one {@link Backoff} step (or until the channel's state changes), then checks the channel;
 * READY means connected again, anything else starts a connection attempt at once. Optimistic at
 * first: the first delivery dials. The state is the sender thread's; {@link #connected} is readable
 * from any thread.
 */
final class Connection {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcUpdateSink.class);

  private final ManagedChannel channel;
  private final Backoff backoff;
  private final SinkQueue queue;
  private final SinkCounters counters;
  private final String target;
  private final String replicaId;
  private volatile boolean connected = true;

  Connection(
      final ManagedChannel channel,
      final Backoff backoff,
      final SinkQueue queue,
      final SinkCounters counters,
      final String target,
      final String replicaId) {
    this.channel = channel;
    this.backoff = backoff;
    this.queue = queue;
    this.counters = counters;
    this.target = target;
    this.replicaId = replicaId;
  }

  boolean connected() {
    return connected;
  }

  /**
   * Connected and the channel READY; an idle channel is asked to connect (so the answer turns true
   * on a later call), which is the only dialling outside a delivery. Any thread.
   */
  boolean ready() {
    return connected && channel.getState(true) == ConnectivityState.READY;
  }

  /** A call failed: the sender waits for the connection before delivering again. */
  void lost() {
    connected = false;
  }

  /** A delivery was confirmed: the next failure starts from the first backoff step. */
  void succeeded() {
    backoff.reset();
  }

  /** One backoff step, then one look at the channel. */
  void await() {
    queue.awaitWake(backoff.currentNanos());
    backoff.grow();
    final ConnectivityState state = channel.getState(true);
    if (state == ConnectivityState.READY) {
      connected = true;
      counters.reconnects.incrementAndGet();
      LOG.info("event=sink_reconnected server={} replica={}", target, replicaId);
      return;
    }
    if (state == ConnectivityState.TRANSIENT_FAILURE) {
      channel.resetConnectBackoff();
    }
    channel.notifyWhenStateChanged(state, queue::wake);
  }

  /** Shuts the channel down, forcibly after a second. */
  void shutdown() {
    channel.shutdown();
    try {
      if (!channel.awaitTermination(1, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
