package io.inferencecache.controlplane.doctor;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.inferencecache.controlplane.cli.InferenceCacheCli;
import io.inferencecache.controlplane.controller.status.CrText;
import io.inferencecache.controlplane.k8s.model.CustomResource;
import io.inferencecache.controlplane.k8s.samples.Samples;
import io.inferencecache.controlplane.server.config.ServeOverrides;
import io.inferencecache.controlplane.support.TestServer;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.kubernetes.client.openapi.apis.CustomObjectsApi;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code doctor} end to end: the real command line against kube-local (the 1.20 API server with the
 * shipped CRDs) and a real server whose bridge authenticates through kube-local's TokenReview.
 * Objects carry the status a controller writes (through the status subresource).
 */
@KubeLocalTest
class DoctorIT {
  private static final String SA_NAMESPACE = "inference-cache-system";
  private static final String SA = "inference-cache-controller-manager";
  private static final String CONTROLLER_AUDIENCE = "inferencecache.io/controller";
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Standard output must be one JSON document and nothing else. */
  private static final ObjectMapper STRICT_JSON =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private static TestServer server;
  @TempDir static Path dir;
  private static Path controllerToken;
  private static Path policyOnlyToken;

  @BeforeAll
  static void start(final KubeLocal kube) throws Exception {
    assertThat(kube.applyCrdsFor120(Samples.CRDS)).hasSize(6);
    kube.kubectl("create", "namespace", SA_NAMESPACE); // may exist from another class
    controllerToken = dir.resolve("controller.token");
    Files.writeString(controllerToken, kube.createToken(SA_NAMESPACE, SA, CONTROLLER_AUDIENCE));
    policyOnlyToken = dir.resolve("policy.token");
    Files.writeString(
        policyOnlyToken, kube.createToken(SA_NAMESPACE, SA, "inferencecache.io/policy"));
    server =
        TestServer.start(
            ServeOverrides.NONE.allowing("system:serviceaccount:" + SA_NAMESPACE + ":" + SA),
            "kubernetes:\n  kubeconfig: " + kube.kubeconfig() + "\n");
  }

  @AfterAll
  static void stop() {
    if (server != null) {
      server.close();
    }
  }

  private record Run(int exit, String out, String err) {
    JsonNode json() throws Exception {
      return JSON.readTree(out);
    }

    List<String> codes() throws Exception {
      final List<String> c = new ArrayList<>();
      json().path("findings").forEach(f -> c.add(f.path("code").asText()));
      return c;
    }
  }

  private static Run doctor(final KubeLocal kube, final String... flags) {
    final List<String> args =
        new ArrayList<>(List.of("doctor", "--kubeconfig=" + kube.kubeconfig()));
    args.addAll(List.of(flags));
    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();
    final int code =
        InferenceCacheCli.run(
            args.toArray(String[]::new), new PrintWriter(out), new PrintWriter(err));
    return new Run(code, out.toString(), err.toString());
  }

  private static String[] serverFlags(final Path token) {
    return new String[] {
      "--server-endpoint=127.0.0.1:" + server.grpcPort(),
      "--snapshot-port=" + port(server.snapshotUrl("")),
      "--snapshot-token-file=" + token
    };
  }

  private static int port(final String url) {
    return Integer.parseInt(url.replaceAll("^http://127\\.0\\.0\\.1:(\\d+).*$", "$1"));
  }

  private static String[] concat(final String[] a, final String... b) {
    final String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, out, a.length, b.length);
    return out;
  }

  private static void apply(final KubeLocal kube, final String ns, final String yaml) {
    kube.kubectlWithInput(
            "apiVersion: " + CustomResource.API_VERSION + "\n" + yaml, "apply", "-n", ns, "-f", "-")
        .orThrow();
  }

  private static void status(
      final KubeLocal kube,
      final String ns,
      final String plural,
      final String name,
      final Map<String, Object> status)
      throws Exception {
    final CustomObjectsApi api = new CustomObjectsApi(kube.adminClient());
    @SuppressWarnings("unchecked")
    final Map<String, Object> obj =
        (Map<String, Object>)
            api.getNamespacedCustomObject(
                    CustomResource.GROUP, CustomResource.VERSION, ns, plural, name)
                .execute();
    obj.put("status", status);
    api.replaceNamespacedCustomObjectStatus(
            CustomResource.GROUP, CustomResource.VERSION, ns, plural, name, obj)
        .execute();
  }

  /** Now as the controller writes status times (seconds always printed, also at :00). */
  private static String now() {
    return CrText.time(Instant.now());
  }

  private static Map<String, Object> condition(
      final String type, final String status, final String reason) {
    return Map.of(
        "type",
        type,
        "status",
        status,
        "reason",
        reason,
        "message",
        reason,
        "lastTransitionTime",
        now());
  }

  private static final String BACKEND =
      "kind: CacheBackend\nmetadata: {name: %s}\nspec:\n  runtime: VLLM\n"
          + "  integration: {mode: EventsOnly}\n"
          + "  engineSelector: {matchLabels: {inferencecache.io/cache-domain: %s}}\n";

  /** A namespace with one healthy backend, its injected engine pod, one policy and one tenant. */
  private static String healthyNamespace(final KubeLocal kube) throws Exception {
    final String ns = kube.newNamespace();
    apply(kube, ns, String.format(BACKEND, "b1", "d1"));
    status(
        kube,
        ns,
        "cachebackends",
        "b1",
        Map.of(
            "conditions", List.of(condition("Ready", "True", "KVEventsObserved")),
            "matchedEnginePods", 1,
            "firstKVEventObservedAt", now(),
            "indexParticipation", Map.of("prefixCount", 3, "lastEventAt", now())));
    final String uid =
        kube.kubectl("get", "cb", "b1", "-n", ns, "-o", "jsonpath={.metadata.uid}")
            .orThrow()
            .stdout()
            .trim();
    kube.kubectlWithInput(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: vllm-0\n  labels: {inferencecache.io/cache-domain: d1}\n"
                + "  annotations: {inferencecache.io/injected-by: "
                + ns
                + "/b1, inferencecache.io/injected-by-uid: "
                + uid
                + "}\nspec: {containers: [{name: vllm, image: vllm}]}\n",
            "apply",
            "-n",
            ns,
            "-f",
            "-")
        .orThrow();
    apply(kube, ns, "kind: CachePolicy\nmetadata: {name: p}\nspec: {}\n");
    apply(kube, ns, "kind: CacheTenant\nmetadata: {name: t}\nspec: {tenantID: " + ns + "}\n");
    return ns;
  }

  @Test
  void aHealthyStackExitsZeroWithEveryOkCode(final KubeLocal kube) throws Exception {
    final String ns = healthyNamespace(kube);
    final Run r = doctor(kube, concat(serverFlags(controllerToken), "-n", ns, "-o", "json"));
    assertThat(r.codes())
        .as(r.out() + r.err())
        .containsExactly("SV003", "SN004", "PL002", "PB002", "CB006", "EP002", "CT002", "CP002");
    assertThat(r.exit()).isZero();
    assertThat(r.json().path("summary").path("exitCode").asInt()).isZero();
    assertThat(r.json().at("/findings/4/resource").asText())
        .isEqualTo("cachebackend/" + ns + "/b1");
  }

  /** The shaded jar as an operator runs it: its own standard output and standard error. */
  private static Run doctorJar(final KubeLocal kube, final String name, final String... flags)
      throws Exception {
    final List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                "-XX:TieredStopAtLevel=1",
                "-jar",
                System.getProperty("inferencecache.jar", "target/inference-cache.jar"),
                "doctor",
                "--kubeconfig=" + kube.kubeconfig()));
    cmd.addAll(List.of(flags));
    final Path out = dir.resolve(name + ".stdout");
    final Path err = dir.resolve(name + ".stderr");
    final Process p =
        new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).as("doctor %s finished", name).isTrue();
    return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
  }

  @Test
  void theJarPrintsOnlyTheReportOnStdoutAsJsonAndAsTable(final KubeLocal kube) throws Exception {
    final String ns = healthyNamespace(kube);
    final String[] flags = concat(serverFlags(controllerToken), "-n", ns);
    final List<String> healthy =
        List.of("SV003", "SN004", "PL002", "PB002", "CB006", "EP002", "CT002", "CP002");

    final Run json = doctorJar(kube, "json", concat(flags, "-o", "json"));
    assertThat(json.exit()).as(json.err()).isZero();
    final JsonNode report = STRICT_JSON.readTree(json.out());
    assertThat(report.path("findings").findValuesAsText("code")).isEqualTo(healthy);
    assertThat(json.err()).doesNotContain("DEBUG").doesNotContain(" INFO ");

    final Run table = doctorJar(kube, "table", concat(flags, "-o", "table"));
    assertThat(table.exit()).as(table.err()).isZero();
    final List<String> lines = table.out().lines().toList();
    assertThat(lines.get(0)).matches("STATUS\\s+CODE\\s+CHECK\\s+RESOURCE\\s+MESSAGE");
    assertThat(lines.subList(1, lines.size()))
        .extracting(l -> l.split("\\s+")[0] + " " + l.split("\\s+")[1])
        .containsExactlyElementsOf(healthy.stream().map(c -> "OK " + c).toList());

    // Asked for, the logs are there, on standard error only.
    final Run verbose = doctorJar(kube, "verbose", concat(flags, "-o", "json", "-v"));
    assertThat(verbose.exit()).as(verbose.err()).isZero();
    assertThat(STRICT_JSON.readTree(verbose.out()).path("findings").findValuesAsText("code"))
        .isEqualTo(healthy);
    assertThat(verbose.err()).contains("DEBUG");
  }

  @Test
  void aStoppedServerFailsEveryEndpointCheckAndExitsTwo(final KubeLocal kube) throws Exception {
    final String ns = healthyNamespace(kube);
    final int closed;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = s.getLocalPort();
    }
    final Run r =
        doctor(
            kube,
            "--server-endpoint=127.0.0.1:" + closed,
            "--snapshot-port=" + closed,
            "--snapshot-token-file=" + controllerToken,
            "--timeout=5s",
            "-n",
            ns,
            "-o",
            "json");
    assertThat(r.codes().subList(0, 4)).containsExactly("SV001", "SN001", "PL001", "PB001");
    assertThat(r.exit()).isEqualTo(2);
  }

  @Test
  void twoPoliciesInANamespaceWarnWithBothNames(final KubeLocal kube) throws Exception {
    final String ns = healthyNamespace(kube);
    apply(kube, ns, "kind: CachePolicy\nmetadata: {name: q}\nspec: {}\n");
    final Run r = doctor(kube, "--config-only", "-n", ns, "-o", "table");
    assertThat(r.out())
        .containsPattern(
            "WARN +CP003 +CachePolicyCoverage +namespace/" + ns + " +2 CachePolicies \\(p, q\\)");
    assertThat(r.exit()).isEqualTo(1);
  }

  @Test
  void aBackendWhoseSelectorMatchesNoPodAndThatNeverSawAnEventWarns(final KubeLocal kube)
      throws Exception {
    final String ns = kube.newNamespace();
    apply(kube, ns, String.format(BACKEND, "lonely", "nowhere"));
    final Run r = doctor(kube, "--config-only", "-n", ns, "-o", "json");
    assertThat(r.codes()).containsExactly("CB001", "CB002", "CB003", "CP001");
    assertThat(r.exit()).isEqualTo(1);
    final Run human = doctor(kube, "--config-only", "-n", ns);
    assertThat(human.out())
        .startsWith("inferencecache doctor\n\nWARN\n  WARN CB001  cachebackend/" + ns + "/lonely\n")
        .endsWith("Summary: 0 OK, 1 INFO, 3 WARN, 0 FAIL  (exit 1)\n");
  }

  @Test
  void aTokenWithTheWrongAudienceIsRefusedBySnapshot(final KubeLocal kube) throws Exception {
    final String ns = healthyNamespace(kube);
    final Run r = doctor(kube, concat(serverFlags(policyOnlyToken), "-n", ns, "-o", "json"));
    assertThat(r.codes()).contains("SV003", "SN005", "PL002", "PB002").doesNotContain("SN004");
    assertThat(r.exit()).isEqualTo(1);
  }

  @Test
  void configOnlyEmitsNoServerCodes(final KubeLocal kube) throws Exception {
    final String ns = healthyNamespace(kube);
    final Run r = doctor(kube, "--config-only", "-n", ns, "-o", "json");
    assertThat(r.codes()).containsExactly("CB006", "EP002", "CT002", "CP002");
    assertThat(r.exit()).isZero();
  }

  @Test
  void withoutAServerServiceDiscoveryFailsAsOneSv001WithoutResource(final KubeLocal kube)
      throws Exception {
    final String ns = kube.newNamespace();
    final Run r = doctor(kube, "-n", ns, "-o", "json");
    assertThat(r.err()).contains("warning: server discovery failed");
    assertThat(r.codes()).containsExactly("SV001");
    assertThat(r.json().at("/findings/0").has("resource")).isFalse();
    assertThat(r.exit()).isEqualTo(2);
  }

  @Test
  void aBogusOutputFormatIsAUsageErrorWithExitOne(final KubeLocal kube) {
    final Run r = doctor(kube, "-o", "bogus");
    assertThat(r.err())
        .isEqualTo("error: invalid output format \"bogus\" (want one of: human, json, table)\n");
    assertThat(r.out()).isEmpty();
    assertThat(r.exit()).isEqualTo(1);
    final Run unknown = doctor(kube, "--no-such-flag");
    assertThat(unknown.err()).startsWith("error: Unknown option: '--no-such-flag'");
    assertThat(unknown.exit()).isEqualTo(1);
  }

  @Test
  void aMissingKubeconfigIsAnErrorWithExitOne() {
    final StringWriter err = new StringWriter();
    final int code =
        InferenceCacheCli.run(
            new String[] {"doctor", "--kubeconfig=" + dir.resolve("absent")},
            new PrintWriter(new StringWriter()),
            new PrintWriter(err));
    assertThat(err.toString().strip())
        .isEqualTo("error: kubeconfig " + dir.resolve("absent") + " (--kubeconfig) does not exist");
    assertThat(code).isEqualTo(1);
  }
}
