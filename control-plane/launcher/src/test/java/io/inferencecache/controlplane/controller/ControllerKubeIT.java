package io.inferencecache.controlplane.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.sun.net.httpserver.HttpServer;
import io.inferencecache.controlplane.cli.ControllerCommand;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.kubernetes.client.openapi.apis.EventsV1Api;
import io.kubernetes.client.openapi.models.EventsV1Event;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller against kube-local (a real API server) and a loopback stand-in for the server's
 * snapshot listener that records every {@code /policy} body and serves a settable {@code
 * /snapshot}.
 */
@KubeLocalTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class ControllerKubeIT {
  private Path dir;
  private KubeLocal kube;
  private HttpServer server;
  private final ConcurrentLinkedDeque<String> bodies = new ConcurrentLinkedDeque<>();
  private final ConcurrentLinkedDeque<String> auth = new ConcurrentLinkedDeque<>();
  private final AtomicInteger policyStatus = new AtomicInteger(200);
  private final AtomicReference<String> snapshot = new AtomicReference<>();
  private final AtomicInteger snapshotGets = new AtomicInteger();
  private ControllerRuntime runtime;
  private Thread runner;

  @BeforeAll
  void start(final KubeLocal kube, @TempDir final Path dir) throws Exception {
    this.kube = kube;
    this.dir = dir;
    kube.applyCrdsFor120(KubeFixture.crds());
    server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext(
        "/policy",
        ex -> {
          bodies.add(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
          final String a = ex.getRequestHeaders().getFirst("Authorization");
          auth.add(a == null ? "" : a);
          final byte[] reply =
              policyStatus.get() == 200
                  ? new byte[0]
                  : "decode policy snapshot: refused by the test\n"
                      .getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(policyStatus.get(), reply.length == 0 ? -1 : reply.length);
          ex.getResponseBody().write(reply);
          ex.close();
        });
    server.createContext(
        "/snapshot",
        ex -> {
          snapshotGets.incrementAndGet();
          final String s = snapshot.get();
          if (s == null) {
            ex.sendResponseHeaders(503, -1);
            ex.close();
            return;
          }
          final byte[] b = s.getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, b.length);
          ex.getResponseBody().write(b);
          ex.close();
        });
    server.start();
    final String base = "http://127.0.0.1:" + server.getAddress().getPort();
    final String ns = kube.newNamespace();
    final Path policyToken = dir.resolve("policy-token");
    Files.writeString(
        policyToken, kube.createToken(ns, "controller", "inferencecache.io/policy") + "\n");
    final ControllerOptions options =
        KubeFixture.controllerOptions(
            kube,
            base + "/snapshot",
            base + "/policy",
            policyToken,
            dir.resolve("no-controller-token"),
            ns);
    runtime =
        new ControllerRuntime(
            options,
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ofSeconds(30)),
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ZERO),
            "it");
    runner = KubeFixture.runInBackground(runtime);
  }

  @AfterAll
  void stop() throws InterruptedException {
    runtime.close();
    runner.join(10_000);
    server.stop(0);
  }

  private void apply(final String yaml) {
    KubeFixture.apply(kube, yaml);
  }

  /** The policies[] entry of {@code ns} in the latest body, or null. */
  private JsonObject latestPolicy(final String ns) {
    final String last = bodies.peekLast();
    if (last == null) {
      return null;
    }
    for (final JsonElement e :
        JsonParser.parseString(last).getAsJsonObject().getAsJsonArray("policies")) {
      if (ns.equals(e.getAsJsonObject().get("namespace").getAsString())) {
        return e.getAsJsonObject();
      }
    }
    return null;
  }

  private JsonObject latestTenant(final String id) {
    final String last = bodies.peekLast();
    final JsonArray tenants =
        last == null
            ? null
            : JsonParser.parseString(last).getAsJsonObject().getAsJsonArray("tenants");
    if (tenants == null) {
      return null;
    }
    for (final JsonElement e : tenants) {
      if (id.equals(e.getAsJsonObject().get("tenantID").getAsString())) {
        return e.getAsJsonObject();
      }
    }
    return null;
  }

  @Test
  void aDefaultedPolicyReachesTheServerWithinTwoSecondsAndItsDeletionRemovesIt() {
    final String ns = kube.newNamespace();
    apply(
        "apiVersion: inferencecache.io/v1alpha1\nkind: CachePolicy\nmetadata: {name: default, namespace: "
            + ns
            + "}\nspec: {}\n");
    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () ->
                assertThat(latestPolicy(ns))
                    .isEqualTo(
                        JsonParser.parseString(
                            "{\"namespace\":\""
                                + ns
                                + "\",\"minimumMatchedTokens\":64,\"routingFloorScore\":0.1,"
                                + "\"affinityRouting\":true,\"eviction\":\"lru\"}")));
    final JsonObject body = JsonParser.parseString(bodies.peekLast()).getAsJsonObject();
    assertThat(body.get("version").getAsInt()).isEqualTo(7);
    assertThat(auth.peekLast()).startsWith("Bearer ey");
    assertThat(kube.kubectl("delete", "cachepolicy", "default", "-n", ns).exitCode()).isZero();
    await().atMost(Duration.ofSeconds(5)).until(() -> latestPolicy(ns) == null);
  }

  @Test
  void aTenantWithAQuotaAddsItsTenantsEntry() {
    final String ns = kube.newNamespace();
    apply(
        "apiVersion: inferencecache.io/v1alpha1\nkind: CacheTenant\nmetadata: {name: t, namespace: "
            + ns
            + "}\nspec: {tenantID: "
            + ns
            + "-id, quota: {maxIndexEntries: 25}}\n");
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(latestTenant(ns + "-id"))
                    .isEqualTo(
                        JsonParser.parseString(
                            "{\"tenantID\":\""
                                + ns
                                + "-id\",\"maxIndexEntries\":25,"
                                + "\"isolationMode\":\"Fairness\"}")));
  }

  @Test
  void aRefusedPushIsAWarningEventWithTheServersMessageAndIsRetried() throws Exception {
    final String ns = kube.newNamespace();
    policyStatus.set(400);
    try {
      final int before = bodies.size();
      apply(
          "apiVersion: inferencecache.io/v1alpha1\nkind: CachePolicy\nmetadata: {name: p, namespace: "
              + ns
              + "}\nspec: {}\n");
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () -> {
                final List<EventsV1Event> events =
                    new EventsV1Api(kube.adminClient())
                        .listNamespacedEvent(ns)
                        .execute()
                        .getItems();
                assertThat(events)
                    .anySatisfy(
                        e -> {
                          assertThat(e.getReason()).isEqualTo(PolicyPushReconciler.PUSH_FAILED);
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getNote()).contains("400").contains("refused by the test");
                          assertThat(e.getRegarding().getName()).isEqualTo("p");
                        });
              });
      // the backoff retries: more pushes than the one the change caused
      await().atMost(Duration.ofSeconds(10)).until(() -> bodies.size() >= before + 3);
    } finally {
      policyStatus.set(200);
    }
  }

  @Test
  void theCacheIndexExistsWhileTheServerIsDownThenMirrorsTheSnapshotOnlyOnChange() {
    snapshot.set(null);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> kube.kubectl("get", "cacheindex", "cluster-default").exitCode() == 0);
    snapshot.set(
        "{\"replicas\":[{\"replicaId\":\"r1\",\"tenant\":\"team-a\",\"cacheMemoryBytes\":0,"
            + "\"hitRate\":0.5,\"pressure\":0,\"lastUpdate\":\"2026-12-01T11:59:58.5Z\","
            + "\"prefixCount\":3,\"lastEventAt\":\"0001-01-01T00:00:00Z\",\"statsReported\":true}],"
            + "\"tenants\":[{\"tenantId\":\"team-a\",\"indexEntries\":3,\"hitRate\":0.5,"
            + "\"hitRateReported\":true,\"memoryUsed\":0},{\"tenantId\":\"team-b\",\"indexEntries\":1,"
            + "\"hitRate\":0,\"memoryUsed\":0}],\"totalPrefixes\":3,\"hotPrefixes\":0}\n");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                "3"
                    .equals(
                        kube.kubectl(
                                "get",
                                "cacheindex",
                                "cluster-default",
                                "-o",
                                "jsonpath={.status.prefixes.summary.total}")
                            .stdout()
                            .strip()));
    final String rv = resourceVersion();
    final int gets = snapshotGets.get();
    await().atMost(Duration.ofSeconds(10)).until(() -> snapshotGets.get() >= gets + 3);
    assertThat(resourceVersion()).isEqualTo(rv);
    final String yaml = kube.kubectl("get", "cacheindex", "cluster-default", "-o", "yaml").stdout();
    assertThat(yaml).doesNotContain("0001-01-01");
    assertThat(
            kube.kubectl(
                    "get",
                    "cacheindex",
                    "cluster-default",
                    "-o",
                    "jsonpath={.status.replicas[0].lastUpdate} {.status.replicas[0].hitRate}"
                        + " {.status.tenants[0].hitRate} {.status.tenants[1].id}"
                        + " {.status.tenants[1].indexEntries}")
                .stdout()
                .strip())
        .isEqualTo("2026-12-01T11:59:58Z 0.5 0.5 team-b 1");
  }

  private String resourceVersion() {
    return kube.kubectl(
            "get", "cacheindex", "cluster-default", "-o", "jsonpath={.metadata.resourceVersion}")
        .stdout()
        .strip();
  }
}
