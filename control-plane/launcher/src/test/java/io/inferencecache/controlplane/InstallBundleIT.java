package io.inferencecache.controlplane;

import static io.inferencecache.controlplane.RenderedBundle.commandLine;
import static io.inferencecache.controlplane.RenderedBundle.container;
import static io.inferencecache.controlplane.RenderedBundle.selects;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.inferencecache.controlplane.cli.InferenceCacheCli;
import io.inferencecache.controlplane.support.Executables;
import io.inferencecache.controlplane.support.Http;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.inferencecache.kubelocal.ProcessResult;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The install bundle ({@code ops/config}): every kustomization renders with {@code kubectl
 * kustomize} and wires its objects together (selectors, Secrets, tokens, images); the rendered
 * default bundle applies to kube-local, and the server and the controller start on this machine
 * from the rendered Deployments' command lines and answer their probes.
 */
@KubeLocalTest
@Timeout(300)
class InstallBundleIT {
  private static final Path CONFIG = ObservabilityFiles.ROOT.resolve("ops/config");
  private static final String NS = "inference-cache-system";
  private static final String NAME_LABEL = "app.kubernetes.io/name";
  private static final Pattern BIND = Pattern.compile("^(--[a-z-]*bind-address)=:(\\d+)$");
  private static final String SERVER_HOST = "http://inference-cache-server." + NS + ".svc:";

  @TempDir Path dir;

  private static RenderedBundle render(final KubeLocal kube, final String kustomization) {
    final ProcessResult r = kube.kubectl("kustomize", CONFIG.resolve(kustomization).toString());
    assertThat(r.exitCode()).as("kubectl kustomize %s: %s", kustomization, r.stderr()).isZero();
    return RenderedBundle.parse(r.stdout());
  }

  private static boolean isCertManagerOrMonitoring(final JsonNode o) {
    final String api = o.path("apiVersion").asText();
    return api.startsWith("cert-manager.io/") || api.startsWith("monitoring.coreos.com/");
  }

  @Test
  void theDefaultBundleWiresItsObjectsTogether(final KubeLocal kube) throws IOException {
    final RenderedBundle b = render(kube, "default");
    assertThat(b.objects())
        .allSatisfy(
            o ->
                assertThat(o.path("metadata").path("labels").path(NAME_LABEL).asText())
                    .as("%s label", o.at("/metadata/name"))
                    .isEqualTo("inference-cache"));
    for (final JsonNode o : b.objects()) {
      final String kind = o.path("kind").asText();
      if (!kind.startsWith("Cluster")
          && !kind.contains("WebhookConfiguration")
          && !kind.equals("CustomResourceDefinition")
          && !kind.equals("Namespace")) {
        assertThat(o.at("/metadata/namespace").asText()).as(kind).isEqualTo(NS);
      }
    }
    assertThat(b.ofKind("CustomResourceDefinition")).hasSize(6);
    // a schema keyword is never null (a null is a YAML slip, e.g. an unquoted ": " in a
    // description)
    b.ofKind("CustomResourceDefinition")
        .forEach(
            crd ->
                assertThat(crd.toString())
                    .as(crd.at("/metadata/name").asText())
                    .doesNotContain(":null"));

    final JsonNode server = b.get("Deployment", "inference-cache-server");
    final JsonNode controller = b.get("Deployment", "inference-cache-controller-manager");
    final JsonNode serverPods = server.at("/spec/template/metadata/labels");
    final JsonNode controllerPods = controller.at("/spec/template/metadata/labels");
    final String image = System.getProperty("image.name", "inference-cache:0.1.0-SNAPSHOT");
    assertThat(container(server).path("image").asText()).isEqualTo(image);
    assertThat(container(controller).path("image").asText()).isEqualTo(image);
    assertThat(commandLine(container(controller))).contains("--kvevent-subscriber-image=" + image);

    // Services and the NetworkPolicy select the pods they mean and no other
    final JsonNode serverSvc = b.get("Service", "inference-cache-server").at("/spec/selector");
    assertThat(selects(serverSvc, serverPods)).isTrue();
    assertThat(selects(serverSvc, controllerPods)).isFalse();
    final JsonNode webhookSvc = b.get("Service", "webhook-service").at("/spec/selector");
    assertThat(selects(webhookSvc, controllerPods)).isTrue();
    assertThat(selects(webhookSvc, serverPods)).isFalse();
    final JsonNode netpol = b.get("NetworkPolicy", "inference-cache-server-snapshot");
    assertThat(selects(netpol.at("/spec/podSelector/matchLabels"), serverPods)).isTrue();
    final JsonNode from = netpol.at("/spec/ingress/1/from/0/podSelector/matchLabels");
    assertThat(selects(from, controllerPods)).isTrue();
    assertThat(selects(from, serverPods)).isFalse();
    assertThat(netpol.at("/spec/ingress/1/ports/0/port").asInt()).isEqualTo(8081);

    // the controller's SA is the one the server admits, and the one its RBAC binds
    final String sa = controller.at("/spec/template/spec/serviceAccountName").asText();
    assertThat(commandLine(container(server)))
        .contains("--allowed-controller-sa=system:serviceaccount:" + NS + ":" + sa);
    assertThat(
            b.get("ClusterRoleBinding", "inference-cache-manager-rolebinding")
                .at("/subjects/0/name")
                .asText())
        .isEqualTo(sa);
    assertThat(
            b.get("ClusterRoleBinding", "inference-cache-server-tokenreview")
                .at("/subjects/0/name")
                .asText())
        .isEqualTo(server.at("/spec/template/spec/serviceAccountName").asText());

    // the webhook certificate: cert-manager's Secret is the controller's volume, its CA is injected
    final String secret = b.get("Certificate", "serving-cert").at("/spec/secretName").asText();
    assertThat(volume(controller, "webhook-cert").at("/secret/secretName").asText())
        .isEqualTo(secret);
    for (final String kind :
        List.of("MutatingWebhookConfiguration", "ValidatingWebhookConfiguration")) {
      final JsonNode conf = b.ofKind(kind).get(0);
      assertThat(conf.at("/metadata/annotations/cert-manager.io~1inject-ca-from").asText())
          .isEqualTo(NS + "/serving-cert");
      conf.path("webhooks")
          .forEach(
              w ->
                  assertThat(w.at("/clientConfig/service/name").asText())
                      .isEqualTo("webhook-service"));
    }
    // the self-signed script writes the same Secret and patches the same configurations
    final String script =
        Files.readString(CONFIG.resolve("webhook/webhook-self-signed.sh"), StandardCharsets.UTF_8);
    assertThat(script).contains("ns=" + NS, "svc=webhook-service", "secret tls " + secret);
    for (final JsonNode conf : b.ofKind("MutatingWebhookConfiguration")) {
      assertThat(conf.at("/metadata/name").asText())
          .isEqualTo("inference-cache-mutating-webhook-configuration");
    }
    assertThat(script)
        .contains("inference-cache-${kind%webhookconfiguration}-webhook-configuration");
    final RenderedBundle selfSigned = render(kube, "overlays/self-signed-webhook");
    assertThat(selfSigned.ids())
        .containsExactlyInAnyOrderElementsOf(
            b.without(InstallBundleIT::isCertManagerOrMonitoring).ids());
  }

  @Test
  void theOverlaysAddServerTlsAndTheMonitoringObjects(final KubeLocal kube) {
    final RenderedBundle tls = render(kube, "overlays/server-tls");
    final JsonNode server = tls.get("Deployment", "inference-cache-server");
    final JsonNode cert = tls.get("Certificate", "inference-cache-server-serving-cert");
    assertThat(cert.at("/spec/issuerRef/name").asText())
        .isEqualTo(
            tls.get("Issuer", "inference-cache-server-selfsigned-issuer")
                .at("/metadata/name")
                .asText());
    assertThat(cert.path("spec").path("dnsNames").toString())
        .contains("inference-cache-server." + NS + ".svc");
    assertThat(volume(server, "grpc-tls").at("/secret/secretName").asText())
        .isEqualTo(cert.at("/spec/secretName").asText());
    final String mount = mountPath(server, "grpc-tls");
    assertThat(commandLine(container(server)))
        .contains("--tls-cert-file=" + mount + "/tls.crt", "--tls-key-file=" + mount + "/tls.key");

    final RenderedBundle obs = render(kube, "overlays/observability");
    final JsonNode monitor = obs.get("ServiceMonitor", "inference-cache-server");
    final JsonNode serverSvc = obs.get("Service", "inference-cache-server");
    assertThat(selects(monitor.at("/spec/selector/matchLabels"), serverSvc.at("/metadata/labels")))
        .isTrue();
    assertThat(
            selects(
                monitor.at("/spec/selector/matchLabels"),
                obs.get("Service", "webhook-service").at("/metadata/labels")))
        .isFalse();
    assertThat(monitor.at("/spec/endpoints/0/port").asText()).isEqualTo("http");
    final JsonNode pods = obs.get("PodMonitor", "inference-cache-controller");
    assertThat(
            selects(
                pods.at("/spec/selector/matchLabels"),
                obs.get("Deployment", "inference-cache-controller-manager")
                    .at("/spec/template/metadata/labels")))
        .isTrue();
    assertThat(
            obs.get("PodMonitor", "inference-cache-lmcache-mp")
                .at("/spec/namespaceSelector/any")
                .asBoolean())
        .isTrue();
    final JsonNode subscribers = obs.get("PodMonitor", "inference-cache-subscriber");
    assertThat(subscribers.at("/spec/namespaceSelector/any").asBoolean()).isTrue();
    assertThat(subscribers.at("/spec/selector").isEmpty())
        .as("every pod; the port selects")
        .isTrue();
    assertThat(subscribers.at("/spec/podMetricsEndpoints/0/port").asText())
        .isEqualTo(io.inferencecache.controlplane.webhook.SubscriberSidecar.HTTP_PORT_NAME);
    final JsonNode rule = obs.get("PrometheusRule", "inference-cache-alerts");
    assertThat(rule.at("/metadata/labels/role").asText()).isEqualTo("alert-rules");
    assertThat(rule.at("/spec/groups")).isEqualTo(ObservabilityFiles.rules().path("groups"));
    for (final String kind : List.of("ServiceMonitor", "PodMonitor", "PrometheusRule")) {
      obs.ofKind(kind)
          .forEach(
              o -> {
                assertThat(o.at("/metadata/labels/prometheus").asText()).isEqualTo("k8s");
                assertThat(o.at("/metadata/namespace").asText()).isEqualTo(NS);
              });
    }
  }

  @Test
  void theRenderedBundleAppliesAndItsServerAndControllerStartFromTheirCommandLines(
      final KubeLocal kube) throws Exception {
    final RenderedBundle bundle = render(kube, "default");
    final List<String> crds = kube.applyCrdsFor120(ObservabilityFiles.ROOT.resolve("ops/crds"));
    assertThat(crds)
        .containsExactlyInAnyOrderElementsOf(
            bundle.ofKind("CustomResourceDefinition").stream()
                .map(c -> c.at("/metadata/name").asText())
                .toList());
    // kube-local cannot reach webhook-service (no pods, no Service network) and the custom-resource
    // webhooks fail closed, so the configurations are validated by a server-side dry run only:
    // stored, they would refuse every other test's CacheBackend, CachePolicy and CacheTenant
    final RenderedBundle webhooks =
        bundle.without(o -> !o.path("kind").asText().endsWith("WebhookConfiguration"));
    assertThat(webhooks.objects()).hasSize(2);
    final RenderedBundle applied =
        bundle.without(
            o ->
                isCertManagerOrMonitoring(o)
                    || o.path("kind").asText().equals("CustomResourceDefinition")
                    || o.path("kind").asText().endsWith("WebhookConfiguration"));
    final ProcessResult rest =
        kube.kubectlWithInput(applied.yaml(), "apply", "--validate=false", "-f", "-");
    assertThat(rest.exitCode()).as(rest.stderr()).isZero();
    final ProcessResult dry =
        kube.kubectlWithInput(
            webhooks.yaml(), "apply", "--dry-run=server", "--validate=false", "-f", "-");
    assertThat(dry.exitCode()).as(dry.stderr()).isZero();
    kube.kubectl("delete", "cacheindex", "cluster-default", "--ignore-not-found");

    final JsonNode serverDeployment = bundle.get("Deployment", "inference-cache-server");
    final JsonNode controllerDeployment =
        bundle.get("Deployment", "inference-cache-controller-manager");
    Process server = null;
    Process controller = null;
    try {
      // the server: loopback ports, its own ServiceAccount's token in a kubeconfig for TokenReviews
      final Map<Integer, Integer> serverPorts = new HashMap<>();
      final List<String> serverLine =
          localCommandLine(commandLine(container(serverDeployment)), serverPorts);
      final String serverSa =
          serverDeployment.at("/spec/template/spec/serviceAccountName").asText();
      final Path serveConfig = dir.resolve("serve.yml");
      Files.writeString(
          serveConfig, "kubernetes:\n  kubeconfig: " + kubeconfig(kube, serverSa, "server") + "\n");
      serverLine.add("--config=" + serveConfig);
      server = start(serverLine, "server");
      final int serverHttp = serverPorts.get(probePort(serverDeployment, "readinessProbe"));
      assertThat(serverPorts.get(probePort(serverDeployment, "livenessProbe")))
          .isEqualTo(serverHttp);
      awaitProbes(server, serverHttp, "server");
      final int snapshotPort = serverPorts.get(containerPort(serverDeployment, "snapshot"));

      // the controller: kubeconfig of its ServiceAccount, its two tokens from the projected
      // volumes' audiences, a serving pair for the webhook listener, the server on loopback
      final JsonNode spec = controllerDeployment.at("/spec/template/spec");
      final String sa = spec.path("serviceAccountName").asText();
      final Map<Integer, Integer> controllerPorts = new HashMap<>();
      final List<String> controllerLine = new ArrayList<>();
      for (final String arg :
          localCommandLine(commandLine(container(controllerDeployment)), controllerPorts)) {
        controllerLine.add(arg.replace(SERVER_HOST + "8081", "http://127.0.0.1:" + snapshotPort));
      }
      assertThat(String.join(" ", controllerLine)).doesNotContain(".svc");
      controllerLine.add("--kubeconfig=" + kubeconfig(kube, sa, "controller"));
      final Map<String, String> tokenFlags =
          Map.of(
              "controller-token", "--controller-token-file",
              "policy-token", "--policy-token-file");
      for (final Map.Entry<String, String> e : tokenFlags.entrySet()) {
        final JsonNode source =
            volume(controllerDeployment, e.getKey()).at("/projected/sources/0/serviceAccountToken");
        final Path file = dir.resolve(e.getKey()).resolve(source.path("path").asText());
        Files.createDirectories(file.getParent());
        Files.writeString(file, kube.createToken(NS, sa, source.path("audience").asText()));
        assertThat(mountPath(controllerDeployment, e.getKey()))
            .startsWith("/var/run/secrets/inferencecache.io/");
        controllerLine.add(e.getValue() + "=" + file);
      }
      assertThat(volume(controllerDeployment, "webhook-cert").at("/secret/secretName").asText())
          .isEqualTo("webhook-server-cert");
      controllerLine.add("--webhook-cert-dir=" + webhookPair());
      controller = start(controllerLine, "controller");
      final int probe = controllerPorts.get(probePort(controllerDeployment, "readinessProbe"));
      assertThat(controllerPorts.get(probePort(controllerDeployment, "livenessProbe")))
          .isEqualTo(probe);
      awaitProbes(controller, probe, "controller");
      assertThat(
              Http.get(
                      "http://127.0.0.1:"
                          + controllerPorts.get(containerPort(controllerDeployment, "metrics"))
                          + "/metrics")
                  .statusCode())
          .isEqualTo(200);
      // with the rendered RBAC it takes the Lease and creates the CacheIndex; doctor's SN004 below
      // shows the server admitting the controller's token (the TokenReview RBAC and audiences)
      final Process running = controller;
      await(
              "the controller's CacheIndex cluster-default (log "
                  + dir.resolve("controller.log")
                  + ")")
          .atMost(Duration.ofSeconds(90))
          .until(
              () -> {
                assertThat(running.isAlive()).as(log("controller")).isTrue();
                return kube.kubectl("get", "cacheindex", "cluster-default").succeeded();
              });
      assertThat(
              kube.kubectl(
                      "get",
                      "lease",
                      "inference-cache-controller-leader-lock",
                      "-n",
                      NS,
                      "-o",
                      "jsonpath={.spec.holderIdentity}")
                  .stdout())
          .isNotBlank();
      // the README's verification: doctor's server checks pass against this installation
      final StringWriter out = new StringWriter();
      final StringWriter err = new StringWriter();
      final int exit =
          InferenceCacheCli.run(
              new String[] {
                "doctor",
                "--kubeconfig=" + kube.kubeconfig(),
                "-n",
                kube.newNamespace(),
                "-o",
                "json",
                "--server-endpoint=127.0.0.1:"
                    + serverPorts.get(containerPort(serverDeployment, "grpc")),
                "--snapshot-port=" + snapshotPort,
                "--snapshot-token-file=" + dir.resolve("controller-token/token")
              },
              new PrintWriter(out),
              new PrintWriter(err));
      final List<String> codes = new ArrayList<>();
      RenderedBundle.YAML
          .readTree(out.toString())
          .path("findings")
          .forEach(f -> codes.add(f.path("code").asText()));
      assertThat(codes).as(out + err.toString()).startsWith("SV003", "SN004", "PL002", "PB002");
      assertThat(exit).as(out.toString()).isLessThan(2);
    } finally {
      stop(controller);
      stop(server);
      // other classes discover (doctor) or run the server themselves: leave no Service behind
      kube.kubectl(
          "delete",
          "-n",
          NS,
          "--ignore-not-found",
          "service/inference-cache-server",
          "service/webhook-service",
          "deployment/inference-cache-server",
          "deployment/inference-cache-controller-manager",
          "networkpolicy/inference-cache-server-snapshot");
    }
  }

  /**
   * The container's command line for this machine: {@code java} of this JVM, the built jar for
   * {@code /app/inference-cache.jar}, and each {@code --*-bind-address=:N} on a free loopback port
   * (recorded in {@code ports} as N → port).
   */
  private static List<String> localCommandLine(
      final List<String> line, final Map<Integer, Integer> ports) throws IOException {
    assertThat(line.get(0)).isEqualTo("java");
    final List<String> out = new ArrayList<>();
    out.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    for (final String arg : line.subList(1, line.size())) {
      final Matcher m = BIND.matcher(arg);
      if (arg.equals("/app/inference-cache.jar")) {
        out.add(System.getProperty("inferencecache.jar"));
      } else if (m.matches()) {
        final int port = freePort();
        ports.put(Integer.parseInt(m.group(2)), port);
        out.add(m.group(1) + "=127.0.0.1:" + port);
      } else {
        out.add(arg);
      }
    }
    return out;
  }

  /** A kubeconfig for kube-local as ServiceAccount {@code sa} of the system namespace. */
  private Path kubeconfig(final KubeLocal kube, final String sa, final String name)
      throws IOException {
    final String token = kube.createToken(NS, sa, KubeLocal.ISSUER);
    final Path file = dir.resolve(name + ".kubeconfig");
    Files.writeString(
        file,
        String.join(
            "\n",
            "apiVersion: v1",
            "kind: Config",
            "clusters:",
            "- name: kube-local",
            "  cluster: {server: '"
                + kube.server()
                + "', certificate-authority: '"
                + kube.caCertificate()
                + "'}",
            "users:",
            "- name: " + sa,
            "  user: {token: '" + token + "'}",
            "contexts:",
            "- name: bundle",
            "  context: {cluster: kube-local, user: " + sa + ", namespace: " + NS + "}",
            "current-context: bundle",
            ""));
    return file;
  }

  /** A self-signed serving pair ({@code tls.crt}, {@code tls.key}) for the webhook listener. */
  private Path webhookPair() throws Exception {
    final Path certs = Files.createDirectories(dir.resolve("serving-certs"));
    final Process p =
        new ProcessBuilder(
                Executables.onPath("openssl", "openssl").toString(),
                "req",
                "-x509",
                "-newkey",
                "ec",
                "-pkeyopt",
                "ec_paramgen_curve:prime256v1",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=webhook-service." + NS + ".svc",
                "-keyout",
                certs.resolve("tls.key").toString(),
                "-out",
                certs.resolve("tls.crt").toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.log").toFile())
            .start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("openssl.log"))).isZero();
    return certs;
  }

  private Process start(final List<String> line, final String name) throws IOException {
    Files.writeString(dir.resolve(name + ".cmd"), String.join(" ", line));
    return new ProcessBuilder(line)
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve(name + ".log").toFile())
        .start();
  }

  private void awaitProbes(final Process p, final int port, final String name) {
    final String base = "http://127.0.0.1:" + port;
    await(name + " /readyz and /healthz")
        .atMost(Duration.ofSeconds(120))
        .ignoreExceptionsInstanceOf(IOException.class)
        .until(
            () -> {
              assertThat(p.isAlive()).as("%s exited: %s", name, log(name)).isTrue();
              return Http.get(base + "/readyz").statusCode() == 200
                  && Http.get(base + "/healthz").statusCode() == 200;
            });
  }

  private String log(final String name) {
    try {
      return Files.readString(dir.resolve(name + ".log"));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  private static void stop(final Process p) throws InterruptedException {
    if (p == null) {
      return;
    }
    p.toHandle().destroy();
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.toHandle().destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private static JsonNode volume(final JsonNode deployment, final String name) {
    for (final JsonNode v : deployment.at("/spec/template/spec/volumes")) {
      if (name.equals(v.path("name").asText())) {
        return v;
      }
    }
    throw new AssertionError("no volume " + name + " in " + deployment.at("/metadata/name"));
  }

  private static String mountPath(final JsonNode deployment, final String volume) {
    for (final JsonNode m : container(deployment).path("volumeMounts")) {
      if (volume.equals(m.path("name").asText())) {
        return m.path("mountPath").asText();
      }
    }
    throw new AssertionError("volume " + volume + " not mounted");
  }

  /** The container port a named port refers to. */
  private static int containerPort(final JsonNode deployment, final String name) {
    final Set<String> names = new LinkedHashSet<>();
    for (final JsonNode port : container(deployment).path("ports")) {
      names.add(port.path("name").asText());
      if (name.equals(port.path("name").asText())) {
        return port.path("containerPort").asInt();
      }
    }
    throw new AssertionError("no port " + name + " among " + names);
  }

  /** The container port of the probe's {@code httpGet}, which names its port. */
  private static int probePort(final JsonNode deployment, final String probe) {
    final JsonNode get = container(deployment).path(probe).path("httpGet");
    assertThat(get.path("path").asText()).isIn("/readyz", "/healthz");
    return containerPort(deployment, get.path("port").asText());
  }
}
