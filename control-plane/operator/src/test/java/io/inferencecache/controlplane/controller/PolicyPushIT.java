package io.inferencecache.controlplane.controller;

import static io.inferencecache.controlplane.controller.PolicyBodyTest.cr;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import io.inferencecache.controlplane.k8s.model.CachePolicy;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The push against a loopback {@code /policy}: body, bearer token rules, errors, the lock. */
@Timeout(60)
class PolicyPushIT {
  @TempDir Path dir;
  private HttpServer server;
  private final ConcurrentLinkedQueue<String> bodies = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> auth = new ConcurrentLinkedQueue<>();
  private final AtomicInteger status = new AtomicInteger(200);
  private final AtomicInteger inFlight = new AtomicInteger();
  private final AtomicBoolean overlapped = new AtomicBoolean();
  private String url;

  @BeforeEach
  void start() throws IOException {
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext(
        "/policy",
        ex -> {
          if (inFlight.incrementAndGet() > 1) {
            overlapped.set(true);
          }
          final String body =
              new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
          bodies.add(body);
          final String a = ex.getRequestHeaders().getFirst("Authorization");
          auth.add(a == null ? "<none>" : a);
          final byte[] reply =
              (status.get() == 200 ? "" : "decode policy snapshot: version 9 unsupported\n")
                  .getBytes(StandardCharsets.UTF_8);
          inFlight.decrementAndGet();
          ex.sendResponseHeaders(status.get(), reply.length == 0 ? -1 : reply.length);
          ex.getResponseBody().write(reply);
          ex.close();
        });
    server.start();
    url = "http://127.0.0.1:" + server.getAddress().getPort() + "/policy";
  }

  @AfterEach
  void stop() {
    server.stop(0);
  }

  private PolicyPush push(
      final List<CachePolicy> policies, final Path token, final AtomicBoolean leader) {
    return new PolicyPush(
        () -> policies, () -> List.of(), new ServerBridge(), url, token, leader::get);
  }

  @Test
  void sendsTheBodyWithTheTrimmedBearerToken() throws Exception {
    final Path token = dir.resolve("token");
    Files.writeString(token, "  abc.def \n");
    final PolicyPush p = push(List.of(cr("team-a", "p", "{}")), token, new AtomicBoolean(true));
    assertThat(p.push()).isEqualTo(PolicyPush.Outcome.PUSHED);
    assertThat(auth).containsExactly("Bearer abc.def");
    assertThat(bodies)
        .containsExactly(
            "{\"version\":7,\"policies\":[{\"namespace\":\"team-a\",\"eviction\":\"lru\"}]}");
  }

  @Test
  void missingOrUnreadableTokenStillPushesUnauthenticated() throws Exception {
    push(List.of(), dir.resolve("absent"), new AtomicBoolean(true)).push();
    final Path unreadable = dir.resolve("dir-not-file");
    Files.createDirectory(
        unreadable,
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
    push(List.of(), unreadable, new AtomicBoolean(true)).push();
    assertThat(auth).containsExactly("<none>", "<none>");
  }

  @Test
  void nonTwoHundredIsAnErrorCarryingTheServersMessage() {
    status.set(400);
    assertThatThrownBy(() -> push(List.of(), null, new AtomicBoolean(true)).push())
        .isInstanceOfSatisfying(
            ServerBridge.BridgeException.class,
            e -> {
              assertThat(e.status()).isEqualTo(400);
              assertThat(e.serverMessage()).contains("version 9 unsupported");
            });
  }

  @Test
  void unreachableServerIsAnIoErrorNotAHang() {
    server.stop(0);
    assertThatThrownBy(() -> push(List.of(), null, new AtomicBoolean(true)).push())
        .isInstanceOf(IOException.class);
  }

  @Test
  void aNonLeaderNeverPosts() throws Exception {
    assertThat(push(List.of(), null, new AtomicBoolean(false)).push())
        .isEqualTo(PolicyPush.Outcome.SKIPPED);
    assertThat(bodies).isEmpty();
  }

  @Test
  void anUnlistedCachePolicyCacheSendsNothing() throws Exception {
    final PolicyPush p =
        new PolicyPush(() -> null, () -> null, new ServerBridge(), url, null, () -> true);
    assertThat(p.push()).isEqualTo(PolicyPush.Outcome.SKIPPED);
    assertThat(bodies).isEmpty();
  }

  @Test
  void concurrentPushesNeverInterleave() throws Exception {
    final List<CachePolicy> policies = new CopyOnWriteArrayList<>();
    final PolicyPush p = push(policies, null, new AtomicBoolean(true));
    final List<Thread> threads = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      final int n = i;
      final Thread t =
          new Thread(
              () -> {
                policies.add(cr("ns-" + n, "p", "{}"));
                try {
                  p.push();
                } catch (IOException | InterruptedException e) {
                  throw new IllegalStateException(e);
                }
              });
      t.start();
      threads.add(t);
    }
    for (final Thread t : threads) {
      t.join();
    }
    assertThat(bodies).hasSize(8);
    assertThat(overlapped).isFalse();
  }
}
