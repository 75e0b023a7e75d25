package io.inferencecache.controlplane.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.inferencecache.controlplane.cli.ControllerCommand;
import io.inferencecache.controlplane.support.Http;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two controller processes (the shaded jar) with {@code --leader-elect}: one Lease holder, only it
 * POSTs; {@code kill -9} of the leader hands the Lease to the other within the lease duration and
 * the pushes continue from it. Each process's policy token names it in the recorded requests.
 */
@KubeLocalTest
@Timeout(240)
class ControllerLeaderElectionIT {
  static final Duration LEASE = Duration.ofSeconds(6);
  @TempDir Path dir;
  private final List<Process> processes = new ArrayList<>();
  private HttpServer server;
  private final ConcurrentLinkedQueue<String> pushers = new ConcurrentLinkedQueue<>();

  @AfterEach
  void stop() {
    for (final Process p : processes) {
      ProcessHandle.of(p.pid()).ifPresent(ProcessHandle::destroyForcibly);
    }
    if (server != null) {
      server.stop(0);
    }
  }

  private Process controller(
      final KubeLocal kube,
      final String ns,
      final String name,
      final String base,
      final int metricsPort)
      throws IOException {
    final Path token = dir.resolve(name + ".token");
    Files.writeString(token, name + "\n");
    final Path log = dir.resolve(name + ".log");
    final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    final Process p =
        new ProcessBuilder(
                java,
                "-Xmx128m",
                "-jar",
                System.getProperty("inferencecache.jar"),
                "controller",
                "--leader-elect",
                "--kubeconfig=" + kube.kubeconfig(),
                "--leader-election-namespace=" + ns,
                "--health-probe-bind-address=127.0.0.1:0",
                "--metrics-bind-address=127.0.0.1:" + metricsPort,
                "--webhook-bind-address=0",
                "--server-policy-url=" + base + "/policy",
                "--server-snapshot-url=" + base + "/snapshot",
                "--policy-token-file=" + token,
                "--controller-token-file=" + dir.resolve("none"),
                "--cachepolicy-push-interval=1s",
                "--cacheindex-refresh-interval=30s",
                "--leader-elect-lease-duration=" + LEASE.toSeconds() + "s",
                "--leader-elect-renew-deadline=4s",
                "--leader-elect-retry-period=1s")
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    processes.add(p);
    return p;
  }

  static final String LEADER_SERIES =
      "leader_election_master_status{name=\"" + ControllerOptions.LEADER_LOCK + "\",}";

  private static int freePort() throws IOException {
    try (java.net.ServerSocket s =
        new java.net.ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static String metrics(final int port) throws Exception {
    return await()
        .atMost(Duration.ofSeconds(30))
        .ignoreExceptions()
        .until(
            () -> Http.get("http://127.0.0.1:" + port + "/metrics").body(),
            body -> body.contains("leader_election_master_status"));
  }

  /** The value of the sample written exactly as {@code series}, or NaN. */
  static double sample(final String text, final String series) {
    for (final String line : text.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).strip());
      }
    }
    return Double.NaN;
  }

  private String holder(final KubeLocal kube, final String ns) {
    return kube.kubectl(
            "get",
            "lease",
            ControllerOptions.LEADER_LOCK,
            "-n",
            ns,
            "-o",
            "jsonpath={.spec.holderIdentity}")
        .stdout()
        .strip();
  }

  @Test
  void oneLeaderPushesAndAKilledLeaderIsReplacedWithinTheLease(final KubeLocal kube)
      throws Exception {
    kube.applyCrdsFor120(KubeFixture.crds());
    final String ns = kube.newNamespace();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext(
        "/policy",
        ex -> {
          ex.getRequestBody().readAllBytes();
          pushers.add(String.valueOf(ex.getRequestHeaders().getFirst("Authorization")));
          ex.sendResponseHeaders(200, -1);
          ex.close();
        });
    server.start();
    final String base = "http://127.0.0.1:" + server.getAddress().getPort();
    final int metricsA = freePort();
    final int metricsB = freePort();
    final Process a = controller(kube, ns, "process-a", base, metricsA);
    final Process b = controller(kube, ns, "process-b", base, metricsB);

    await().atMost(Duration.ofSeconds(90)).until(() -> pushers.size() >= 3);
    final String leaderToken = pushers.peek();
    assertThat(pushers).as("only the leader POSTs").containsOnly(leaderToken);
    final String firstHolder = holder(kube, ns);
    assertThat(firstHolder).isNotEmpty();
    final Process leader = leaderToken.equals("Bearer process-a") ? a : b;
    final String follower =
        leaderToken.equals("Bearer process-a") ? "Bearer process-b" : "Bearer process-a";
    final boolean aLeads = leader == a;
    // the Lease holder says so on /metrics; the follower's counters exist at 0 before any work
    final String leaderMetrics = metrics(aLeads ? metricsA : metricsB);
    final String followerMetrics = metrics(aLeads ? metricsB : metricsA);
    assertThat(sample(leaderMetrics, LEADER_SERIES)).isEqualTo(1.0);
    assertThat(sample(followerMetrics, LEADER_SERIES)).isEqualTo(0.0);
    for (final String controller : new String[] {"cachepolicies", "cachetenants"}) {
      for (final String result : new String[] {"success", "error", "requeue", "requeue_after"}) {
        assertThat(
                sample(
                    followerMetrics,
                    "controller_runtime_reconcile_total{controller=\""
                        + controller
                        + "-policy-push\",result=\""
                        + result
                        + "\",}"))
            .isEqualTo(0.0);
      }
      assertThat(
              sample(
                  followerMetrics,
                  "controller_runtime_reconcile_errors_total{controller=\""
                      + controller
                      + "-policy-push\",}"))
          .isEqualTo(0.0);
    }
    assertThat(followerMetrics).contains("# TYPE workqueue_adds_total counter");
    assertThat(followerMetrics).contains("jvm_memory_bytes_used");

    ProcessHandle.of(leader.pid()).orElseThrow().destroyForcibly(); // SIGKILL
    leader.waitFor();
    final long killedAt = System.nanoTime();
    await().atMost(LEASE.plusSeconds(8)).until(() -> pushers.contains(follower));
    final Duration takeover = Duration.ofNanos(System.nanoTime() - killedAt);
    assertThat(takeover).isLessThan(LEASE.plusSeconds(8));
    assertThat(holder(kube, ns)).isNotEqualTo(firstHolder).isNotEmpty();
    final int after = pushers.size();
    await().atMost(Duration.ofSeconds(10)).until(() -> pushers.size() >= after + 2);
  }

  @Test
  void leaderOnlyWorkStopsWithinTheLeaseWhenTheLeaseIsTaken(final KubeLocal kube) throws Exception {
    kube.applyCrdsFor120(KubeFixture.crds());
    final String ns = kube.newNamespace();
    final ConcurrentLinkedQueue<Long> postedAt = new ConcurrentLinkedQueue<>();
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext(
        "/policy",
        ex -> {
          ex.getRequestBody().readAllBytes();
          postedAt.add(System.nanoTime());
          ex.sendResponseHeaders(200, -1);
          ex.close();
        });
    server.start();
    final String base = "http://127.0.0.1:" + server.getAddress().getPort();
    final ControllerRuntime runtime =
        new ControllerRuntime(
            new ControllerOptions(
                "0",
                "127.0.0.1:0",
                true,
                base + "/snapshot",
                base + "/policy",
                Duration.ofSeconds(30),
                Duration.ofMillis(500),
                kube.kubeconfig(),
                dir.resolve("none"),
                dir.resolve("none"),
                ns,
                LEASE,
                Duration.ofSeconds(4),
                Duration.ofSeconds(1)),
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ofSeconds(10)),
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ZERO),
            "loser");
    final CompletableFuture<Integer> exit = new CompletableFuture<>();
    final Thread runner =
        new Thread(
            () -> {
              try {
                exit.complete(runtime.run());
              } catch (InterruptedException e) {
                exit.completeExceptionally(e);
              }
            },
            "controller-under-test");
    runner.start();
    try {
      await().atMost(Duration.ofSeconds(60)).until(() -> postedAt.size() >= 3);
      assertThat(holder(kube, ns)).isEqualTo("loser");
      final String now =
          DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'")
              .format(OffsetDateTime.now(ZoneOffset.UTC));
      assertThat(
              kube.kubectl(
                      "patch",
                      "lease",
                      ControllerOptions.LEADER_LOCK,
                      "-n",
                      ns,
                      "--type=merge",
                      "-p",
                      "{\"spec\":{\"holderIdentity\":\"thief\",\"leaseDurationSeconds\":60,"
                          + "\"renewTime\":\""
                          + now
                          + "\"}}")
                  .exitCode())
          .isZero();
      final long takenAt = System.nanoTime();
      assertThat(exit.get(LEASE.toSeconds() + 2, TimeUnit.SECONDS))
          .as("run() reports the lost leadership")
          .isEqualTo(1);
      final long stoppedWithin = System.nanoTime() - takenAt;
      assertThat(Duration.ofNanos(stoppedWithin)).isLessThan(LEASE.plusSeconds(2));
      final long lastPost = postedAt.stream().mapToLong(Long::longValue).max().orElseThrow();
      assertThat(Duration.ofNanos(lastPost - takenAt))
          .as("the last push after the Lease was taken")
          .isLessThan(LEASE);
      final int posts = postedAt.size();
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(3))
          .until(() -> postedAt.size() == posts);
      assertThat(holder(kube, ns)).isEqualTo("thief");
    } finally {
      runtime.close();
      runner.join(10_000);
    }
  }
}
