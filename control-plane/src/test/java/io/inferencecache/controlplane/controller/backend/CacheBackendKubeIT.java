package io.inferencecache.controlplane.controller.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpServer;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.inferencecache.controlplane.cli.ControllerCommand;
import io.inferencecache.controlplane.config.ServeOverrides;
import io.inferencecache.controlplane.controller.ControllerOptions;
import io.inferencecache.controlplane.controller.ControllerRuntime;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.kubernetes.client.openapi.apis.AppsV1Api;
import io.kubernetes.client.openapi.apis.EventsV1Api;
import io.kubernetes.client.openapi.models.EventsV1Event;
import io.kubernetes.client.openapi.models.V1Deployment;
import io.kubernetes.client.openapi.models.V1DeploymentStatus;
import io.kubernetes.client.openapi.models.V1OwnerReference;
import io.kubernetes.client.openapi.models.V1Service;
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
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * The CacheBackend reconciler on kube-local against a real server ({@code serve} in process, its
 * bridge authenticating the controller's projected-style token through kube-local's TokenReview).
 * The controller's probe URL goes through a loopback pass-through in front of the server's {@code
 * /probe}, which a test can switch to answer a failed stage or 503 (the server unavailable).
 */
@KubeLocalTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(300)
class CacheBackendKubeIT {
  static final String API = "inferencecache.io/v1alpha1";
  private Path dir;
  private KubeLocal kube;
  private TestServer server;
  private HttpServer probeFront;
  private ControllerRuntime runtime;
  private Thread runner;
  private ManagedChannel channel;
  private final io.inferencecache.controlplane.controller.ControllerMetrics metrics =
      new io.inferencecache.controlplane.controller.ControllerMetrics(
          new com.codahale.metrics.MetricRegistry());
  private final AtomicReference<String> probeMode = new AtomicReference<>("pass");

  @BeforeAll
  void start(final KubeLocal kube) throws Exception {
    this.kube = kube;
    this.dir = Files.createTempDirectory("backend-it");
    kube.applyCrdsFor120(crds());
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
    probeFront.setExecutor(Executors.newFixedThreadPool(2));
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
        new ControllerOptions(
            "0",
            "127.0.0.1:0",
            false,
            server.snapshotUrl("/snapshot"),
            server.snapshotUrl("/policy"),
            Duration.ofSeconds(1),
            Duration.ofSeconds(30),
            kube.kubeconfig(),
            dir.resolve("no-policy-token"),
            token,
            system,
            Duration.ofSeconds(15),
            Duration.ofSeconds(10),
            Duration.ofSeconds(2));
    runtime =
        new ControllerRuntime(
            options,
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ofSeconds(30)),
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ZERO),
            "backend-it",
            metrics,
            "http://127.0.0.1:" + probeFront.getAddress().getPort() + "/probe");
    runner = run(runtime);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", server.grpcPort()).usePlaintext().build();
  }

  @AfterAll
  void stop() throws Exception {
    channel.shutdownNow();
    runtime.close();
    runner.join(10_000);
    probeFront.stop(0);
    server.close();
    Files.deleteIfExists(dir.resolve("controller-token"));
    Files.deleteIfExists(dir);
  }

  static Thread run(final ControllerRuntime runtime) {
    final Thread t =
        new Thread(
            () -> {
              try {
                runtime.run();
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "controller-under-test");
    t.start();
    return t;
  }

  static Path crds() {
    Path p = Path.of("").toAbsolutePath();
    while (p != null && !Files.isDirectory(p.resolve("ops/crds"))) {
      p = p.getParent();
    }
    return p.resolve("ops/crds");
  }

  private void apply(final String yaml) {
    assertThat(kube.kubectlWithInput(yaml, "apply", "--validate=false", "-f", "-").exitCode())
        .isZero();
  }

  private JsonObject cb(final String ns, final String name) {
    final var r = kube.kubectl("get", "cachebackend", name, "-n", ns, "-o", "json");
    assertThat(r.exitCode()).isZero();
    return JsonParser.parseString(r.stdout()).getAsJsonObject();
  }

  /** {@code [status, reason, message]} of condition {@code type}, or null. */
  private String[] condition(final JsonObject cb, final String type) {
    final JsonObject status = cb.getAsJsonObject("status");
    if (status == null || !status.has("conditions")) {
      return null;
    }
    for (final var e : status.getAsJsonArray("conditions")) {
      final JsonObject c = e.getAsJsonObject();
      if (type.equals(c.get("type").getAsString())) {
        return new String[] {
          c.get("status").getAsString(),
          c.get("reason").getAsString(),
          c.get("message").getAsString()
        };
      }
    }
    return null;
  }

  private List<EventsV1Event> events(final String ns) throws Exception {
    return new EventsV1Api(kube.adminClient()).listNamespacedEvent(ns).execute().getItems();
  }

  private boolean hasEvent(
      final String ns, final String reason, final String type, final String reporter)
      throws Exception {
    return events(ns).stream()
        .anyMatch(
            e ->
                reason.equals(e.getReason())
                    && type.equals(e.getType())
                    && reporter.equals(e.getReportingController()));
  }

  private static String eventsOnly(
      final String ns, final String name, final String domain, final String timeout) {
    return "apiVersion: "
        + API
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

  @Test
  void eventsOnlyWithoutPodsAwaitsTheFirstEventThenTimesOutDegraded() {
    final String ns = kube.newNamespace();
    apply(eventsOnly(ns, "cb", "d1", "10s"));
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "cb");
              final JsonObject st = cb.getAsJsonObject("status");
              assertThat(st).isNotNull();
              assertThat(st.get("matchedEnginePods").getAsInt()).isZero();
              assertThat(st.get("engineSelectorMessage").getAsString())
                  .isEqualTo(
                      "spec.engineSelector.matchLabels={inferencecache.io/cache-domain:d1}; no"
                          + " Pods in namespace match");
              assertThat(condition(cb, "Ready")).startsWith("False", "AwaitingFirstKVEvent");
              assertThat(condition(cb, "Progressing")).startsWith("True", "AwaitingFirstKVEvent");
              assertThat(condition(cb, "Degraded")).startsWith("False", "NotDegraded");
              assertThat(
                      hasEvent(ns, "EngineSelectorUnmatched", "Normal", TransitionEvents.REPORTER))
                  .isTrue();
              assertThat(hasEvent(ns, "AwaitingFirstKVEvent", "Normal", TransitionEvents.REPORTER))
                  .isTrue();
            });
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "cb");
              assertThat(condition(cb, "Ready")).startsWith("False", "NoKVEventsObserved");
              assertThat(condition(cb, "Degraded")).startsWith("True", "NoKVEventsObserved");
              assertThat(condition(cb, "Ready")[2]).contains("within 10s");
              assertThat(hasEvent(ns, "NoKVEventsObserved", "Warning", TransitionEvents.REPORTER))
                  .isTrue();
            });
    assertThat(kube.kubectl("get", "cb", "cb", "-n", ns).stdout())
        .containsPattern("cb\\s+LMCache\\s+False\\s+0\\s+0\\s+\\d+s\\n");
  }

  private void report(final String tenant, final String replica, final int blocks)
      throws Exception {
    final PrefixEntry.Builder chain = PrefixEntry.newBuilder();
    for (int i = 0; i < blocks; i++) {
      chain
          .addBlockHashes(
              com.google.protobuf.ByteString.copyFrom(
                  new byte[] {9, 9, (byte) tenant.length(), 0, 0, 0, 0, (byte) i}))
          .addBlockTokenCounts(16);
    }
    final CompletableFuture<Ack> ack = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> in =
        InferenceCacheGrpc.newStub(channel)
            .reportCacheState(
                new StreamObserver<>() {
                  @Override
                  public void onNext(final Ack value) {
                    ack.complete(value);
                  }

                  @Override
                  public void onError(final Throwable t) {
                    ack.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    in.onNext(
        CacheStateUpdate.newBuilder()
            .setReplicaId(replica)
            .setModelId("m")
            .setTenantId(tenant)
            .setHashScheme("vllm")
            .addPrefixes(chain)
            .build());
    in.onCompleted();
    assertThat(ack.get(10, TimeUnit.SECONDS).getAccepted()).isTrue();
  }

  @Test
  void aMatchingPodWhoseReplicaReportsOpensTheGateAndShowsPrefixes() throws Exception {
    final String ns = kube.newNamespace();
    apply(eventsOnly(ns, "cb", "d2", "5m0s"));
    apply(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: engine-0\n  namespace: "
            + ns
            + "\n  labels: {inferencecache.io/cache-domain: d2}\nspec:\n  containers:\n"
            + "  - {name: engine, image: example.invalid/vllm:1}\n");
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "cb");
              assertThat(cb.getAsJsonObject("status").get("matchedEnginePods").getAsInt())
                  .isEqualTo(1);
              assertThat(cb.getAsJsonObject("status").has("engineSelectorMessage")).isFalse();
              assertThat(condition(cb, "Ready")).startsWith("False", "AwaitingFirstKVEvent");
            });
    report(ns, "engine-0", 3);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "cb");
              final JsonObject st = cb.getAsJsonObject("status");
              assertThat(condition(cb, "Ready")).startsWith("True", "KVEventsObserved");
              assertThat(condition(cb, "Progressing")).startsWith("False", "Synced");
              assertThat(st.get("firstKVEventObservedAt").getAsString()).endsWith("Z");
              assertThat(st.getAsJsonObject("indexParticipation").get("prefixCount").getAsLong())
                  .isEqualTo(3);
              assertThat(hasEvent(ns, "KVEventsObserved", "Normal", TransitionEvents.REPORTER))
                  .isTrue();
            });
    final String table = kube.kubectl("get", "cb", "-n", ns).stdout();
    assertThat(table)
        .containsPattern("TYPE\\s+READY\\s+MATCHED\\s+REMOTE\\s+PREFIXES\\s+LASTEVENT");
    assertThat(table).containsPattern("cb\\s+LMCache\\s+True\\s+1\\s+3\\s+\\d+s\\s+\\d+s\\n");
  }

  private static String managed(final String ns, final String name, final String extra) {
    return "apiVersion: "
        + API
        + "\nkind: CacheBackend\nmetadata:\n  name: "
        + name
        + "\n  namespace: "
        + ns
        + "\n  annotations: {inferencecache.io/require-kv-events: \"false\"}\n"
        + "spec:\n  runtime: VLLM\n  type: LMCache\n"
        + "  remoteStorage:\n    provider: Redis\n    ownership: Managed\n"
        + extra;
  }

  private V1Deployment deployment(final String ns, final String name) throws Exception {
    return new AppsV1Api(kube.adminClient()).readNamespacedDeployment(name, ns).execute();
  }

  /** Plays the deployment controller: status for the current generation. */
  private void patchDeploymentStatus(final String ns, final String name, final int available)
      throws Exception {
    final AppsV1Api apps = new AppsV1Api(kube.adminClient());
    final V1Deployment d = apps.readNamespacedDeployment(name, ns).execute();
    d.status(
        new V1DeploymentStatus()
            .observedGeneration(d.getMetadata().getGeneration())
            .replicas(1)
            .updatedReplicas(1)
            .readyReplicas(available == 0 ? null : available)
            .availableReplicas(available == 0 ? null : available)
            .unavailableReplicas(available == 0 ? 1 : null));
    apps.replaceNamespacedDeploymentStatus(name, ns, d).execute();
  }

  @Test
  void managedRedisIsOwnedReadyProbedUpdatedAndCollectedWithTheCr() throws Exception {
    final String ns = kube.newNamespace();
    probeMode.set("pass");
    apply(managed(ns, "l2", ""));
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .until(() -> readOrNull(ns, "l2") != null);
    final V1Service svc =
        await()
            .ignoreExceptions()
            .atMost(Duration.ofSeconds(20))
            .until(
                () ->
                    new io.kubernetes.client.openapi.apis.CoreV1Api(kube.adminClient())
                        .readNamespacedService("l2", ns)
                        .execute(),
                java.util.Objects::nonNull);
    final V1Deployment d = deployment(ns, "l2");
    final String uid = cb(ns, "l2").getAsJsonObject("metadata").get("uid").getAsString();
    for (final List<V1OwnerReference> refs :
        List.of(d.getMetadata().getOwnerReferences(), svc.getMetadata().getOwnerReferences())) {
      assertThat(refs).hasSize(1);
      assertThat(refs.get(0).getUid()).isEqualTo(uid);
      assertThat(refs.get(0).getKind()).isEqualTo("CacheBackend");
      assertThat(refs.get(0).getController()).isTrue();
      assertThat(refs.get(0).getBlockOwnerDeletion()).isTrue();
    }
    final var c = d.getSpec().getTemplate().getSpec().getContainers();
    assertThat(c).hasSize(1);
    assertThat(c.get(0).getName()).isEqualTo("redis-l2");
    assertThat(c.get(0).getImage()).isEqualTo("docker.io/library/redis:7.4-alpine");
    assertThat(c.get(0).getArgs())
        .containsExactly(
            "redis-server",
            "--save",
            "",
            "--appendonly",
            "no",
            "--protected-mode",
            "no",
            "--maxmemory",
            "6871947673",
            "--maxmemory-policy",
            "allkeys-lru");
    assertThat(c.get(0).getReadinessProbe().getTcpSocket().getPort().getStrValue())
        .isEqualTo("redis");
    assertThat(c.get(0).getResources().getLimits().get("memory").toSuffixedString())
        .isEqualTo("8Gi");
    assertThat(svc.getSpec().getPorts().get(0).getPort()).isEqualTo(6379);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () ->
                assertThat(condition(cb(ns, "l2"), "Ready"))
                    .startsWith("False", "RolloutInProgress"));

    patchDeploymentStatus(ns, "l2", 1);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "l2");
              assertThat(condition(cb, "Ready")).startsWith("True", "BackendReady");
              assertThat(condition(cb, "FunctionalProbeOK")).startsWith("True", "ProbeOK");
              assertThat(condition(cb, "RemoteStorageReady"))
                  .startsWith("True", "RemoteStorageReady");
              assertThat(
                      cb.getAsJsonObject("status")
                          .getAsJsonObject("remoteStorage")
                          .get("endpoint")
                          .getAsString())
                  .isEqualTo("l2." + ns + ".svc.cluster.local:6379");
            });
    final String key = ns + "/l2";
    assertThat(probeCount(key, "ingest", "ok")).isGreaterThanOrEqualTo(1);
    assertThat(probeCount(key, "routing", "ok")).isGreaterThanOrEqualTo(1);
    assertThat(probeCount(key, "t2", "skipped")).isGreaterThanOrEqualTo(1);
    assertThat(kube.kubectl("get", "cb", "l2", "-n", ns).stdout())
        .containsPattern("l2\\s+LMCache\\s+True\\s+l2\\." + ns + "\\.svc\\.cluster\\.local:6379");

    apply(
        managed(
            ns,
            "l2",
            "    redis:\n      image: docker.io/library/redis:7.2-alpine\n"
                + "      resources: {requests: {memory: 1Gi}, limits: {memory: 2Gi}}\n"));
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final var live =
                  deployment(ns, "l2").getSpec().getTemplate().getSpec().getContainers();
              assertThat(live.get(0).getImage()).isEqualTo("docker.io/library/redis:7.2-alpine");
              assertThat(live.get(0).getArgs()).contains("1717986918");
            });
    // kube-local runs no garbage collector: deletion of the children is the API server's GC acting
    // on the controller owner references asserted above; here the reconciler must not recreate
    // anything for a CR that is gone.
    assertThat(kube.kubectl("delete", "cb", "l2", "-n", ns).exitCode()).isZero();
    assertThat(kube.kubectl("get", "cb", "-n", ns, "-o", "name").stdout().strip()).isEmpty();
  }

  /** The count of one probe series ({@code backend, result, stage} as the family orders them). */
  private long probeCount(final String backend, final String stage, final String result) {
    return metrics
        .registry()
        .counter(
            io.inferencecache.controlplane.metrics.MetricFamily.BACKEND_PROBE_RESULT.registryName(
                backend, result, stage))
        .getCount();
  }

  private V1Deployment readOrNull(final String ns, final String name) {
    try {
      return deployment(ns, name);
    } catch (Exception e) {
      return null;
    }
  }

  private String resourceVersion(final String ns, final String name) {
    return cb(ns, name).getAsJsonObject("metadata").get("resourceVersion").getAsString();
  }

  /** No status write for {@code window} while the verdict is steady: the bound is 0 per window. */
  private void assertNoWritesFor(final String ns, final String name, final Duration window) {
    final String rv = resourceVersion(ns, name);
    await()
        .ignoreExceptions()
        .during(window)
        .atMost(window.plusSeconds(10))
        .pollInterval(Duration.ofSeconds(1))
        .until(() -> rv.equals(resourceVersion(ns, name)));
  }

  @Test
  void redisThatNeverBecomesReadyIsReplicasUnavailableWithoutHotLooping() throws Exception {
    final String ns = kube.newNamespace();
    apply(managed(ns, "stuck", ""));
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .until(() -> readOrNull(ns, "stuck") != null);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "stuck");
              assertThat(condition(cb, "Ready")).startsWith("False", "RolloutInProgress");
              assertThat(condition(cb, "Progressing")).startsWith("True", "RolloutInProgress");
              assertThat(condition(cb, "RemoteStorageReady"))
                  .startsWith("Unknown", "RemoteStoragePending");
            });
    patchDeploymentStatus(ns, "stuck", 0);
    await()
        .ignoreExceptions()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              final JsonObject cb = cb(ns, "stuck");
              assertThat(condition(cb, "Ready")).startsWith("False", "ReplicasUnavailable");
              assertThat(condition(cb, "Ready")[2])
                  .contains("0/1 replicas available")
                  .contains("kubectl describe deployment stuck");
              assertThat(condition(cb, "Degraded")).startsWith("True", "ReplicasUnavailable");
              assertThat(condition(cb, "Progressing")).startsWith("False", "Degraded");
              assertThat(hasEvent(ns, "BackendDegraded", "Warning", TransitionEvents.REPORTER))
                  .isTrue();
            });
    assertNoWritesFor(ns, "stuck", Duration.ofSeconds(35));
  }

  @Test
  void aFailingProbeStageAndAnUnavailableServerLandAsProbeConditions() throws Exception {
    final String ns = kube.newNamespace();
    probeMode.set("fail");
    try {
      apply(managed(ns, "pf", ""));
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(20))
          .until(() -> readOrNull(ns, "pf") != null);
      patchDeploymentStatus(ns, "pf", 1);
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                final JsonObject cb = cb(ns, "pf");
                assertThat(condition(cb, "FunctionalProbeOK"))
                    .containsExactly(
                        "False", "ProbeRoutingFailed", "probe chain did not win PREFIX_MATCH");
                assertThat(condition(cb, "Ready"))
                    .containsExactly(
                        "False",
                        "ProbeRoutingFailed",
                        "functional probe failed: probe chain did not win PREFIX_MATCH");
              });
      assertThat(probeCount(ns + "/pf", "routing", "failed")).isGreaterThanOrEqualTo(1);

      final String ns2 = kube.newNamespace();
      probeMode.set("down");
      apply(managed(ns2, "sd", ""));
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(20))
          .until(() -> readOrNull(ns2, "sd") != null);
      patchDeploymentStatus(ns2, "sd", 1);
      await()
          .ignoreExceptions()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                final JsonObject cb = cb(ns2, "sd");
                final String[] probe = condition(cb, "FunctionalProbeOK");
                assertThat(probe).startsWith("Unknown", "ProbeError");
                assertThat(probe[2]).contains("answered 503: server unavailable");
                assertThat(condition(cb, "Ready")).startsWith("True", "BackendReady");
              });
      assertNoWritesFor(ns2, "sd", Duration.ofSeconds(35));
    } finally {
      probeMode.set("pass");
    }
  }
}
