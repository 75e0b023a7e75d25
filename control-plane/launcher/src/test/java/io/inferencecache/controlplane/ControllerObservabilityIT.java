package io.inferencecache.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.Http;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.controlplane.support.PrometheusProcess;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller's half of the alerts and the dashboard against the real tools: a {@code
 * controller} process (webhooks off) on kube-local, pushing to and polling a real {@code serve},
 * probing a Managed CacheBackend and projecting a replica's tier-2 counters, scraped by Debian's
 * Prometheus. Every series an alert reads that only a controller exports exists, and every
 * dashboard query over controller series returns data.
 */
@KubeLocalTest
@Timeout(300)
class ControllerObservabilityIT {
  private static final String NAMESPACE = ObservabilityIT.NAMESPACE;

  @TempDir Path dir;

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    }
  }

  @Test
  void aLiveControllerFeedsEveryControllerSeriesOfTheAlertsAndTheDashboard(final KubeLocal kube)
      throws Exception {
    kube.applyCrdsFor120(KubeFixture.crds());
    final String system = kube.newNamespace();
    final String sa = "system:serviceaccount:" + system + ":controller";
    final Path controllerToken = dir.resolve("controller-token");
    final Path policyToken = dir.resolve("policy-token");
    Files.writeString(
        controllerToken, kube.createToken(system, "controller", "inferencecache.io/controller"));
    Files.writeString(
        policyToken, kube.createToken(system, "controller", "inferencecache.io/policy"));
    try (TestServer server =
        TestServer.start(
            ServeOverrides.NONE.allowing(sa),
            "kubernetes:\n  kubeconfig: " + kube.kubeconfig() + "\n")) {
      final int metrics = freePort();
      final int health = freePort();
      final List<String> line =
          List.of(
              Path.of(System.getProperty("java.home"), "bin", "java").toString(),
              "-jar",
              System.getProperty("inferencecache.jar"),
              "controller",
              "--metrics-bind-address=127.0.0.1:" + metrics,
              "--health-probe-bind-address=127.0.0.1:" + health,
              "--webhook-bind-address=0",
              "--kubeconfig=" + kube.kubeconfig(),
              "--server-snapshot-url=" + server.snapshotUrl("/snapshot"),
              "--server-policy-url=" + server.snapshotUrl("/policy"),
              "--server-probe-url=" + server.snapshotUrl("/probe"),
              "--controller-token-file=" + controllerToken,
              "--policy-token-file=" + policyToken,
              "--leader-election-namespace=" + system,
              "--cacheindex-refresh-interval=1s",
              "--cachepolicy-push-interval=2s",
              "--log-format=text");
      final Process controller =
          new ProcessBuilder(line)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("controller.log").toFile())
              .start();
      final ManagedChannel channel =
          NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
      try (PrometheusProcess prometheus = PrometheusProcess.start(config(metrics))) {
        await("controller /readyz")
            .atMost(Duration.ofSeconds(90))
            .ignoreExceptionsInstanceOf(IOException.class)
            .until(
                () -> {
                  assertThat(controller.isAlive()).as(log()).isTrue();
                  return Http.get("http://127.0.0.1:" + health + "/readyz").statusCode() == 200;
                });
        final String ns = kube.newNamespace();
        workload(kube, ns);
        readyDeployment(kube, ns, "l2");
        CacheStateReports.send(
            channel,
            10,
            CacheStateReports.chain(
                    "engine-0", "m", ns, 1, i -> ByteString.copyFrom(new byte[] {7, 7, (byte) i}))
                .toBuilder()
                .setStats(
                    ReplicaStats.newBuilder()
                        .setHitRate(0.5f)
                        .setT2HitTokens(10)
                        .setT2QueryTokens(40))
                .build());
        ObservabilityIT.assertDashboardQueriesReturnData(
            prometheus, ObservabilityFiles::readsController, () -> {});
        assertAlertsFindTheirControllerSeries(prometheus);
        for (final String family :
            List.of(
                "inferencecache_backend_probe_result_total",
                "inferencecache_backend_t2_hit_rate",
                "inferencecache_backend_t2_query_tokens_total",
                "inferencecache_controller_snapshot_polls_total")) {
          assertThat(present(prometheus, family)).as(family).isTrue();
        }
        assertThat(
                prometheus
                    .query(
                        "inferencecache_backend_t2_hit_rate{namespace=\""
                            + NAMESPACE
                            + "\", backend=\""
                            + ns
                            + "/l2\"}")
                    .at("/data/result/0/value/1")
                    .asText())
            .isEqualTo("0.25");
      } finally {
        channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        controller.destroy();
        if (!controller.waitFor(15, TimeUnit.SECONDS)) {
          controller.destroyForcibly();
        }
      }
    }
  }

  private String log() throws IOException {
    return Files.readString(dir.resolve("controller.log"));
  }

  private static String config(final int metricsPort) {
    return "global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n"
        + "rule_files:\n  - "
        + ObservabilityFiles.RULES
        + "\nscrape_configs:\n  - job_name: inference-cache-controller\n"
        + "    static_configs:\n      - targets: ['127.0.0.1:"
        + metricsPort
        + "']\n        labels: {namespace: "
        + NAMESPACE
        + "}\n";
  }

  /** A CachePolicy to push, a Managed Redis backend to probe and the engine pod it selects. */
  private static void workload(final KubeLocal kube, final String ns) {
    KubeFixture.apply(
        kube,
        "apiVersion: "
            + KubeFixture.API
            + "\nkind: CachePolicy\nmetadata: {name: default, namespace: "
            + ns
            + "}\nspec: {}\n---\napiVersion: "
            + KubeFixture.API
            + "\nkind: CacheBackend\nmetadata:\n  name: l2\n  namespace: "
            + ns
            + "\n  annotations: {inferencecache.io/require-kv-events: \"false\"}\n"
            + "spec:\n  runtime: VLLM\n  type: LMCache\n"
            + "  remoteStorage: {provider: Redis, ownership: Managed}\n"
            + "  engineSelector: {matchLabels: {inferencecache.io/cache-domain: l2}}\n"
            + "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: engine-0\n  namespace: "
            + ns
            + "\n  labels: {inferencecache.io/cache-domain: l2}\nspec:\n  containers:\n"
            + "  - {name: engine, image: example.invalid/vllm:1}\n");
  }

  /** Plays the deployment controller once the reconciler created the Redis Deployment. */
  private static void readyDeployment(final KubeLocal kube, final String ns, final String name) {
    await("Redis Deployment " + name)
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .untilAsserted(() -> KubeFixture.patchDeploymentStatus(kube, ns, name, 1));
  }

  private static boolean present(final PrometheusProcess prometheus, final String series)
      throws Exception {
    return !prometheus
        .query("count(" + series + "{namespace=\"" + NAMESPACE + "\"})")
        .at("/data/result")
        .isEmpty();
  }

  private static void assertAlertsFindTheirControllerSeries(final PrometheusProcess prometheus)
      throws Exception {
    int checked = 0;
    for (final ObservabilityFiles.Alert alert : ObservabilityFiles.alerts()) {
      final JsonNode r = prometheus.query(alert.expr());
      assertThat(r.path("status").asText()).as(alert.name() + " -> " + r).isEqualTo("success");
      for (final String series : ObservabilityFiles.controllerSeries(alert.expr())) {
        assertThat(present(prometheus, series))
            .as(alert.name() + " reads " + series + ", which the live controller exports")
            .isTrue();
        checked++;
      }
    }
    assertThat(checked).as("alerts reading controller series").isPositive();
  }
}
