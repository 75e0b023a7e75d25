package io.inferencecache.subscriber.source;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.inferencecache.subscriber.config.SubscriberConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The SUB socket against a loopback peer that accepts TCP but never answers the ZMTP greeting. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class ZmqEventSourceIT {

  @Test
  void aConnectionWhoseHandshakeStallsIsRedialledWithinTheHandshakeTimeout() throws Exception {
    final List<Socket> accepted = new CopyOnWriteArrayList<>();
    final List<Long> acceptedAtNanos = new CopyOnWriteArrayList<>();
    try (ServerSocket silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      final Thread acceptor =
          new Thread(
              () -> {
                try {
                  while (!silent.isClosed()) {
                    final Socket s = silent.accept(); // held open, never written to
                    acceptedAtNanos.add(System.nanoTime());
                    accepted.add(s);
                  }
                } catch (final IOException closed) {
                  // the test is over
                }
              },
              "silent-peer");
      acceptor.setDaemon(true);
      acceptor.start();
      try (ZmqEventSource source =
          new ZmqEventSource(
              "tcp://127.0.0.1:" + silent.getLocalPort(),
              "",
              new ArrayBlockingQueue<>(SubscriberConfig.QUEUE_CAPACITY),
              Duration.ofMillis(100))) {
        source.start();
        // JeroMQ's own default would hold the first connection for 30 s.
        await()
            .atMost(ZmqEventSource.HANDSHAKE_TIMEOUT.multipliedBy(4))
            .until(() -> accepted.size() >= 2);
        final long gap = acceptedAtNanos.get(1) - acceptedAtNanos.get(0);
        assertThat(Duration.ofNanos(gap))
            .as("the first connection is held for the handshake timeout before the redial")
            .isGreaterThanOrEqualTo(ZmqEventSource.HANDSHAKE_TIMEOUT.minusMillis(200));
        assertThat(source.messagesReceived()).isZero();
      } finally {
        for (final Socket s : accepted) {
          s.close();
        }
      }
    }
  }
}
