package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.support.Http.get;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.PromText;
import io.inferencecache.controlplane.support.TestServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The listeners' connection limits on a real server (loopback, ephemeral ports): the HTTP header
 * timeout against silent and slowloris connections, the HTTP connection cap, and the gRPC handshake
 * timeout and connection cap with their metrics.
 */
@Timeout(120)
class ConnectionLimitsIT {
  private static final String LIMITS =
      "index:\n  maxEntries: 1000\n"
          + "listeners:\n  httpHeaderTimeout: 500ms\n  httpMaxConnections: %d\n"
          + "  httpLimitedIdleTimeout: 300ms\n"
          + "grpc:\n  handshakeTimeout: 500ms\n  maxConnections: %d\n";

  private final List<Socket> sockets = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private TestServer server;

  @AfterEach
  void tearDown() throws IOException {
    for (final Socket s : sockets) {
      s.close();
    }
    for (final ManagedChannel c : channels) {
      c.shutdownNow();
    }
    if (server != null) {
      server.close();
    }
  }

  private TestServer start(final int httpMax, final int grpcMax) throws IOException {
    server =
        TestServer.start(ServeOverrides.NONE.insecure(), String.format(LIMITS, httpMax, grpcMax));
    return server;
  }

  private Socket connect(final int port) throws IOException {
    final Socket s = new Socket();
    sockets.add(s);
    s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
    return s;
  }

  private static int port(final String url) {
    return URI.create(url).getPort();
  }

  /** Whether the peer closed {@code s} (EOF or reset) within {@code within}, reading everything. */
  private static boolean closedByServer(final Socket s, final Duration within) throws IOException {
    final long deadline = System.nanoTime() + within.toNanos();
    final InputStream in = s.getInputStream();
    try {
      while (true) {
        final long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          return false;
        }
        s.setSoTimeout((int) left);
        if (in.read() < 0) {
          return true;
        }
      }
    } catch (SocketTimeoutException e) {
      return false;
    } catch (SocketException e) {
      return true;
    }
  }

  /** Sends one GET on {@code s} and reads the response's status line and headers. */
  private static String request(final Socket s, final String path) throws IOException {
    final OutputStream out = s.getOutputStream();
    out.write(
        ("GET " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII));
    out.flush();
    s.setSoTimeout(10_000);
    final InputStream in = s.getInputStream();
    final StringBuilder head = new StringBuilder();
    int contentLength = 0;
    while (!head.toString().endsWith("\r\n\r\n")) {
      final int b = in.read();
      if (b < 0) {
        throw new IOException("closed after: " + head);
      }
      head.append((char) b);
    }
    for (final String line : head.toString().split("\r\n")) {
      if (line.toLowerCase(java.util.Locale.ROOT).startsWith("content-length:")) {
        contentLength = Integer.parseInt(line.substring(15).trim());
      }
    }
    in.readNBytes(contentLength);
    return head.substring(0, head.indexOf("\r\n"));
  }

  @Test
  void silentHttpConnectionIsClosedAfterTheHeaderTimeoutNotTheIdleTimeout() throws Exception {
    start(0, 0);
    final Socket s = connect(port(server.publicUrl("/")));
    // The idle timeout is 30 s; the header timeout (500 ms) closes it.
    assertThat(closedByServer(s, Duration.ofSeconds(5))).isTrue();
  }

  @Test
  void slowlorisHeadersAreCutOffAfterTheHeaderTimeout() throws Exception {
    start(0, 0);
    final Socket s = connect(port(server.snapshotUrl("/")));
    final OutputStream out = s.getOutputStream();
    out.write("GET /snapshot HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII));
    out.flush();
    final long start = System.nanoTime();
    boolean closed = false;
    // One header byte every 100 ms: each byte would reset an idle timer.
    while (!closed && System.nanoTime() - start < Duration.ofSeconds(8).toNanos()) {
      try {
        out.write('x');
        out.flush();
      } catch (SocketException e) {
        closed = true;
        break;
      }
      closed = closedByServer(s, Duration.ofMillis(100));
    }
    assertThat(closed).isTrue();
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void keepAliveConnectionIdleBetweenRequestsOutlivesTheHeaderTimeout() throws Exception {
    start(0, 0);
    final Socket s = connect(port(server.publicUrl("/")));
    assertThat(request(s, "/healthz")).isEqualTo("HTTP/1.1 200 OK");
    // Idle for 3 header timeouts, then a second request on the same connection.
    assertThat(closedByServer(s, Duration.ofMillis(1_500))).isFalse();
    assertThat(request(s, "/healthz")).isEqualTo("HTTP/1.1 200 OK");
  }

  @Test
  void httpListenerAtItsCapClosesSurplusConnectionsAndCutsIdleTimeouts() throws Exception {
    start(2, 0);
    final int port = port(server.publicUrl("/"));
    final Socket a = connect(port);
    final Socket b = connect(port);
    assertThat(request(a, "/healthz")).isEqualTo("HTTP/1.1 200 OK");
    assertThat(request(b, "/healthz")).isEqualTo("HTTP/1.1 200 OK");
    // At the cap: a third connection is closed at once, without an answer.
    final Socket c = connect(port);
    assertThatThrownBy(() -> request(c, "/healthz"))
        .isInstanceOf(IOException.class)
        .isNotInstanceOf(SocketTimeoutException.class);
    // The idle keep-alive connections got 300 ms instead of the 30 s idle timeout ...
    assertThat(closedByServer(a, Duration.ofSeconds(5))).isTrue();
    assertThat(closedByServer(b, Duration.ofSeconds(5))).isTrue();
    // ... so the next client is served.
    await()
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(() -> request(connect(port), "/healthz").equals("HTTP/1.1 200 OK"));
  }

  @Test
  void grpcConnectionsBeyondTheCapAreRefusedAndCountedInMetrics() throws Exception {
    start(0, 2);
    final int port = server.grpcPort();
    // Two real clients hold the two slots (handshake done, so the handshake timeout is over).
    final List<ManagedChannel> clients = List.of(channel(port), channel(port));
    for (final ManagedChannel c : clients) {
      assertThat(health(c)).isEqualTo(ServingStatus.SERVING);
    }
    final Socket third = connect(port);
    assertThat(closedByServer(third, Duration.ofSeconds(5))).isTrue();
    final PromText metrics = PromText.parse(get(server.publicUrl("/metrics")).body());
    assertThat(value(metrics, "inferencecache_grpc_connections_refused_total")).isEqualTo(1.0);
    assertThat(value(metrics, "inferencecache_grpc_connections")).isEqualTo(2.0);
    assertThat(value(metrics, "inferencecache_grpc_calls_shed_total")).isEqualTo(0.0); // idle
    // A slot freed is a slot for the next client.
    clients.get(0).shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    await().atMost(Duration.ofSeconds(10)).until(() -> grpcConnections() == 1.0);
    final ManagedChannel next = channel(port);
    assertThat(health(next)).isEqualTo(ServingStatus.SERVING);
  }

  @Test
  void silentGrpcConnectionIsClosedAfterTheHandshakeTimeout() throws Exception {
    start(0, 0);
    final Socket s = connect(server.grpcPort());
    assertThat(closedByServer(s, Duration.ofSeconds(10))).isTrue();
    await().atMost(Duration.ofSeconds(10)).until(() -> grpcConnections() == 0.0);
  }

  private double grpcConnections() throws Exception {
    return value(
        PromText.parse(get(server.publicUrl("/metrics")).body()),
        "inferencecache_grpc_connections");
  }

  private ManagedChannel channel(final int port) {
    final ManagedChannel c =
        NettyChannelBuilder.forAddress("127.0.0.1", port).usePlaintext().build();
    channels.add(c);
    return c;
  }

  private static ServingStatus health(final ManagedChannel c) {
    return HealthGrpc.newBlockingStub(c)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .check(HealthCheckRequest.getDefaultInstance())
        .getStatus();
  }

  private static double value(final PromText metrics, final String name) {
    return metrics.samples.stream()
        .filter(s -> s.name().equals(name))
        .mapToDouble(PromText.Sample::value)
        .findFirst()
        .orElseThrow(() -> new AssertionError("no series " + name));
  }
}
