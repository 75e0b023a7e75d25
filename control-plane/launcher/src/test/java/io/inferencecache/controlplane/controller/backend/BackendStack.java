package io.inferencecache.controlplane.controller.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.codahale.metrics.MetricRegistry;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpServer;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.controlplane.cli.ControllerCommand;
import io.inferencecache.controlplane.controller.ControllerOptions;
import io.inferencecache.controlplane.controller.ControllerRuntime;
import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.models.V1Deployment;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.assertj.core.api.ThrowingConsumer;

/**
 * A real server ({@code serve} in process, its bridge authenticating the controller's token through
 * kube-local's TokenReview) and a controller against kube-local, as the CacheBackend suites use
 * them. The controller's probe URL goes through a loopback pass-through in front of the server's
 * {@code /probe}, which a test can switch to answer a failed stage or 503 (the server unavailable):
 * the real server cannot be made to fail a stage.
 */
final class BackendStack {
  final KubeLocal kube;
  final TestServer server;
  final ControllerMetrics metrics = new ControllerMetrics(new MetricRegistry());
  final AtomicReference<String> probeMode = new AtomicReference<>("pass");
  private final Path dir;
  private final HttpServer probeFront;
  private final ExecutorService probeThreads = Executors.newFixedThreadPool(2);
  private final ControllerRuntime runtime;
  private final Thread runner;
  private final ManagedChannel channel;

  BackendStack(final KubeLocal kube, final String identity) throws Exception {
    this.kube = kube;
    this.dir = Files.createTempDirectory("backend-it");
    kube.applyCrdsFor120(KubeFixture.crds());
    final String system = kube.newNamespace();
    final String sa = "system:serviceaccount:" + system + ":controller";
    server =
        TestServer.start(
            ServeOverrides.NONE.allowing(sa),
            "kubernetes:\n  kubeconfig: " + kube.kubeconfig() + "\n");
    final Path token = dir.resolve("controller-token");
    Files.writeString(
        token, kube.createToken(system, "controller", "inferencecache.io/controller"));
    probeFront = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    probeFront.setExecutor(probeThreads);
    final HttpClient http = HttpClient.newHttpClient();
    probeFront.createContext(
        "/probe",
        ex -> {
          final byte[] body = ex.getRequestBody().readAllBytes();
          final String mode = probeMode.get();
          byte[] reply;
          int status = 200;
          if ("pass".equals(mode)) {
            try {
              final HttpResponse<byte[]> r =
                  http.send(
                      HttpRequest.newBuilder(URI.create(server.snapshotUrl("/probe")))
                          .header(
                              "Authorization",
                              String.valueOf(ex.getRequestHeaders().getFirst("Authorization")))
                          .POST(HttpRequest.BodyPublishers.ofByteArray(body))
                          .build(),
                      HttpResponse.BodyHandlers.ofByteArray());
              status = r.statusCode();
              reply = r.body();
            } catch (InterruptedException e) {
              Thread.currentThread().interrupt();
              status = 502;
              reply = new byte[0];
            }
          } else if ("fail".equals(mode)) {
            final String backend =
                JsonParser.parseString(new String(body, StandardCharsets.UTF_8))
                    .getAsJsonObject()
                    .get("backend")
                    .getAsString();
            reply =
                ("{\"backend\":\""
                        + backend
                        + "\",\"ingest\":\"ok\",\"routing\":\"failed\",\"t2\":\"skipped\","
                        + "\"errors\":[{\"stage\":\"routing\",\"message\":\"probe chain did not"
                        + " win PREFIX_MATCH\"}]}")
                    .getBytes(StandardCharsets.UTF_8);
          } else {
            status = 503;
            reply = "server unavailable\n".getBytes(StandardCharsets.UTF_8);
          }
          ex.sendResponseHeaders(status, reply.length == 0 ? -1 : reply.length);
          ex.getResponseBody().write(reply);
          ex.close();
        });
    probeFront.start();
    final ControllerOptions options =
        KubeFixture.controllerOptions(
            kube,
            server.snapshotUrl("/snapshot"),
            server.snapshotUrl("/policy"),
            dir.resolve("no-policy-token"),
            token,
            system);
    runtime =
        new ControllerRuntime(
            options,
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ofSeconds(30)),
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ZERO),
            identity,
            metrics,
            "http://127.0.0.1:" + probeFront.getAddress().getPort() + "/probe");
    runner = KubeFixture.runInBackground(runtime);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
  }

  /** Stops the controller, the probe pass-through and the server. */
  void close() throws Exception {
    channel.shutdownNow();
    runtime.close();
    runner.join(10_000);
    probeFront.stop(0);
    probeThreads.shutdownNow();
    server.close();
    Files.deleteIfExists(dir.resolve("controller-token"));
    Files.deleteIfExists(dir);
  }

  /** Waits (20 s) until CacheBackend {@code ns/name} satisfies {@code check}. */
  void awaitCb(final String ns, final String name, final ThrowingConsumer<JsonObject> check) {
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(() -> check.accept(cb(ns, name)));
  }

  void apply(final String yaml) {
    KubeFixture.apply(kube, yaml);
  }

  JsonObject cb(final String ns, final String name) {
    return KubeFixture.get(kube, "cachebackend", ns, name);
  }

  boolean hasEvent(final String ns, final String reason, final String type) throws Exception {
    return KubeFixture.hasEvent(kube, ns, reason, type, TransitionEvents.REPORTER);
  }

  /**
   * Replica {@code replica} of tenant {@code tenant} reports a chain of {@code blocks} blocks
   * through the real server's ReportCacheState.
   */
  void report(final String tenant, final String replica, final int blocks) throws Exception {
    send(chain(tenant, replica, blocks).build());
  }

  /** As {@link #report}, with cumulative tier-2 counters in the replica's stats. */
  void reportT2(
      final String tenant, final String replica, final long hitTokens, final long queryTokens)
      throws Exception {
    send(
        chain(tenant, replica, 1)
            .setStats(
                ReplicaStats.newBuilder()
                    .setHitRate(0.5f)
                    .setT2HitTokens(hitTokens)
                    .setT2QueryTokens(queryTokens))
            .build());
  }

  private static CacheStateUpdate.Builder chain(
      final String tenant, final String replica, final int blocks) {
    return CacheStateReports.chain(
        replica,
        "m",
        tenant,
        blocks,
        i ->
            ByteString.copyFrom(
                new byte[] {
                  9, 9, (byte) tenant.length(), (byte) replica.length(), 0, 0, 0, (byte) i
                }))
        .toBuilder();
  }

  private void send(final CacheStateUpdate update) throws Exception {
    assertThat(CacheStateReports.send(channel, 10, update).getAccepted()).isTrue();
  }

  /** A pod named {@code name} labelled with cache domain {@code domain}. */
  void enginePod(final String ns, final String name, final String domain) {
    apply(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: "
            + name
            + "\n  namespace: "
            + ns
            + "\n  labels: {inferencecache.io/cache-domain: "
            + domain
            + "}\nspec:\n  containers:\n"
            + "  - {name: engine, image: example.invalid/vllm:1}\n");
  }

  V1Deployment deployment(final String ns, final String name) throws Exception {
    return new AppsV1Api(kube.adminClient()).readNamespacedDeployment(name, ns).execute();
  }

  V1Deployment readOrNull(final String ns, final String name) {
    try {
      return deployment(ns, name);
    } catch (Exception e) {
      return null;
    }
  }

  /** Waits for the reconciler to create the managed Deployment {@code name}. */
  void awaitDeployment(final String ns, final String name) {
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .until(() -> readOrNull(ns, name) != null);
  }

  /** Plays the deployment controller: status for the current generation. */
  void patchDeploymentStatus(final String ns, final String name, final int available)
      throws Exception {
    KubeFixture.patchDeploymentStatus(kube, ns, name, available);
  }

  /** The count of one probe series ({@code backend, result, stage} as the family orders them). */
  long probeCount(final String backend, final String stage, final String result) {
    return metrics
        .registry()
        .counter(MetricFamily.BACKEND_PROBE_RESULT.registryName(backend, result, stage))
        .getCount();
  }

  /** An EventsOnly vLLM backend of {@code domain}. */
  static String eventsOnly(
      final String ns, final String name, final String domain, final String timeout) {
    return "apiVersion: "
        + KubeFixture.API
        + "\nkind: CacheBackend\nmetadata: {name: "
        + name
        + ", namespace: "
        + ns
        + "}\nspec:\n  runtime: VLLM\n  integration: {mode: EventsOnly}\n"
        + "  observation: {firstEventTimeout: "
        + timeout
        + "}\n  engineSelector:\n    matchLabels: {inferencecache.io/cache-domain: "
        + domain
        + "}\n";
  }

  /** A Managed Redis backend without the KV-event gate; {@code extra} goes under remoteStorage. */
  static String managed(final String ns, final String name, final String extra) {
    return "apiVersion: "
        + KubeFixture.API
        + "\nkind: CacheBackend\nmetadata:\n  name: "
        + name
        + "\n  namespace: "
        + ns
        + "\n  annotations: {inferencecache.io/require-kv-events: \"false\"}\n"
        + "spec:\n  runtime: VLLM\n  type: LMCache\n"
        + "  remoteStorage:\n    provider: Redis\n    ownership: Managed\n"
        + extra;
  }
}
