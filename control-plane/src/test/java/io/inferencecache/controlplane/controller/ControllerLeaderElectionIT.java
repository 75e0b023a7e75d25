package io.inferencecache.controlplane.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
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
      final KubeLocal kube, final String ns, final String name, final String base)
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
                "--metrics-bind-address=0",
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
    kube.applyCrdsFor120(ControllerKubeIT.crds());
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
    final Process a = controller(kube, ns, "process-a", base);
    final Process b = controller(kube, ns, "process-b", base);

    await().atMost(Duration.ofSeconds(90)).until(() -> pushers.size() >= 3);
    final String leaderToken = pushers.peek();
    assertThat(pushers).as("only the leader POSTs").containsOnly(leaderToken);
    final String firstHolder = holder(kube, ns);
    assertThat(firstHolder).isNotEmpty();
    final Process leader = leaderToken.equals("Bearer process-a") ? a : b;
    final String follower =
        leaderToken.equals("Bearer process-a") ? "Bearer process-b" : "Bearer process-a";

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
}
