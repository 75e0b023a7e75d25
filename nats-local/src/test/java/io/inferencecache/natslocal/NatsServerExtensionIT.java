package io.inferencecache.natslocal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The extension's broker: JetStream on loopback, killed and restarted on the same port and store.
 */
@Timeout(60)
class NatsServerExtensionIT {
  @RegisterExtension final NatsServerExtension nats = new NatsServerExtension();

  private Connection connect() throws IOException, InterruptedException {
    return Nats.connect(
        Options.builder().server(nats.url()).connectionTimeout(Duration.ofSeconds(5)).build());
  }

  @Test
  void servesJetStreamOnLoopbackAndKeepsStreamsAcrossKillAndRestart() throws Exception {
    final NatsServer server = nats.server();
    assertThat(nats.url()).startsWith("nats://127.0.0.1:");
    final long firstPid = server.pid();
    assertThat(firstPid).isPositive();
    final Connection c1 = connect();
    try {
      final Connection c = c1;
      final JetStreamManagement jsm = c.jetStreamManagement();
      jsm.addStream(
          StreamConfiguration.builder()
              .name("drill")
              .subjects("drill.>")
              .storageType(StorageType.File)
              .build());
      c.jetStream().publish("drill.a", "one".getBytes(StandardCharsets.UTF_8));
    } finally {
      c1.close();
    }

    server.kill();
    assertThat(server.isRunning()).isFalse();
    assertThat(ProcessHandle.of(firstPid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
    assertThatThrownBy(
            () -> {
              try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", server.port()), 1000);
              }
            })
        .isInstanceOf(IOException.class);

    server.start();
    assertThat(server.pid()).isNotEqualTo(firstPid);
    final Connection c2 = connect();
    try {
      final Connection c = c2;
      final var info = c.jetStreamManagement().getStreamInfo("drill");
      assertThat(info.getStreamState().getMsgCount()).isEqualTo(1);
      assertThat(
              new String(
                  c.jetStreamManagement().getMessage("drill", 1).getData(), StandardCharsets.UTF_8))
          .isEqualTo("one");
    } finally {
      c2.close();
    }

    server.restart();
    final Connection c3 = connect();
    try {
      final Connection c = c3;
      assertThat(c.jetStreamManagement().getStreamInfo("drill").getStreamState().getMsgCount())
          .isEqualTo(1);
    } finally {
      c3.close();
    }
  }
}
