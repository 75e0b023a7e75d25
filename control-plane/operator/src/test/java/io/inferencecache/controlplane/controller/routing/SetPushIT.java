package io.inferencecache.controlplane.controller.routing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The set push against a loopback server: 404 once, unchanged changes, errors, the lock. */
@Timeout(60)
class SetPushIT {
  @TempDir Path dir;
  private HttpServer server;
  private final ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> auth = new ConcurrentLinkedQueue<>();
  private final AtomicInteger status = new AtomicInteger(204);
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicBoolean overlapped = new AtomicBoolean();
  private final AtomicReference<String> body = new AtomicReference<>("{\"version\":1}");
  private final AtomicReference<Instant> now =
      new AtomicReference<>(Instant.parse("2026-12-06T07:00:00Z"));
  private String url;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext(
        "/pd-topologies",
        ex -> {
          if (inFlight.incrementAndGet() > 1) {
            overlapped.set(true);
          }
          bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          final String a = ex.getRequestHeaders().getFirst("Authorization");
          auth.add(a == null ? "<none>" : a);
          final byte[] reply =
              (status.get() / 100 == 2 ? "" : "spec.topologies[0].name: required\n")
                  .getBytes(StandardCharsets.UTF_8);
          inFlight.decrementAndGet();
          ex.sendResponseHeaders(status.get(), reply.length == 0 ? -1 : reply.length);
          ex.getResponseBody().write(reply);
          ex.close();
        });
    server.start();
    url =
        SetPush.sibling(
            "http://127.0.0.1:" + server.getAddress().getPort() + "/policy", "pd-topologies");
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private SetPush push(final Path token) {
    final Clock clock =
        new Clock() {
          @Override
          public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
          }

          @Override
          public Clock withZone(final java.time.ZoneId zone) {
            return this;
          }

          @Override
          public Instant instant() {
            return now.get();
          }
        };
    return new SetPush("PDTopology", body::get, new ServerBridge(), url, token, () -> true, clock);
  }

  @Test
  void sendsTheBodyWithTheTrimmedBearerTokenAndSkipsAChangeTheServerHolds() throws Exception {
    final Path token = dir.resolve("token");
    Files.writeString(token, " abc.def\n");
    final SetPush p = push(token);
    assertThat(p.onChange()).isEqualTo(SetPush.Outcome.PUSHED);
    assertThat(p.onChange()).isEqualTo(SetPush.Outcome.UNCHANGED);
    p.tick();
    assertThat(bodies).containsExactly("{\"version\":1}", "{\"version\":1}");
    assertThat(auth).containsOnly("Bearer abc.def");
    body.set("{\"version\":1,\"topologies\":[]}");
    assertThat(p.onChange()).isEqualTo(SetPush.Outcome.PUSHED);
    assertThat(bodies).hasSize(3);
  }

  @Test
  void aServerWithoutThePathIsLeftAloneByTheTickUntilTheRecheckButAChangeStillTries()
      throws Exception {
    status.set(404);
    final SetPush p = push(null);
    assertThat(p.push(false)).isEqualTo(SetPush.Outcome.UNSUPPORTED);
    p.tick();
    p.tick();
    assertThat(bodies).as("the ticks left it alone").hasSize(1);
    assertThat(p.onChange()).as("a change still tries").isEqualTo(SetPush.Outcome.UNSUPPORTED);
    assertThat(bodies).hasSize(2);
    now.set(now.get().plus(SetPush.RECHECK).plus(Duration.ofSeconds(1)));
    status.set(204);
    assertThat(p.push(false)).isEqualTo(SetPush.Outcome.PUSHED);
    assertThat(bodies).hasSize(3);
    assertThat(p.onChange()).isEqualTo(SetPush.Outcome.UNCHANGED);
  }

  @Test
  void anotherRefusalIsAnErrorWithTheServersMessage() {
    status.set(400);
    assertThatThrownBy(() -> push(null).onChange())
        .isInstanceOfSatisfying(
            ServerBridge.BridgeException.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.serverMessage()).contains("spec.topologies[0].name");
            });
  }

  @Test
  void concurrentPushesNeverOverlapOnTheWire() throws Exception {
    final SetPush p = push(null);
    final CountDownLatch go = new CountDownLatch(1);
    final var pool = Executors.newFixedThreadPool(4);
    for (int i = 0; i < 8; i++) {
      pool.submit(
          () -> {
            go.await();
            p.tick();
            return null;
          });
    }
    go.countDown();
    pool.shutdown();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    assertThat(bodies).hasSize(8);
    assertThat(overlapped).isFalse();
  }
}
