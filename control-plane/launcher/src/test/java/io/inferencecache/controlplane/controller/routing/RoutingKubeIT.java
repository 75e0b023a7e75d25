package io.inferencecache.controlplane.controller.routing;

import static io.inferencecache.controlplane.support.KubeFixture.condition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import io.inferencecache.controlplane.cli.ControllerCommand;
import io.inferencecache.controlplane.controller.ControllerOptions;
import io.inferencecache.controlplane.controller.ControllerRuntime;
import io.inferencecache.controlplane.k8s.model.PromptTemplate;
import io.inferencecache.controlplane.k8s.validation.TemplateSpecs;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.Http;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.inferencecache.templates.TemplateRevision;
import io.kubernetes.client.openapi.JSON;
import io.kubernetes.client.openapi.apis.CoreV1Api;
import io.kubernetes.client.openapi.models.V1Pod;
import io.kubernetes.client.openapi.models.V1PodStatus;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The PDTopology and PromptTemplate reconcilers against kube-local (a real API server; no scheduler
 * or kubelet, so the test plays the kubelet by writing pod status) and an in-process server on
 * loopback that receives the pushes. No admission webhook is registered here, so a resource that
 * breaks the rules reaches the reconciler.
 */
@KubeLocalTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(180)
class RoutingKubeIT {
  private KubeLocal kube;
  private TestServer server;
  private ControllerRuntime runtime;
  private Thread runner;

  @BeforeAll
  void start(final KubeLocal kube, @TempDir final Path dir) throws Exception {
    this.kube = kube;
    kube.applyCrdsFor120(KubeFixture.crds());
    server = TestServer.start(ServeOverrides.NONE.insecure(), null);
    final ControllerOptions options =
        KubeFixture.controllerOptions(
            kube,
            server.snapshotUrl("/snapshot"),
            server.snapshotUrl("/policy"),
            dir.resolve("no-policy-token"),
            dir.resolve("no-controller-token"),
            kube.newNamespace());
    runtime =
        new ControllerRuntime(
            options,
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ofSeconds(30)),
            ControllerCommand.kubeClient(kube.kubeconfig(), Duration.ZERO),
            "routing-it");
    runner = KubeFixture.runInBackground(runtime);
  }

  @AfterAll
  void stop() throws InterruptedException {
    if (runtime != null) {
      runtime.close();
      runner.join(10_000);
    }
    if (server != null) {
      server.close();
    }
  }

  private static String topology(final String ns, final String name, final String spec) {
    return resource("PDTopology", ns, name, spec);
  }

  private static String template(final String ns, final String name, final String spec) {
    return resource("PromptTemplate", ns, name, spec);
  }

  private static String resource(
      final String kind, final String ns, final String name, final String spec) {
    return "apiVersion: inferencecache.io/v1alpha1\nkind: "
        + kind
        + "\nmetadata: {name: "
        + name
        + ", namespace: "
        + ns
        + "}\nspec: "
        + spec
        + "\n";
  }

  private static final String POOLS =
      "{prefillPools: [{name: prefill, acceleratorType: h100, matchLabels: {role: prefill}}],"
          + " decodePools: [{name: decode, acceleratorType: h100, matchLabels: {role: decode}}],"
          + " acceleratorTypes: [{name: h100, vendor: nvidia, model: H100-80GB}],"
          + " transport: NIXL, decodeLocalPrefillTokens: 256,"
          + " links: {sameNodeGBps: 300, crossGBps: 10}, kvBytesPerToken: 131072}";

  /** Creates pod {@code ns/name} on {@code node} and plays its kubelet: phase {@code phase}. */
  private void pod(
      final String ns, final String name, final String role, final String node, final String phase)
      throws Exception {
    KubeFixture.apply(
        kube,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: "
            + name
            + ", namespace: "
            + ns
            + ", labels: {role: "
            + role
            + "}}\nspec:\n  nodeName: "
            + node
            + "\n  containers:\n  - {name: engine, image: example.invalid/vllm:1}\n");
    final CoreV1Api core = new CoreV1Api(kube.adminClient());
    final V1Pod pod = core.readNamespacedPod(name, ns).execute();
    pod.status(new V1PodStatus().phase(phase));
    core.replaceNamespacedPodStatus(name, ns, pod).execute();
  }

  private JsonObject awaitReady(
      final String kind,
      final String ns,
      final String name,
      final String status,
      final String reason) {
    final JsonObject[] last = new JsonObject[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              last[0] = KubeFixture.get(kube, kind, ns, name);
              KubeFixture.assertCondition(last[0], "Ready", status, reason);
            });
    return last[0];
  }

  @Test
  void aPoolWithoutPodsIsNotReadyNamingItThenRunningPodsMakeTheTopologyReady() throws Exception {
    final String ns = kube.newNamespace();
    KubeFixture.apply(kube, topology(ns, "llama-pd", POOLS));
    final JsonObject empty = awaitReady("pdtopology", ns, "llama-pd", "False", "NoMatchingPods");
    assertThat(condition(empty, "Ready")[2])
        .contains(
            "prefill pool prefill (no pod in namespace " + ns + " has the labels role=prefill)")
        .contains("decode pool decode");
    assertThat(empty.getAsJsonObject("status").get("observedGeneration").getAsLong()).isEqualTo(1);

    pod(ns, "pf-0", "prefill", "node-1", "Running");
    pod(ns, "dc-0", "decode", "node-1", "Pending");
    final JsonObject pending = awaitReady("pdtopology", ns, "llama-pd", "False", "PodsNotRunning");
    assertThat(condition(pending, "Ready")[2])
        .isEqualTo(
            "pools without a Running replica: decode pool decode (1 pod has the labels"
                + " role=decode, none is Running)");

    pod(ns, "dc-1", "decode", "node-2", "Running");
    final JsonObject ready = awaitReady("pdtopology", ns, "llama-pd", "True", "PoolsResolved");
    assertThat(condition(ready, "Ready")[2])
        .isEqualTo("prefill pool prefill: 1 replica, decode pool decode: 1 replica");
    assertThat(ready.getAsJsonObject("status").getAsJsonArray("pools"))
        .isEqualTo(
            JsonParser.parseString(
                "[{\"name\":\"prefill\",\"role\":\"Prefill\",\"replicas\":1},"
                    + "{\"name\":\"decode\",\"role\":\"Decode\",\"replicas\":1}]"));
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                KubeFixture.hasEvent(
                        kube, ns, "NoMatchingPods", "Warning", RoutingControllers.PD_REPORTER)
                    && KubeFixture.hasEvent(
                        kube, ns, "PoolsResolved", "Normal", RoutingControllers.PD_REPORTER));

    assertThat(kube.kubectl("delete", "pod", "dc-1", "-n", ns, "--wait=false").exitCode()).isZero();
    awaitReady("pdtopology", ns, "llama-pd", "False", "PodsNotRunning");
  }

  /** The server's own copy of topology {@code ns/name} ({@code GET /pd-topologies}), or null. */
  private JsonObject serverTopology(final String ns, final String name) throws Exception {
    return held("/pd-topologies", "topologies", ns, name);
  }

  /** The server's own copy of template {@code ns/name} ({@code GET /prompt-templates}), or null. */
  private JsonObject serverTemplate(final String ns, final String name) throws Exception {
    return held("/prompt-templates", "templates", ns, name);
  }

  private JsonObject held(final String path, final String list, final String ns, final String name)
      throws Exception {
    final HttpResponse<String> r = Http.get(server.snapshotUrl(path));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    for (final JsonElement e :
        JsonParser.parseString(r.body()).getAsJsonObject().getAsJsonArray(list)) {
      final JsonObject t = e.getAsJsonObject();
      if (ns.equals(t.get("namespace").getAsString()) && name.equals(t.get("name").getAsString())) {
        return t;
      }
    }
    return null;
  }

  @Test
  void aTopologyBreakingTheRulesIsInvalidNamingTheField() throws Exception {
    final String ns = kube.newNamespace();
    KubeFixture.apply(
        kube,
        topology(
            ns,
            "bad",
            "{prefillPools: [{name: p, matchLabels: {role: p}}],"
                + " decodePools: [{name: d, acceleratorType: a100, matchLabels: {role: d}}]}"));
    final JsonObject bad = awaitReady("pdtopology", ns, "bad", "False", "InvalidSpec");
    assertThat(condition(bad, "Ready")[2])
        .isEqualTo(
            "not pushed to the server: spec.decodePools[0].acceleratorType (\"a100\"): names no"
                + " entry of spec.acceleratorTypes");
    assertThat(serverTopology(ns, "bad")).as("left out of the server's set").isNull();
    assertThat(
            kube.kubectl(
                    "patch",
                    "pdtopology",
                    "bad",
                    "-n",
                    ns,
                    "--type=merge",
                    "-p",
                    "{\"spec\":{\"acceleratorTypes\":[{\"name\":\"a100\"}]}}")
                .exitCode())
        .isZero();
    final JsonObject fixed = awaitReady("pdtopology", ns, "bad", "False", "NoMatchingPods");
    assertThat(fixed.getAsJsonObject("status").get("observedGeneration").getAsLong()).isEqualTo(2);
    await().atMost(Duration.ofSeconds(10)).until(() -> serverTopology(ns, "bad") != null);
  }

  @Test
  void aValidTemplateGetsTheServersRevisionAndABrokenEditIsNotReadyNamingTheFieldWithoutRevision()
      throws Exception {
    final String ns = kube.newNamespace();
    final String spec =
        "{modelId: meta-llama/Llama-3.1-8B-Instruct, body: \"{{.system}} User: {{.question}}\","
            + " slots: [{name: system, type: Stable, required: true},"
            + " {name: question, type: Mutable, required: true}]}";
    KubeFixture.apply(kube, template(ns, "support", spec));
    final JsonObject ok = awaitReady("prompttemplate", ns, "support", "True", "TemplateValid");
    final String revision = ok.getAsJsonObject("status").get("templateRevision").getAsString();
    assertThat(revision)
        .isEqualTo(
            TemplateRevision.of(
                TemplateSpecs.of(
                    JSON.getGson().fromJson(ok.toString(), PromptTemplate.class).getSpec())));
    assertThat(ok.getAsJsonObject("status").get("observedGeneration").getAsLong()).isEqualTo(1);
    assertThat(kube.kubectl("get", "prompttemplate", "support", "-n", ns).stdout())
        .as("the Revision printer column")
        .contains(revision);
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(
            () -> {
              final JsonObject held = serverTemplate(ns, "support");
              assertThat(held).as("the server holds the template").isNotNull();
              assertThat(held.get("revision").getAsString())
                  .as("the server's revision is the status's")
                  .isEqualTo(revision);
              assertThat(held.get("modelId").getAsString())
                  .isEqualTo("meta-llama/Llama-3.1-8B-Instruct");
            });

    assertThat(
            kube.kubectl(
                    "patch",
                    "prompttemplate",
                    "support",
                    "-n",
                    ns,
                    "--type=merge",
                    "-p",
                    "{\"spec\":{\"body\":\"{{.question}} {{.system}}\"}}")
                .exitCode())
        .isZero();
    final JsonObject bad = awaitReady("prompttemplate", ns, "support", "False", "InvalidTemplate");
    assertThat(condition(bad, "Ready")[2])
        .startsWith("not pushed to the server: spec.body: Stable slot \"system\"");
    assertThat(bad.getAsJsonObject("status").has("templateRevision"))
        .as("no revision: the server does not hold it")
        .isFalse();
    await().atMost(Duration.ofSeconds(10)).until(() -> serverTemplate(ns, "support") == null);
    assertThat(bad.getAsJsonObject("status").get("observedGeneration").getAsLong()).isEqualTo(2);
  }
}
