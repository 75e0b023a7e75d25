package io.inferencecache.controlplane.controller.backend;

import static io.inferencecache.controlplane.support.KubeFixture.assertCondition;
import static io.inferencecache.controlplane.support.KubeFixture.condition;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.gson.JsonObject;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1ContainerStatus;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodCondition;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * ConnectorReady, {@code status.connector} and the Ready they compose for typed LMCache PodLocal
 * backends, on kube-local against a real server ({@link BackendStack}). kube-local runs no kubelet:
 * the test creates engine pods as the pod webhook stamps them and writes the statuses a kubelet
 * would (the sidecar's readiness, the pod's Ready).
 */
@KubeLocalTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(240)
class ConnectorReadinessKubeIT {
  private KubeLocal kube;
  private BackendStack stack;

  @BeforeAll
  void start(final KubeLocal kube) throws Exception {
    this.kube = kube;
    this.stack = new BackendStack(kube, "connector-readiness-it");
  }

  @AfterAll
  void stop() throws Exception {
    stack.close();
  }

  /** A typed LMCache PodLocal vLLM backend of domain {@code name}; {@code extra} ends the spec. */
  private static String podLocal(
      final String ns, final String name, final int maxWorkers, final String extra) {
    return "apiVersion: "
        + KubeFixture.API
        + "\nkind: CacheBackend\nmetadata:\n  name: "
        + name
        + "\n  namespace: "
        + ns
        + "\n  annotations: {inferencecache.io/require-kv-events: \"false\"}\n"
        + "spec:\n  runtime: VLLM\n  type: LMCache\n"
        + "  lmCache:\n    topology: PodLocal\n    podLocal:\n      server:\n"
        + "        image: lmcache/server@sha256:"
        + "a".repeat(64)
        + "\n        port: 6555\n        l1Capacity: 1Gi\n        maxWorkers: "
        + maxWorkers
        + "\n        resources: {requests: {cpu: \"1\", memory: 2Gi}, limits: {memory: 2Gi}}\n"
        + "  engineSelector: {matchLabels: {inferencecache.io/cache-domain: "
        + name
        + "}}\n"
        + extra;
  }

  /** An engine pod of domain {@code domain}; {@code stamps} are its annotations (flow YAML). */
  private void enginePod(
      final String ns, final String name, final String domain, final String stamps) {
    stack.apply(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: "
            + name
            + "\n  namespace: "
            + ns
            + "\n  labels: {inferencecache.io/cache-domain: "
            + domain
            + "}\n  annotations: "
            + stamps
            + "\nspec:\n  initContainers:\n"
            + "  - {name: lmcache-mp-server, image: example.invalid/lmcache:1}\n"
            + "  containers:\n  - {name: vllm, image: example.invalid/vllm:1}\n");
  }

  /** The stamps the pod webhook writes for {@code ns/name} at its current generation. */
  private String stamps(final String ns, final String name) {
    final JsonObject meta = stack.cb(ns, name).getAsJsonObject("metadata");
    return "{inferencecache.io/injected-by: "
        + ns
        + "/"
        + name
        + ", inferencecache.io/injected-by-uid: "
        + meta.get("uid").getAsString()
        + ", inferencecache.io/injected-generation: \""
        + meta.get("generation").getAsLong()
        + "\"}";
  }

  /** Plays the kubelet: the pod's lmcache-mp-server and the pod itself report readiness. */
  private void patchReadiness(
      final String ns, final String name, final boolean server, final boolean engine)
      throws Exception {
    final CoreV1Api core = new CoreV1Api(kube.adminClient());
    final V1Pod pod = core.readNamespacedPod(name, ns).execute();
    pod.status(
        new V1PodStatus()
            .phase("Running")
            .conditions(
                List.of(new V1PodCondition().type("Ready").status(engine ? "True" : "False")))
            .initContainerStatuses(
                List.of(
                    new V1ContainerStatus()
                        .name("lmcache-mp-server")
                        .image("example.invalid/lmcache:1")
                        .imageID("")
                        .restartCount(0)
                        .ready(server))));
    core.replaceNamespacedPodStatus(name, ns, pod).execute();
  }

  private static JsonObject connector(final JsonObject cb) {
    return cb.getAsJsonObject("status").getAsJsonObject("connector");
  }

  @Test
  void hostOnlyConnectorGoesFromNoPodsThroughUnverifiedAndServersNotReadyToReady()
      throws Exception {
    final String ns = kube.newNamespace();
    stack.apply(podLocal(ns, "mp", 1, ""));
    stack.awaitCb(
        ns,
        "mp",
        cb -> {
          assertCondition(cb, "ConnectorReady", "False", "NoEnginePods");
          assertCondition(cb, "Ready", "False", "NoEnginePods");
          assertThat(connector(cb).get("matchedEnginePods").getAsInt()).isZero();
          assertThat(cb.getAsJsonObject("status").has("firstAvailableAt")).isFalse();
        });

    enginePod(ns, "stray", "mp", "{}");
    stack.awaitCb(
        ns,
        "mp",
        cb -> {
          assertThat(condition(cb, "ConnectorReady"))
              .containsExactly(
                  "Unknown",
                  "ConnectorInjectionUnverified",
                  "1/1 engine pod(s) not injected for generation 1 of this CacheBackend (stray);"
                      + " pods created before the backend, before its last spec change or admitted"
                      + " without injection (see the controller log) must be recreated, e.g."
                      + " kubectl rollout restart");
          assertCondition(cb, "Ready", "Unknown", "ConnectorInjectionUnverified");
          assertThat(connector(cb).getAsJsonArray("enginePodCoverage").get(0).toString())
              .isEqualTo(
                  "{\"covered\":false,\"name\":\"stray\",\"ready\":false,"
                      + "\"reason\":\"ConnectorInjectionUnverified\"}");
        });
    kube.kubectl("delete", "pod", "-n", ns, "stray", "--wait=false", "--grace-period=0", "--force");

    enginePod(ns, "engine-0", "mp", stamps(ns, "mp"));
    stack.awaitCb(
        ns,
        "mp",
        cb -> {
          assertCondition(cb, "ConnectorReady", "False", "MPServersNotReady");
          assertCondition(cb, "Ready", "False", "MPServersNotReady");
          assertThat(connector(cb).get("matchedEnginePods").getAsInt()).isEqualTo(1);
          assertThat(connector(cb).get("coveredEnginePods").getAsInt()).isZero();
        });

    patchReadiness(ns, "engine-0", true, true);
    stack.awaitCb(
        ns,
        "mp",
        cb -> {
          assertThat(condition(cb, "ConnectorReady"))
              .containsExactly(
                  "True", "ConnectorReady", "1/1 engine pods Ready with a ready lmcache-mp-server");
          assertCondition(cb, "Ready", "True", "ConnectorReady");
          final JsonObject c = connector(cb);
          assertThat(c.get("mode").getAsString()).isEqualTo("Multiprocess");
          assertThat(c.get("topology").getAsString()).isEqualTo("PodLocal");
          assertThat(c.get("readyServers").getAsInt()).isEqualTo(1);
          assertThat(c.get("coveredEnginePods").getAsInt()).isEqualTo(1);
          assertThat(c.get("uncoveredEnginePods").getAsInt()).isZero();
          assertThat(cb.getAsJsonObject("status").has("firstAvailableAt")).isTrue();
          assertThat(cb.getAsJsonObject("status").has("remoteStorage")).isFalse();
        });
    for (final String[] e :
        new String[][] {
          {"NoEnginePods", "Warning"},
          {"ConnectorInjectionUnverified", "Warning"},
          {"MPServersNotReady", "Warning"},
          {"ConnectorReady", "Normal"}
        }) {
      assertThat(stack.hasEvent(ns, e[0], e[1])).as("%s event", e[0]).isTrue();
    }

    // A spec change leaves the running pod injected for the previous generation.
    stack.apply(podLocal(ns, "mp", 2, ""));
    stack.awaitCb(
        ns,
        "mp",
        cb -> {
          assertThat(condition(cb, "ConnectorReady")[2])
              .startsWith("1/1 engine pod(s) not injected for generation 2");
          assertCondition(cb, "Ready", "Unknown", "ConnectorInjectionUnverified");
        });
    assertThat(
            KubeFixture.events(kube, ns).stream()
                .filter(e -> "ConnectorInjectionUnverified".equals(e.getReason()))
                .count())
        .as("one event per transition, the generation change included")
        .isEqualTo(2);
  }

  @Test
  void managedRedisPassesItsRolloutThroughReadyWhenFailClosed() throws Exception {
    final String ns = kube.newNamespace();
    stack.apply(
        podLocal(
            ns,
            "l2",
            1,
            "  remoteStorage: {provider: Redis, ownership: Managed}\n"
                + "  integration: {failOpen: false}\n"));
    stack.awaitDeployment(ns, "l2");
    enginePod(ns, "l2-0", "l2", stamps(ns, "l2"));
    patchReadiness(ns, "l2-0", true, true);
    stack.awaitCb(
        ns,
        "l2",
        cb -> {
          assertCondition(cb, "ConnectorReady", "True", "ConnectorReady");
          assertCondition(cb, "RemoteStorageReady", "Unknown", "RemoteStoragePending");
          assertCondition(cb, "Ready", "Unknown", "RemoteStoragePending");
        });
    stack.patchDeploymentStatus(ns, "l2", 1);
    stack.awaitCb(
        ns,
        "l2",
        cb -> {
          assertCondition(cb, "RemoteStorageReady", "True", "RemoteStorageReady");
          assertCondition(cb, "Ready", "True", "ConnectorReady");
          assertCondition(cb, "FunctionalProbeOK", "True", "ProbeOK");
          assertThat(
                  cb.getAsJsonObject("status")
                      .getAsJsonObject("remoteStorage")
                      .get("endpoint")
                      .getAsString())
              .isEqualTo("l2." + ns + ".svc.cluster.local:6379");
        });
    assertThat(stack.hasEvent(ns, "RemoteStorageReady", "Normal")).isTrue();
  }

  @Test
  void externalRemoteStorageGatesReadyOnlyWhenFailOpenIsFalse() throws Exception {
    final String ns = kube.newNamespace();
    final String external =
        "  remoteStorage: {provider: Redis, ownership: External, endpoint: \"redis://r:6379\"}\n";
    stack.apply(podLocal(ns, "open", 1, external));
    stack.apply(podLocal(ns, "closed", 1, external + "  integration: {failOpen: false}\n"));
    for (final String name : new String[] {"open", "closed"}) {
      stack.awaitCb(ns, name, cb -> assertCondition(cb, "ConnectorReady", "False", "NoEnginePods"));
      enginePod(ns, name + "-0", name, stamps(ns, name));
      patchReadiness(ns, name + "-0", true, true);
    }
    stack.awaitCb(
        ns,
        "open",
        cb -> {
          assertCondition(cb, "ConnectorReady", "True", "ConnectorReady");
          assertCondition(cb, "RemoteStorageReady", "False", "ExternalEndpointInvalid");
          assertThat(condition(cb, "Ready")).startsWith("True", "ConnectorReady");
          assertThat(condition(cb, "Ready")[2])
              .contains("remote storage is degraded (ExternalEndpointInvalid")
              .endsWith("does not gate Ready with integration.failOpen=true");
          assertThat(cb.getAsJsonObject("status").getAsJsonObject("remoteStorage").toString())
              .isEqualTo("{\"provider\":\"Redis\",\"ready\":\"False\"}");
        });
    stack.awaitCb(
        ns,
        "closed",
        cb -> {
          assertCondition(cb, "ConnectorReady", "True", "ConnectorReady");
          assertThat(condition(cb, "Ready"))
              .containsExactly(
                  "False",
                  "ExternalEndpointInvalid",
                  "spec.remoteStorage.endpoint must be a bare host:port, without a scheme (got"
                      + " \"redis://r:6379\")");
        });
  }
}
