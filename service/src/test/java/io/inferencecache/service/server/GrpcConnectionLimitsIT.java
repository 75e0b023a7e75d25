package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The connection limits of the gRPC listener, against raw sockets and real clients on loopback. */
@Timeout(60)
class GrpcConnectionLimitsIT {
  private final List<GrpcServer> servers = new ArrayList<>();
  private final List<Socket> sockets = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();

  @AfterEach
  void tearDown() throws Exception {
    for (final Socket s : sockets) {
      s.close();
    }
    for (final ManagedChannel c : channels) {
      c.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    for (final GrpcServer s : servers) {
      s.close();
    }
  }

  private static GrpcServerConfig.Builder loopback() {
    return GrpcServerConfig.builder()
        .bindAddress("127.0.0.1:0")
        .executorThreads(2)
        .eventLoopThreads(1);
  }

  private GrpcServer start(final GrpcServerConfig config) throws IOException {
    final GrpcServer server = GrpcServer.builder(config).build();
    servers.add(server);
    return server.start();
  }

  /** A TCP connection that never sends a byte. */
  private Socket silent(final GrpcServer server) throws IOException {
    final Socket s = new Socket();
    sockets.add(s);
    s.connect(new InetSocketAddress("127.0.0.1", server.port()), 5_000);
    return s;
  }

  /** Whether the server closed {@code s} within {@code within} (EOF or reset on read). */
  private static boolean closedByServer(final Socket s, final Duration within) throws IOException {
    s.setSoTimeout((int) within.toMillis());
    final InputStream in = s.getInputStream();
    try {
      // The server sends nothing before the client's preface; anything read first is unexpected.
      while (true) {
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) { // connection reset
      return true;
    }
  }

  private ServingStatus health(final GrpcServer server) {
    final ManagedChannel c =
        NettyChannelBuilder.forAddress("127.0.0.1", server.port()).usePlaintext().build();
    channels.add(c);
    return HealthGrpc.newBlockingStub(c)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance())
        .getStatus();
  }

  @Test
  void defaultsBoundHandshakesIdleConnectionsAndConnectionCount() {
    final GrpcServerConfig c = GrpcServerConfig.builder().build();
    assertThat(c.handshakeTimeout()).isEqualTo(Duration.ofSeconds(10));
    assertThat(c.maxConnectionIdle()).isEqualTo(Duration.ofMinutes(5));
    assertThat(c.maxConnections()).isEqualTo(10_000);
  }

  @Test
  void silentConnectionIsClosedWhenTheHandshakeTimeoutEnds() throws Exception {
    final GrpcServer server = start(loopback().handshakeTimeout(Duration.ofMillis(300)).build());
    final Socket s = silent(server);
    assertThat(closedByServer(s, Duration.ofSeconds(10))).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 0);
    // A real client completes its handshake in time and is served.
    assertThat(health(server)).isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void silentConnectionStaysOpenWithinTheHandshakeTimeout() throws Exception {
    final GrpcServer server = start(loopback().handshakeTimeout(Duration.ofSeconds(30)).build());
    final Socket s = silent(server);
    assertThat(closedByServer(s, Duration.ofMillis(700))).isFalse();
    assertThat(server.openConnections()).isEqualTo(1);
  }

  @Test
  void connectionsBeyondTheCapAreClosedAtAcceptAndCounted() throws Exception {
    final GrpcServer server =
        start(loopback().maxConnections(2).handshakeTimeout(Duration.ofSeconds(30)).build());
    final Socket first = silent(server);
    silent(server);
    await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 2);

    final Socket third = silent(server);
    assertThat(closedByServer(third, Duration.ofSeconds(5))).isTrue();
    assertThat(server.refusedConnections()).isEqualTo(1);
    assertThat(server.openConnections()).isEqualTo(2);

    // Closing one frees its slot: a real client is then served.
    first.close();
    await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 1);
    assertThat(health(server)).isEqualTo(ServingStatus.SERVING);
    assertThat(server.openConnections()).isEqualTo(2);
  }

  @Test
  void zeroMaxConnectionsCountsWithoutRefusing() throws Exception {
    final GrpcServer server =
        start(loopback().maxConnections(0).handshakeTimeout(Duration.ofSeconds(30)).build());
    for (int i = 0; i < 20; i++) {
      silent(server);
    }
    await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 20);
    assertThat(server.refusedConnections()).isZero();
  }

  @Test
  void connectionWithoutCallsIsClosedAfterMaxConnectionIdle() throws Exception {
    final GrpcServer server = start(loopback().maxConnectionIdle(Duration.ofMillis(500)).build());
    assertThat(health(server)).isEqualTo(ServingStatus.SERVING);
    assertThat(server.openConnections()).isEqualTo(1);
    // GOAWAY after 500 ms without calls; the client then closes its side.
    await().atMost(Duration.ofSeconds(10)).until(() -> server.openConnections() == 0);
    // The channel reconnects transparently on the next call.
    assertThat(
            HealthGrpc.newBlockingStub(channels.get(0))
                .withDeadlineAfter(10, TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance())
                .getStatus())
        .isEqualTo(ServingStatus.SERVING);
  }
}
