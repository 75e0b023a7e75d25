package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.KubeFixture;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.inferencecache.kubelocal.ProcessResult;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The webhooks called by a real API server (kube-local 1.20, which ignores CRD CEL rules, so every
 * refusal below is ours): configurations with {@code url: https://127.0.0.1:<port>/...} and the
 * test CA as {@code caBundle}, scoped by namespace label to this class's namespaces. A second pair
 * of configurations points at a port nobody listens on ("webhook down").
 */
@KubeLocalTest
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@Timeout(240)
class WebhooksKubeIT {
  private KubeLocal kube;
  private WebhookServer server;
  private TestServer cacheServer;
  private Path logs;
  private String grpc;
  private final List<Process> processes = new ArrayList<>();
  private final String run = String.format("%06x", ThreadLocalRandom.current().nextInt(0x1000000));
  private final List<String> configurations = new ArrayList<>();

  @BeforeAll
  void start(final KubeLocal kube, @TempDir final Path dir) throws Exception {
    this.kube = kube;
    kube.applyCrdsFor120(KubeFixture.crds());
    logs = dir;
    cacheServer = TestServer.start(ServeOverrides.NONE.insecure(), null);
    grpc = "127.0.0.1:" + cacheServer.grpcPort();
    final WebhookCerts ca = new WebhookCerts();
    ca.writeServing(dir.resolve("certs"), "127.0.0.1");
    server =
        new WebhookServer(
                "127.0.0.1:0",
                dir.resolve("certs"),
                Webhooks.handlers(
                    kube.adminClient(), new SubscriberSidecar("inference-cache:0.1.0", grpc)))
            .start();
    final String bundle =
        Base64.getEncoder().encodeToString(ca.caPem().getBytes(StandardCharsets.US_ASCII));
    register("up", server.port(), bundle);
    final int dead;
    try (ServerSocket s = new ServerSocket(0)) {
      dead = s.getLocalPort();
    }
    register("down", dead, bundle);
  }

  @AfterAll
  void stop() {
    for (final String c : configurations) {
      kube.kubectl("delete", c, "--ignore-not-found");
    }
    for (final Process p : processes) {
      p.destroyForcibly();
    }
    if (server != null) {
      server.close();
    }
    if (cacheServer != null) {
      cacheServer.close();
    }
  }

  /** Both configurations for namespaces labelled {@code webhooks-it=<run>-<scope>}. */
  private void register(final String scope, final int port, final String bundle) {
    final String base = "https://127.0.0.1:" + port;
    final String label = run + "-" + scope;
    final StringBuilder mutating = new StringBuilder();
    final StringBuilder validating = new StringBuilder();
    mutating.append(
        webhook(
            "mpod",
            base + Webhooks.POD,
            "Ignore",
            "\"\"",
            "v1",
            "pods",
            "[CREATE]",
            label,
            bundle));
    mutating.append(
        webhook(
            "mcachebackend",
            base + Webhooks.MUTATE_CACHE_BACKEND,
            "Fail",
            "inferencecache.io",
            "v1alpha1",
            "cachebackends",
            "[CREATE, UPDATE]",
            label,
            bundle));
    mutating.append(
        webhook(
            "mcachepolicy",
            base + Webhooks.MUTATE_CACHE_POLICY,
            "Fail",
            "inferencecache.io",
            "v1alpha1",
            "cachepolicies",
            "[CREATE, UPDATE]",
            label,
            bundle));
    mutating.append(
        webhook(
            "mcachetenant",
            base + Webhooks.MUTATE_CACHE_TENANT,
            "Fail",
            "inferencecache.io",
            "v1alpha1",
            "cachetenants",
            "[CREATE, UPDATE]",
            label,
            bundle));
    validating.append(
        webhook(
            "vcachebackend",
            base + Webhooks.VALIDATE_CACHE_BACKEND,
            "Fail",
            "inferencecache.io",
            "v1alpha1",
            "cachebackends",
            "[CREATE, UPDATE]",
            label,
            bundle));
    validating.append(
        webhook(
            "vcachepolicy",
            base + Webhooks.VALIDATE_CACHE_POLICY,
            "Fail",
            "inferencecache.io",
            "v1alpha1",
            "cachepolicies",
            "[CREATE, UPDATE]",
            label,
            bundle));
    validating.append(
        webhook(
            "vcachetenant",
            base + Webhooks.VALIDATE_CACHE_TENANT,
            "Fail",
            "inferencecache.io",
            "v1alpha1",
            "cachetenants",
            "[CREATE, UPDATE]",
            label,
            bundle));
    validating.append(
        webhook(
            "vpdtopology",
            base + Webhooks.VALIDATE_PD_TOPOLOGY,
            "Fail",
            "inferencecache.io",
            "v1alpha1",
            "pdtopologies",
            "[CREATE, UPDATE]",
            label,
            bundle));
    validating.append(
        webhook(
            "vprompttemplate",
            base + Webhooks.VALIDATE_PROMPT_TEMPLATE,
            "Fail",
            "inferencecache.io",
            "v1alpha1",
            "prompttemplates",
            "[CREATE, UPDATE]",
            label,
            bundle));
    final String name = "inference-cache-it-" + run + "-" + scope;
    final String yaml =
        "apiVersion: admissionregistration.k8s.io/v1\nkind: MutatingWebhookConfiguration\nmetadata:\n  name: "
            + name
            + "\nwebhooks:\n"
            + mutating
            + "---\napiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingWebhookConfiguration\nmetadata:\n  name: "
            + name
            + "\nwebhooks:\n"
            + validating;
    final ProcessResult r = kube.kubectlWithInput(yaml, "apply", "-f", "-");
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    configurations.add("mutatingwebhookconfiguration/" + name);
    configurations.add("validatingwebhookconfiguration/" + name);
  }

  private static String webhook(
      final String name,
      final String url,
      final String failurePolicy,
      final String group,
      final String version,
      final String resource,
      final String operations,
      final String scope,
      final String bundle) {
    return "- name: "
        + name
        + "."
        + scope
        + ".inferencecache.io\n"
        + "  admissionReviewVersions: [v1]\n  sideEffects: None\n  timeoutSeconds: 5\n"
        + "  failurePolicy: "
        + failurePolicy
        + "\n  clientConfig:\n    url: "
        + url
        + "\n    caBundle: "
        + bundle
        + "\n  namespaceSelector:\n    matchLabels: {webhooks-it: \""
        + scope
        + "\"}\n  rules:\n  - {apiGroups: ["
        + group
        + "], apiVersions: ["
        + version
        + "], operations: "
        + operations
        + ", resources: ["
        + resource
        + "]}\n";
  }

  private String namespace(final String scope) {
    final String ns = kube.newNamespace();
    final ProcessResult r =
        kube.kubectl("label", "namespace", ns, "webhooks-it=" + run + "-" + scope);
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    return ns;
  }

  private ProcessResult apply(final String ns, final String yaml) {
    return kube.kubectlWithInput(yaml, "apply", "--validate=false", "-n", ns, "-f", "-");
  }

  private JsonNode get(final String ns, final String what) throws Exception {
    final ProcessResult r = kube.kubectl("get", "-n", ns, what, "-o", "json");
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    return AdmissionRequest.JSON.readTree(r.stdout());
  }

  /** Applies until the API server sees the new configuration (it picks them up asynchronously). */
  private ProcessResult refused(final String ns, final String yaml) {
    final ProcessResult[] last = new ProcessResult[1];
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .until(
            () -> {
              last[0] = apply(ns, yaml);
              return last[0].exitCode() != 0;
            });
    return last[0];
  }

  private static String policy(final String name, final String spec) {
    return "apiVersion: inferencecache.io/v1alpha1\nkind: CachePolicy\nmetadata: {name: "
        + name
        + "}\nspec: "
        + spec
        + "\n";
  }

  private static String backend(final String name, final String domain) {
    return "apiVersion: inferencecache.io/v1alpha1\nkind: CacheBackend\nmetadata: {name: "
        + name
        + "}\nspec:\n  runtime: VLLM\n  integration: {mode: EventsOnly}\n  observation: {modelID: llama}\n"
        + "  engineSelector: {matchLabels: {inferencecache.io/cache-domain: "
        + domain
        + "}}\n";
  }

  private static String pod(final String name, final String labels, final String annotations) {
    return "apiVersion: v1\nkind: Pod\nmetadata:\n  name: "
        + name
        + "\n  labels: "
        + labels
        + "\n  annotations: "
        + annotations
        + "\nspec:\n  containers:\n  - {name: vllm, image: vllm/vllm-openai, args: [--model, llama, --port, \"8001\"]}\n";
  }

  @Test
  void aSecondCachePolicyInTheNamespaceIsRefusedNamingTheFirst() {
    final String ns = namespace("up");
    final ProcessResult first = apply(ns, policy("alpha", "{}"));
    assertThat(first.exitCode()).as(first.stderr()).isZero();
    final ProcessResult second = refused(ns, policy("beta", "{}"));
    assertThat(second.stderr())
        .contains(
            "only one CachePolicy is allowed per namespace: CachePolicy \"alpha\" already exists in"
                + " namespace \""
                + ns
                + "\"");
  }

  @Test
  void aPdTopologyBreakingTheRulesIsRefusedNamingEachFieldAndAGoodOneIsAdmitted() {
    final String ns = namespace("up");
    final String head =
        "apiVersion: inferencecache.io/v1alpha1\nkind: PDTopology\nmetadata: {name: t}\n";
    final ProcessResult r =
        refused(
            ns,
            head
                + "spec: {prefillPools: [{name: a, matchLabels: {role: p}}],"
                + " decodePools: [{name: a, acceleratorType: a100}]}\n");
    assertThat(r.stderr())
        .contains("The PDTopology \"t\" is invalid")
        .contains("spec.decodePools[0].name: Duplicate value: \"a\"")
        .contains("spec.decodePools[0].matchLabels: Required value")
        .contains(
            "spec.decodePools[0].acceleratorType: Invalid value: \"a100\": names no entry of"
                + " spec.acceleratorTypes");
    final ProcessResult good =
        apply(
            ns,
            head
                + "spec: {prefillPools: [{name: p, matchLabels: {role: p}}],"
                + " decodePools: [{name: d, matchLabels: {role: d}}], transport: Mooncake}\n");
    assertThat(good.exitCode()).as(good.stderr()).isZero();
    final ProcessResult update =
        kube.kubectl(
            "patch",
            "pdtopology",
            "t",
            "-n",
            ns,
            "--type=merge",
            "-p",
            "{\"spec\":{\"decodePools\":[{\"name\":\"p\",\"matchLabels\":{\"role\":\"d\"}}]}}");
    assertThat(update.exitCode()).isNotZero();
    assertThat(update.stderr()).contains("spec.decodePools[0].name: Duplicate value: \"p\"");
  }

  @Test
  void aPromptTemplateBreakingTheTemplateRulesIsRefusedNamingTheField() {
    final String ns = namespace("up");
    final String head =
        "apiVersion: inferencecache.io/v1alpha1\nkind: PromptTemplate\nmetadata: {name: support}\n";
    final ProcessResult r =
        refused(
            ns,
            head
                + "spec: {body: \"{{.question}} {{.system}} {{.missing}}\", slots: [{name: system,"
                + " type: Stable}, {name: question, type: Mutable}]}\n");
    assertThat(r.stderr())
        .contains("The PromptTemplate \"support\" is invalid")
        .contains("{{.missing}} at offset")
        .contains("spec.body: Invalid value")
        .contains("Stable slot \"system\"");
    final ProcessResult good =
        apply(
            ns,
            head
                + "spec: {body: \"{{.system}} {{.question}}\", slots: [{name: system, type: Stable},"
                + " {name: question, type: Mutable}]}\n");
    assertThat(good.exitCode()).as(good.stderr()).isZero();
  }

  @Test
  void theProbeTenantIdIsRefused() {
    final String ns = namespace("up");
    final ProcessResult r =
        refused(
            ns,
            "apiVersion: inferencecache.io/v1alpha1\nkind: CacheTenant\nmetadata: {name: t}\n"
                + "spec: {tenantID: inferencecache.io/probe}\n");
    assertThat(r.stderr())
        .contains("tenantID \"inferencecache.io/probe\" is reserved for the functional probe");
  }

  @Test
  void requireChainWithoutChainMatchingIsRefused() {
    final String ns = namespace("up");
    final ProcessResult r =
        refused(ns, policy("p", "{strategy: {enableChainMatching: false, requireChain: true}}"));
    assertThat(r.stderr()).contains("requireChain requires enableChainMatching to be true");
  }

  @Test
  void aDuplicateCacheDomainIsRefusedAndTheDefaultsAreWritten() throws Exception {
    final String ns = namespace("up");
    final ProcessResult first = apply(ns, backend("alpha", "shared"));
    assertThat(first.exitCode()).as(first.stderr()).isZero();
    final ProcessResult dup = refused(ns, backend("beta", "shared"));
    assertThat(dup.stderr())
        .contains(
            "cache domain \"shared\" is already owned by CacheBackend \"alpha\" in namespace \""
                + ns
                + "\"");
    final JsonNode alpha = get(ns, "cachebackend/alpha");
    assertThat(alpha.path("spec").path("observation").path("firstEventTimeout").asText())
        .isEqualTo("5m0s");
    assertThat(alpha.path("spec").path("observation").path("modelID").asText()).isEqualTo("llama");
    final ProcessResult bare =
        apply(
            ns,
            "apiVersion: inferencecache.io/v1alpha1\nkind: CacheBackend\nmetadata: {name: bare}\nspec: {runtime: VLLM, integration: {mode: EventsOnly}}\n");
    assertThat(bare.exitCode()).as(bare.stderr()).isZero();
    assertThat(
            get(ns, "cachebackend/bare")
                .path("spec")
                .path("observation")
                .path("firstEventTimeout")
                .asText())
        .isEqualTo("5m0s");
  }

  /**
   * A Managed Redis backend that passes every other rule; {@code resources} is the Redis
   * container's resources in flow YAML.
   */
  private static String managedRedis(final String name, final String resources) {
    return "apiVersion: inferencecache.io/v1alpha1\nkind: CacheBackend\nmetadata: {name: "
        + name
        + "}\nspec:\n  runtime: VLLM\n  type: LMCache\n"
        + "  lmCache:\n    topology: PodLocal\n    podLocal:\n      server:\n"
        + "        image: lmcache/server@sha256:"
        + "a".repeat(64)
        + "\n        port: 6555\n        l1Capacity: 1Gi\n        maxWorkers: 1\n"
        + "        resources: {requests: {cpu: \"1\", memory: 2Gi}, limits: {memory: 2Gi}}\n"
        + "  remoteStorage:\n    provider: Redis\n    ownership: Managed\n"
        + "    redis: {resources: "
        + resources
        + "}\n"
        + "  engineSelector: {matchLabels: {inferencecache.io/cache-domain: "
        + name
        + "}}\n";
  }

  @Test
  void resourceShapesTheApiServerWouldRefuseInThePodAreRefusedOnTheBackend() {
    final String ns = namespace("up");
    final ProcessResult ok =
        apply(
            ns,
            managedRedis(
                "fits",
                "{requests: {memory: 1Gi, hugepages-2Mi: 4Mi, example.com/nic: \"1\"},"
                    + " limits: {memory: 2Gi, hugepages-2Mi: 4Mi, example.com/nic: \"1\"}}"));
    assertThat(ok.exitCode()).as(ok.stderr()).isZero();
    final String field = "spec.remoteStorage.redis.resources";
    assertThat(
            refused(
                    ns,
                    managedRedis(
                        "hp",
                        "{requests: {memory: 1Gi, hugepages-2Mi: 2Mi},"
                            + " limits: {memory: 1Gi, hugepages-2Mi: 4Mi}}"))
                .stderr())
        .contains(
            field
                + ".requests[hugepages-2Mi]: Invalid value: \"2Mi\": must be equal to hugepages-2Mi"
                + " limit of 4Mi");
    assertThat(
            refused(
                    ns,
                    managedRedis(
                        "nic",
                        "{requests: {memory: 1Gi, example.com/nic: \"1\"},"
                            + " limits: {memory: 1Gi, example.com/nic: \"2\"}}"))
                .stderr())
        .contains(
            field
                + ".requests[example.com/nic]: Invalid value: \"1\": must be equal to"
                + " example.com/nic limit of 2");
    assertThat(refused(ns, managedRedis("name", "{requests: {memory: 1Gi, gpu: \"1\"}}")).stderr())
        .contains(
            field
                + ".requests[gpu]: Invalid value: \"gpu\": must be a standard resource for"
                + " containers");
  }

  @Test
  void anUnknownProviderIsRefusedByTheCrdSchemaBeforeTheWebhook() {
    // The API server checks the CRD's enum before it calls validating webhooks, so on a server
    // with the schema the operator reads its message; the webhook's own message
    // ("unknown remote storage provider; supported: Redis") is for objects that get past it
    // (ResourceRulesTest).
    final String ns = namespace("up");
    final ProcessResult r =
        refused(
            ns,
            managedRedis("mc", "{requests: {memory: 1Gi}}")
                .replace("provider: Redis", "provider: Memcached"));
    assertThat(r.stderr())
        .contains("spec.remoteStorage.provider: Unsupported value: \"Memcached\"")
        .contains("\"Redis\"");
  }

  @Test
  void aMatchingPodGetsTheSidecarAndStampsAndOthersAreUntouched() throws Exception {
    final String ns = namespace("up");
    assertThat(apply(ns, backend("engines", "d1")).exitCode()).isZero();
    final JsonNode cb = get(ns, "cachebackend/engines");
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              kube.kubectl(
                  "delete", "pod", "-n", ns, "probe-pod", "--ignore-not-found", "--wait=false");
              assertThat(
                      apply(ns, pod("probe-pod", "{inferencecache.io/cache-domain: d1}", "{}"))
                          .exitCode())
                  .isZero();
              assertThat(names(get(ns, "pod/probe-pod"))).contains("kvevent-subscriber");
            });
    assertThat(
            apply(
                    ns,
                    pod(
                        "engine-0",
                        "{inferencecache.io/cache-domain: d1}",
                        "{inferencecache.io/injected-by: forged/x}"))
                .exitCode())
        .isZero();
    final JsonNode injected = get(ns, "pod/engine-0");
    assertThat(names(injected)).containsExactly("vllm", "kvevent-subscriber");
    final JsonNode sidecar = injected.path("spec").path("containers").get(1);
    final List<String> args = new ArrayList<>();
    sidecar.path("args").forEach(a -> args.add(a.asText()));
    assertThat(args)
        .containsExactly(
            "--engine-endpoint=tcp://127.0.0.1:5557",
            "--server=" + grpc,
            "--replica-id=$(POD_NAME)",
            "--tenant-id=$(POD_NAMESPACE)",
            "--model-id=llama",
            "--hash-scheme=vllm",
            "--engine-metrics-url=http://127.0.0.1:8001/metrics");
    final JsonNode a = injected.path("metadata").path("annotations");
    assertThat(a.path("inferencecache.io/injected-by").asText()).isEqualTo(ns + "/engines");
    assertThat(a.path("inferencecache.io/injected-by-uid").asText())
        .isEqualTo(cb.path("metadata").path("uid").asText());
    assertThat(a.path("inferencecache.io/injected-generation").asText()).isEqualTo("1");

    assertThat(
            apply(
                    ns,
                    pod(
                        "opted-out",
                        "{inferencecache.io/cache-domain: d1}",
                        "{inferencecache.io/skip-inject: fAlse}"))
                .exitCode())
        .isZero();
    final JsonNode out = get(ns, "pod/opted-out");
    assertThat(names(out)).containsExactly("vllm");
    assertThat(
            out.path("metadata")
                .path("annotations")
                .path("inferencecache.io/inject-skipped")
                .asText())
        .isEqualTo("skip-inject-annotation");
    assertThat(apply(ns, pod("other", "{inferencecache.io/cache-domain: d2}", "{}")).exitCode())
        .isZero();
    final JsonNode other = get(ns, "pod/other");
    assertThat(names(other)).containsExactly("vllm");
    assertThat(other.path("metadata").path("annotations").has("inferencecache.io/injected-by"))
        .isFalse();
    assertThat(other.path("spec").path("containers").get(0).path("args").toString())
        .doesNotContain("kv-events-config");

    // the same pod again, sidecar included: never a second sidecar
    final ObjectNode again = (ObjectNode) injected.deepCopy();
    final ObjectNode meta = (ObjectNode) again.get("metadata");
    meta.retain("labels", "annotations");
    meta.put("name", "engine-1");
    again.remove("status");
    final ProcessResult r = kube.kubectlWithInput(again.toString(), "create", "-n", ns, "-f", "-");
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    assertThat(names(get(ns, "pod/engine-1"))).containsExactly("vllm", "kvevent-subscriber");
  }

  @Test
  void onAnApiServerWithoutNativeSidecarsATypedLMCachePodIsAdmittedUnchanged() throws Exception {
    final String ns = namespace("up");
    assertThat(apply(ns, backend("events", "live")).exitCode()).isZero();
    final ProcessResult mp =
        apply(
            ns,
            "apiVersion: inferencecache.io/v1alpha1\nkind: CacheBackend\nmetadata: {name: mp}\n"
                + "spec:\n  runtime: VLLM\n  type: LMCache\n  observation: {modelID: llama}\n"
                + "  lmCache:\n    topology: PodLocal\n    podLocal:\n      server:\n"
                + "        image: lmcache/server@sha256:"
                + "a".repeat(64)
                + "\n        port: 6555\n        l1Capacity: 1Gi\n        maxWorkers: 1\n"
                + "        resources: {requests: {cpu: \"1\", memory: 2Gi}, limits: {memory: 2Gi}}\n"
                + "  engineSelector: {matchLabels: {inferencecache.io/cache-domain: mp}}\n");
    assertThat(mp.exitCode()).as(mp.stderr()).isZero();
    // the webhook is live for this namespace once an EventsOnly pod gets its sidecar
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              kube.kubectl("delete", "pod", "-n", ns, "live", "--ignore-not-found", "--wait=false");
              assertThat(
                      apply(ns, pod("live", "{inferencecache.io/cache-domain: live}", "{}"))
                          .exitCode())
                  .isZero();
              assertThat(names(get(ns, "pod/live"))).contains("kvevent-subscriber");
            });
    // kube-local is 1.20: an injected lmcache-mp-server (an init container with a probe and
    // restartPolicy Always) would make the API server refuse the pod
    final ProcessResult engine =
        apply(ns, pod("engine-mp", "{inferencecache.io/cache-domain: mp}", "{}"));
    assertThat(engine.exitCode()).as(engine.stderr()).isZero();
    final JsonNode created = get(ns, "pod/engine-mp");
    assertThat(names(created)).containsExactly("vllm");
    assertThat(created.path("spec").has("initContainers")).isFalse();
    assertThat(created.path("metadata").path("annotations").has("inferencecache.io/injected-by"))
        .isFalse();
  }

  @Test
  void withTheWebhookDownPodsAreAdmittedAndCustomResourcesRefused() {
    final String ns = namespace("down");
    final ProcessResult cr = refused(ns, policy("p", "{}"));
    assertThat(cr.stderr()).contains("failed calling webhook");
    final ProcessResult pod =
        apply(ns, pod("engine", "{inferencecache.io/cache-domain: d1}", "{}"));
    assertThat(pod.exitCode()).as(pod.stderr()).isZero();
  }

  @Test
  void theInjectedSubscribeCommandLineFeedsTheServerUntilItAnswersPrefixMatch() throws Exception {
    final String ns = namespace("up");
    assertThat(apply(ns, backend("engines", "e2e")).exitCode()).isZero();
    await()
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(500))
        .untilAsserted(
            () -> {
              kube.kubectl(
                  "delete", "pod", "-n", ns, "vllm-0", "--ignore-not-found", "--wait=true");
              assertThat(
                      apply(ns, pod("vllm-0", "{inferencecache.io/cache-domain: e2e}", "{}"))
                          .exitCode())
                  .isZero();
              assertThat(names(get(ns, "pod/vllm-0"))).contains("kvevent-subscriber");
            });
    final JsonNode sidecar = get(ns, "pod/vllm-0").path("spec").path("containers").get(1);
    final String javaBin = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    final String jar = System.getProperty("inferencecache.jar");
    final int enginePort;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      enginePort = s.getLocalPort();
    }
    final List<String> command = new ArrayList<>();
    // the pod's command and args as Kubernetes runs them: $(VAR) from the container's env (the
    // fieldRefs name and namespace); the jar path and JVM of this machine; the engine's KV-event
    // port
    // is the pod's own loopback 5557, here a free port of the shared test machine
    sidecar.path("command").forEach(c -> command.add(c.asText()));
    sidecar.path("args").forEach(c -> command.add(c.asText()));
    command.replaceAll(
        c ->
            c.equals("java")
                ? javaBin
                : c.equals("/app/inference-cache.jar")
                    ? jar
                    : c.replace("$(POD_NAME)", "vllm-0")
                        .replace("$(POD_NAMESPACE)", ns)
                        .replace("tcp://127.0.0.1:5557", "tcp://127.0.0.1:" + enginePort));
    assertThat(command)
        .contains("subscribe", "--server=" + grpc, "--replica-id=vllm-0", "--tenant-id=" + ns);
    processes.add(
        new ProcessBuilder(
                javaBin,
                "-jar",
                jar,
                "fake-engine",
                "--endpoint=tcp://127.0.0.1:" + enginePort,
                "--block-size=16",
                "--num-blocks=4",
                "--events=1",
                "--interval-ms=300")
            .redirectErrorStream(true)
            .redirectOutput(
                Path.of(
                        System.getProperty("java.io.tmpdir"),
                        "webhooks-fake-engine-" + run + ".log")
                    .toFile())
            .start());
    processes.add(
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(logs.resolve("subscribe.log").toFile())
            .start());
    final io.grpc.ManagedChannel channel =
        io.grpc.netty.NettyChannelBuilder.forAddress("127.0.0.1", cacheServer.grpcPort())
            .usePlaintext()
            .build();
    try {
      final var stub = InferenceCacheGrpc.newBlockingStub(channel);
      final LookupRouteRequest.Builder q =
          LookupRouteRequest.newBuilder().setModelId("llama").setTenantId(ns).setHashScheme("vllm");
      for (int t = 0; t < 64; t++) {
        q.addTokenIds(t);
      }
      await()
          .atMost(Duration.ofSeconds(90))
          .pollInterval(Duration.ofMillis(500))
          .ignoreExceptionsInstanceOf(io.grpc.StatusRuntimeException.class)
          .untilAsserted(
              () -> {
                final LookupRouteResponse r =
                    stub.withDeadlineAfter(10, TimeUnit.SECONDS).lookupRoute(q.build());
                assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
                assertThat(r.getReplicaScores(0).getReplicaId()).isEqualTo("vllm-0");
              });
    } finally {
      channel.shutdownNow();
    }
  }

  private static List<String> names(final JsonNode pod) {
    final List<String> out = new ArrayList<>();
    pod.path("spec").path("containers").forEach(c -> out.add(c.path("name").asText()));
    return out;
  }
}
