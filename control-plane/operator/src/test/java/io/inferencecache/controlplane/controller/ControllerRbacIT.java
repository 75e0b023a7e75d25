package io.inferencecache.controlplane.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import io.inferencecache.controlplane.controller.status.EventRecorder;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.kubernetes.client.openapi.apis.EventsV1Api;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The controller under a ServiceAccount token with the shipped RBAC ({@code
 * ops/config/rbac/controller.yaml}) does its whole job on kube-local (RBAC enforced); the same
 * scenario under a ClusterRole with one verb removed does not, so a missing verb fails this test.
 * The whole job: the Lease, the CacheIndex and its status, the CacheTenant status, and a refused
 * push's event (created, then its series patched by the backoff's repeats).
 */
@KubeLocalTest
@Timeout(240)
class ControllerRbacIT {
  @TempDir Path dir;

  static Path manifest() {
    return KubeFixture.crds().getParent().resolve("config/rbac/controller.yaml");
  }

  /** The shipped RBAC documents (ServiceAccount, roles, bindings) retargeted at {@code ns}. */
  static String rbac(final String ns, final String clusterRoleSuffix, final boolean dropUpdate)
      throws IOException {
    final StringBuilder out = new StringBuilder();
    for (final String doc : Files.readString(manifest()).split("\n---\n")) {
      if (doc.contains("kind: Deployment")) {
        continue;
      }
      String d =
          doc.replace("namespace: inference-cache-system", "namespace: " + ns)
              .replace(
                  "name: inference-cache-manager-role",
                  "name: inference-cache-manager-role" + clusterRoleSuffix)
              .replace(
                  "name: inference-cache-manager-rolebinding",
                  "name: inference-cache-manager-rolebinding" + clusterRoleSuffix);
      if (dropUpdate && d.contains("kind: ClusterRole\n") && d.contains("\nrules:")) {
        // cacheindices/status loses "update", the verb of the CacheIndex status write
        final String granted = "resources: [\"cacheindices/status\"]\n    verbs: [\"update\"]";
        assertThat(d).contains(granted);
        d = d.replace(granted, "resources: [\"cacheindices/status\"]\n    verbs: [\"patch\"]");
      }
      out.append(d).append("\n---\n");
    }
    return out.toString();
  }

  /** Runs the controller as the shipped SA of {@code ns}; true if it wrote the tenant status. */
  private boolean controllerWritesTenantStatus(
      final KubeLocal kube, final String ns, final String rbac) throws Exception {
    assertThat(kube.kubectlWithInput(rbac, "apply", "--validate=false", "-f", "-").exitCode())
        .isZero();
    final String token =
        kube.createToken(ns, "inference-cache-controller-manager", KubeLocal.ISSUER);
    final HttpServer server =
        HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 16);
    final AtomicInteger pushes = new AtomicInteger();
    server.setExecutor(Executors.newFixedThreadPool(2));
    server.createContext(
        "/policy",
        ex -> {
          ex.getRequestBody().readAllBytes();
          pushes.incrementAndGet();
          // refused: the controller records (creates, then patches) a PolicyPushFailed event
          final byte[] refusal =
              "decode policy snapshot: refused by the rbac test".getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(400, refusal.length);
          ex.getResponseBody().write(refusal);
          ex.close();
        });
    server.createContext(
        "/snapshot",
        ex -> {
          final byte[] b =
              ("{\"replicas\":null,\"tenants\":[{\"tenantId\":\""
                      + ns
                      + "\",\"indexEntries\":2,\"hitRate\":0}],\"totalPrefixes\":2,"
                      + "\"hotPrefixes\":0}")
                  .getBytes(StandardCharsets.UTF_8);
          ex.sendResponseHeaders(200, b.length);
          ex.getResponseBody().write(b);
          ex.close();
        });
    server.start();
    assertThat(
            kube.kubectlWithInput(
                    "apiVersion: inferencecache.io/v1alpha1\nkind: CacheTenant\nmetadata: {name: t,"
                        + " namespace: "
                        + ns
                        + "}\nspec: {tenantID: "
                        + ns
                        + ", quota: {maxIndexEntries: 1}}\n",
                    "apply",
                    "--validate=false",
                    "-f",
                    "-")
                .exitCode())
        .isZero();
    final String base = "http://127.0.0.1:" + server.getAddress().getPort();
    final ControllerRuntime runtime =
        new ControllerRuntime(
            new ControllerOptions(
                "0",
                "127.0.0.1:0",
                true,
                base + "/snapshot",
                base + "/policy",
                Duration.ofSeconds(1),
                Duration.ofSeconds(1),
                null,
                dir.resolve("none"),
                dir.resolve("none"),
                ns,
                Duration.ofSeconds(6),
                Duration.ofSeconds(4),
                Duration.ofSeconds(1)),
            kube.clientWithToken(token),
            kube.clientWithToken(token),
            "rbac-" + ns);
    final Thread runner = KubeFixture.runInBackground(runtime);
    try {
      await()
          .atMost(Duration.ofSeconds(40))
          .until(
              () ->
                  "OverEntryBudget"
                      .equals(
                          kube.kubectl(
                                  "get",
                                  "cachetenant",
                                  "t",
                                  "-n",
                                  ns,
                                  "-o",
                                  "jsonpath={.status.conditions[?(@.type==\"QuotaExceeded\")].reason}")
                              .stdout()
                              .strip()));
      assertThat(pushes.get()).isPositive();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () ->
                  new EventsV1Api(kube.adminClient())
                      .listNamespacedEvent(ns).execute().getItems().stream()
                          .anyMatch(
                              e ->
                                  PolicyPushReconciler.PUSH_FAILED.equals(e.getReason())
                                      && EventRecorder.CONTROLLER.equals(e.getReportingController())
                                      && e.getNote().contains("refused by the rbac test")
                                      && e.getSeries() != null
                                      && e.getSeries().getCount() >= 2));
      return true;
    } catch (ConditionTimeoutException e) {
      return false;
    } finally {
      runtime.close();
      runner.join(10_000);
      server.stop(0);
    }
  }

  @Test
  void theShippedRbacIsEnoughAndAMissingVerbIsNot(final KubeLocal kube) throws Exception {
    kube.applyCrdsFor120(KubeFixture.crds());
    final String full = kube.newNamespace();
    assertThat(controllerWritesTenantStatus(kube, full, rbac(full, "-" + full, false)))
        .as("the shipped ClusterRole and leader-election Role")
        .isTrue();
    final String reduced = kube.newNamespace();
    assertThat(controllerWritesTenantStatus(kube, reduced, rbac(reduced, "-" + reduced, true)))
        .as("a ClusterRole without update on the status subresources")
        .isFalse();
  }
}
