package io.inferencecache.controlplane.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.protobuf.ByteString;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.controlplane.support.CacheStateReports;
import io.inferencecache.controlplane.support.Http;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller against a real {@code serve} process (the shaded jar, child process on loopback
 * ports) whose snapshot listener authenticates by TokenReview against kube-local. The controller
 * runs under the ServiceAccount {@code inference-cache-system/inference-cache-controller-manager}
 * with the shipped RBAC; its two bearer tokens are minted with the audiences {@code
 * inferencecache.io/policy} and {@code inferencecache.io/controller}. A recording relay in front of
 * the server's {@code /policy} keeps every body the controller sent and the server's answer to it.
 * The tests run in order: the first starts the server.
 */
@KubeLocalTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Timeout(240)
class ControllerServeIT {
  static final String SYSTEM = "inference-cache-system";
  static final String SA = "inference-cache-controller-manager";
  static final String TEAM = "team-a";
  static final String MODEL = "llama-3.1-8b";

  private KubeLocal kube;
  private Path dir;
  private int grpcPort;
  private int httpPort;
  private int snapshotPort;
  private Process server;
  private HttpServer relay;
  private final ConcurrentLinkedDeque<Exchange> pushes = new ConcurrentLinkedDeque<>();
  private final AtomicBoolean hangPolicy = new AtomicBoolean();
  private final CountDownLatch released = new CountDownLatch(1);
  private final HttpClient http = HttpClient.newHttpClient();
  private ControllerRuntime runtime;
  private Thread runner;
  private ManagedChannel channel;
  private String controllerToken;

  /** One POST the controller made: its body, its Authorization header and the server's status. */
  record Exchange(String body, String authorization, int status) {}

  @BeforeAll
  void start(final KubeLocal kube, @TempDir final Path dir) throws Exception {
    this.kube = kube;
    this.dir = dir;
    kube.applyCrdsFor120(KubeFixture.crds());
    for (final String ns : new String[] {SYSTEM, TEAM}) {
      kube.kubectl("create", "namespace", ns); // exists already when another class made it
    }
    // a known cluster: no custom resources left by other classes of this JVM
    for (final String kind : new String[] {"cachepolicies", "cachetenants"}) {
      assertThat(kube.kubectl("delete", kind, "--all", "-A").exitCode()).isZero();
    }
    kube.kubectl("delete", "cacheindex", CacheIndexStatus.NAME, "--ignore-not-found");
    assertThat(
            kube.kubectlWithInput(
                    ControllerRbacIT.rbac(SYSTEM, "", false),
                    "apply",
                    "--validate=false",
                    "-f",
                    "-")
                .exitCode())
        .isZero();
    final Path policyToken = dir.resolve("policy-token");
    Files.writeString(policyToken, kube.createToken(SYSTEM, SA, "inferencecache.io/policy"));
    controllerToken = kube.createToken(SYSTEM, SA, "inferencecache.io/controller");
    final Path controllerTokenFile = dir.resolve("controller-token");
    Files.writeString(controllerTokenFile, controllerToken + "\n");
    grpcPort = freePort();
    httpPort = freePort();
    snapshotPort = freePort();
    relay = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    relay.setExecutor(Executors.newFixedThreadPool(4));
    relay.createContext("/policy", this::relayPolicy);
    relay.start();
    final String apiToken = kube.createToken(SYSTEM, SA, KubeLocal.ISSUER);
    runtime =
        new ControllerRuntime(
            new ControllerOptions(
                "0",
                "127.0.0.1:0",
                true,
                "http://127.0.0.1:" + snapshotPort + "/snapshot",
                "http://127.0.0.1:" + relay.getAddress().getPort() + "/policy",
                Duration.ofSeconds(1),
                Duration.ofSeconds(30),
                null,
                policyToken,
                controllerTokenFile,
                SYSTEM,
                Duration.ofSeconds(15),
                Duration.ofSeconds(10),
                Duration.ofSeconds(2)),
            kube.clientWithToken(apiToken),
            kube.clientWithToken(apiToken),
            "serve-it");
    runner = KubeFixture.runInBackground(runtime);
  }

  @AfterAll
  void stop() throws Exception {
    released.countDown();
    if (runtime != null) {
      runtime.close();
      runner.join(10_000);
    }
    if (channel != null) {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
    stopServer();
    if (relay != null) {
      relay.stop(0);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Forwards a {@code /policy} POST to the real server and records it with the answer. */
  private void relayPolicy(final HttpExchange ex) throws IOException {
    final String body = new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
    final String auth = ex.getRequestHeaders().getFirst("Authorization");
    if (hangPolicy.get()) {
      try {
        released.await(8, TimeUnit.SECONDS); // longer than the controller's 5 s timeout
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    int status;
    byte[] answer;
    try {
      final HttpRequest.Builder req =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + snapshotPort + "/policy"))
              .timeout(Duration.ofSeconds(5))
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body));
      if (auth != null) {
        req.header("Authorization", auth);
      }
      final HttpResponse<byte[]> r =
          http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
      status = r.statusCode();
      answer = r.body();
    } catch (IOException e) {
      status = 502;
      answer = ("relay: server unreachable: " + e).getBytes(StandardCharsets.UTF_8);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      status = 502;
      answer = new byte[0];
    }
    pushes.add(new Exchange(body, auth == null ? "" : auth, status));
    ex.sendResponseHeaders(status, answer.length == 0 ? -1 : answer.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(answer);
    }
  }

  private void startServer() throws Exception {
    final Path config = dir.resolve("serve.yml");
    Files.writeString(config, "kubernetes:\n  kubeconfig: " + kube.kubeconfig() + "\n");
    server =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-jar",
                System.getProperty("inferencecache.jar"),
                "serve",
                "--grpc-bind-address=127.0.0.1:" + grpcPort,
                "--http-bind-address=127.0.0.1:" + httpPort,
                "--snapshot-bind-address=127.0.0.1:" + snapshotPort,
                "--allowed-controller-sa=system:serviceaccount:" + SYSTEM + ":" + SA,
                "--log-format=json",
                "--config=" + config)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("serve.log").toFile())
            .start();
    await()
        .atMost(Duration.ofSeconds(90))
        .ignoreExceptions()
        .until(() -> Http.get("http://127.0.0.1:" + httpPort + "/readyz").statusCode() == 200);
    channel = NettyChannelBuilder.forAddress("127.0.0.1", grpcPort).usePlaintext().build();
  }

  private void stopServer() throws InterruptedException {
    if (server != null) {
      server.toHandle().destroy();
      if (!server.waitFor(30, TimeUnit.SECONDS)) {
        server.toHandle().destroyForcibly();
      }
    }
  }

  private static ByteString hash(final int i) {
    return ByteString.copyFrom(new byte[] {9, 9, 9, 9, 0, 0, (byte) (i >>> 8), (byte) i});
  }

  /** ReportCacheState: {@code replica} of {@code tenant} holds a chain of {@code blocks} blocks. */
  private void ingest(final String tenant, final String replica, final int blocks)
      throws Exception {
    final CacheStateUpdate update =
        CacheStateReports.chain(replica, MODEL, tenant, blocks, ControllerServeIT::hash);
    assertThat(CacheStateReports.send(channel, 60, update).getAccepted()).isTrue();
  }

  private LookupRouteResponse lookup(final String tenant, final int blocks) {
    final LookupRouteRequest.Builder q =
        LookupRouteRequest.newBuilder().setModelId(MODEL).setTenantId(tenant).setHashScheme("vllm");
    for (int i = 0; i < blocks; i++) {
      q.addBlockHashes(hash(i)).addBlockTokenCounts(16);
    }
    return InferenceCacheGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .lookupRoute(q.build());
  }

  /**
   * The server's own {@code /snapshot}, read with the controller-audience token. The server answers
   * 503 while its TokenReview call to kube-local fails (a loaded machine): retried up to 30 s.
   */
  private JsonObject serverSnapshot() {
    final HttpResponse<String> ok =
        await()
            .atMost(Duration.ofSeconds(30))
            .until(
                () ->
                    Http.call(
                        "GET",
                        "http://127.0.0.1:" + snapshotPort + "/snapshot",
                        null,
                        "Bearer " + controllerToken),
                r -> r.statusCode() == 200);
    return JsonParser.parseString(ok.body()).getAsJsonObject();
  }

  /** {@code inferencecache_snapshot_auth_total{result="ok"}} of the server: polls it admitted. */
  private long admittedPolls() throws Exception {
    for (final String line :
        Http.get("http://127.0.0.1:" + httpPort + "/metrics").body().split("\n")) {
      if (line.startsWith("inferencecache_snapshot_auth_total{result=\"ok\"")) {
        return (long) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
      }
    }
    return 0;
  }

  private String jsonpath(final String kind, final String name, final String ns, final String p) {
    final String out =
        ns == null
            ? kube.kubectl("get", kind, name, "-o", "jsonpath=" + p).stdout()
            : kube.kubectl("get", kind, name, "-n", ns, "-o", "jsonpath=" + p).stdout();
    return out.strip();
  }

  private void awaitMirroredTotal(final long total, final Duration within) {
    await()
        .atMost(within)
        .until(
            () ->
                String.valueOf(total)
                    .equals(
                        jsonpath(
                            "cacheindex",
                            CacheIndexStatus.NAME,
                            null,
                            "{.status.prefixes.summary.total}")));
  }

  private void apply(final String yaml) {
    assertThat(kube.kubectlWithInput(yaml, "apply", "--validate=false", "-f", "-").exitCode())
        .isZero();
  }

  private Exchange lastPush() {
    return pushes.peekLast();
  }

  private static JsonObject json(final String text) {
    return JsonParser.parseString(text).getAsJsonObject();
  }

  @Test
  @Order(1)
  void theIndexExistsWhileTheServerIsDownAndMirrorsTheSnapshotOnceItIsBack() throws Exception {
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> kube.kubectl("get", "cacheindex", CacheIndexStatus.NAME).exitCode() == 0);
    await().atMost(Duration.ofSeconds(10)).until(() -> !pushes.isEmpty());
    assertThat(lastPush().status()).as("no server yet").isEqualTo(502);
    assertThat(runner.isAlive()).isTrue();

    startServer();
    ingest(TEAM, "vllm-0", 2);
    ingest("team-b", "vllm-1", 3);
    final long total = serverSnapshot().get("totalPrefixes").getAsLong();
    assertThat(total).isPositive();
    awaitMirroredTotal(total, Duration.ofSeconds(30));
    final String rv =
        jsonpath("cacheindex", CacheIndexStatus.NAME, null, "{.metadata.resourceVersion}");
    final long polls = admittedPolls();
    await().atMost(Duration.ofSeconds(15)).until(() -> admittedPolls() >= polls + 3);
    assertThat(jsonpath("cacheindex", CacheIndexStatus.NAME, null, "{.metadata.resourceVersion}"))
        .as("three identical polls write nothing")
        .isEqualTo(rv);
    assertThat(jsonpath("cacheindex", CacheIndexStatus.NAME, null, "{.status.observedServer}"))
        .isEqualTo("http://127.0.0.1:" + snapshotPort + "/snapshot");
    assertThat(kube.kubectl("get", "cacheindex", CacheIndexStatus.NAME, "-o", "yaml").stdout())
        .doesNotContain("0001-01-01");
    assertThat(serverSnapshot().toString())
        .as("the server does send zero times")
        .contains("0001-01-01");
  }

  @Test
  @Order(2)
  void aDefaultedPolicyReachesTheServerAndChangesTheAnswerThenItsDeletionEmptiesThePolicies()
      throws Exception {
    apply(
        "apiVersion: inferencecache.io/v1alpha1\nkind: CachePolicy\nmetadata: {name: default,"
            + " namespace: "
            + TEAM
            + "}\nspec: {}\n");
    final JsonObject expected =
        json(
            "{\"version\":7,\"policies\":[{\"namespace\":\"team-a\",\"minimumMatchedTokens\":64,"
                + "\"routingFloorScore\":0.1,\"affinityRouting\":true,\"eviction\":\"lru\"}]}");
    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              assertThat(json(lastPush().body())).isEqualTo(expected);
              assertThat(lastPush().status()).isEqualTo(204);
            });
    assertThat(lastPush().authorization()).startsWith("Bearer ey");
    // 2 blocks of 16 tokens: 32 matched tokens, under the defaulted floor of 64
    assertThat(lookup(TEAM, 2).getReasonCode()).isNotEqualTo("PREFIX_MATCH");
    assertThat(
            kube.kubectl(
                    "patch",
                    "cachepolicy",
                    "default",
                    "-n",
                    TEAM,
                    "--type=merge",
                    "-p",
                    "{\"spec\":{\"minimumMatchedTokens\":16}}")
                .exitCode())
        .isZero();
    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              final LookupRouteResponse r = lookup(TEAM, 2);
              assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
              assertThat(r.getReplicaScores(0).getReplicaId()).isEqualTo("vllm-0");
            });
    assertThat(kube.kubectl("delete", "cachepolicy", "default", "-n", TEAM).exitCode()).isZero();
    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              assertThat(lastPush().body()).isEqualTo("{\"version\":7,\"policies\":[]}");
              assertThat(lastPush().status()).isEqualTo(204);
            });
  }

  @Test
  @Order(3)
  void aTenantWithAQuotaAddsItsEntryAndItsStatusMirrorsTheSnapshot() throws Exception {
    apply(
        "apiVersion: inferencecache.io/v1alpha1\nkind: CacheTenant\nmetadata: {name: a, namespace: "
            + TEAM
            + "}\nspec: {tenantID: "
            + TEAM
            + ", quota: {maxIndexEntries: 100}}\n");
    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () -> {
              assertThat(json(lastPush().body()))
                  .isEqualTo(
                      json(
                          "{\"version\":7,\"policies\":[],\"tenants\":[{\"tenantID\":\"team-a\","
                              + "\"maxIndexEntries\":100,\"isolationMode\":\"Fairness\"}]}"));
              assertThat(lastPush().status()).isEqualTo(204);
            });
    long entries = -1;
    for (final var t : serverSnapshot().getAsJsonArray("tenants")) {
      if (TEAM.equals(t.getAsJsonObject().get("tenantId").getAsString())) {
        entries = t.getAsJsonObject().get("indexEntries").getAsLong();
      }
    }
    assertThat(entries).isPositive();
    final String want = entries + " True Observed False WithinBudget";
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                want.equals(
                    jsonpath(
                        "cachetenant",
                        "a",
                        TEAM,
                        "{.status.indexEntries} {.status.conditions[?(@.type==\"Ready\")].status}"
                            + " {.status.conditions[?(@.type==\"Ready\")].reason}"
                            + " {.status.conditions[?(@.type==\"QuotaExceeded\")].status}"
                            + " {.status.conditions[?(@.type==\"QuotaExceeded\")].reason}")));
    assertThat(kube.kubectl("get", "cachetenant", "a", "-n", TEAM, "-o", "yaml").stdout())
        .doesNotContain("0001-01-01");
  }

  @Test
  @Order(4)
  void aHangingPolicyEndpointNeitherBlocksTheMirrorNorStopsLaterPushes() throws Exception {
    hangPolicy.set(true);
    final int before = pushes.size();
    apply(
        "apiVersion: inferencecache.io/v1alpha1\nkind: CachePolicy\nmetadata: {name: slow,"
            + " namespace: "
            + TEAM
            + "}\nspec: {eviction: LFU}\n");
    ingest("team-c", "vllm-2", 4);
    final long total = serverSnapshot().get("totalPrefixes").getAsLong();
    awaitMirroredTotal(total, Duration.ofSeconds(4));
    assertThat(pushes.size()).as("the push is still hanging").isEqualTo(before);
    hangPolicy.set(false);
    released.countDown();
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              assertThat(lastPush().status()).isEqualTo(204);
              assertThat(lastPush().body()).contains("\"eviction\":\"lfu\"");
            });
    assertThat(runner.isAlive()).isTrue();
  }
}
