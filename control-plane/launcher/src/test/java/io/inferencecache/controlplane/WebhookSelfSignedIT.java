package io.inferencecache.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.webhook.SubscriberSidecar;
import io.inferencecache.controlplane.webhook.WebhookServer;
import io.inferencecache.controlplane.webhook.Webhooks;
import io.inferencecache.kubelocal.KubeLocal;
import io.inferencecache.kubelocal.KubeLocalTest;
import io.inferencecache.kubelocal.ProcessResult;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLHandshakeException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documented install without cert-manager: the {@code self-signed-webhook} overlay's webhook
 * configurations on kube-local, then {@code ops/config/webhook/webhook-self-signed.sh} run as an
 * operator would (its own {@code kubectl} and {@code openssl}, the current context). The Secret it
 * writes serves the controller's real webhook listener, and a client trusting only the caBundle it
 * set accepts that listener under the Service's DNS names and refuses it under any other.
 *
 * <p>kube-local cannot route to a Service, so the API server itself does not call the webhooks
 * here; the configurations are scoped to a namespace label nothing carries so that their
 * fail-closed policy blocks no other suite. kube-local's kubectl (1.32) needs {@code apply
 * --validate=false} against its 1.20 API server: the script runs with a {@code kubectl} on PATH
 * that adds that flag and otherwise execs {@code /usr/bin/kubectl}.
 */
@KubeLocalTest
@Timeout(240)
class WebhookSelfSignedIT {
  private static final Path SCRIPT =
      ObservabilityFiles.ROOT.resolve("ops/config/webhook/webhook-self-signed.sh");
  private static final String NS = "inference-cache-system";
  private static final String HOST = "webhook-service." + NS + ".svc";
  private static final String[] CONFIGURATIONS = {
    "mutatingwebhookconfiguration/inference-cache-mutating-webhook-configuration",
    "validatingwebhookconfiguration/inference-cache-validating-webhook-configuration"
  };

  @TempDir Path dir;

  @Test
  void theScriptWritesAServingSecretAndACaBundleThatVerifiesItUnderTheServiceName(
      final KubeLocal kube) throws Exception {
    final String label = String.format("%06x", ThreadLocalRandom.current().nextInt(0x1000000));
    final ProcessResult rendered =
        kube.kubectl(
            "kustomize",
            ObservabilityFiles.ROOT.resolve("ops/config/overlays/self-signed-webhook").toString());
    assertThat(rendered.exitCode()).as(rendered.stderr()).isZero();
    final RenderedBundle bundle = RenderedBundle.parse(rendered.stdout());
    assertThat(bundle.ofKind("Certificate")).isEmpty();
    final List<JsonNode> configurations = new ArrayList<>();
    configurations.addAll(bundle.ofKind("MutatingWebhookConfiguration"));
    configurations.addAll(bundle.ofKind("ValidatingWebhookConfiguration"));
    assertThat(configurations).hasSize(2);
    for (final JsonNode c : configurations) {
      for (final JsonNode w : c.path("webhooks")) {
        ((ObjectNode) w)
            .putObject("namespaceSelector")
            .putObject("matchLabels")
            .put("webhook-self-signed-it", label);
      }
    }
    kube.kubectl("create", "namespace", NS);
    try {
      final ProcessResult applied =
          kube.kubectlWithInput(
              new RenderedBundle(configurations).yaml(), "apply", "--validate=false", "-f", "-");
      assertThat(applied.exitCode()).as(applied.stderr()).isZero();

      final String firstBundle = runScript(kube);
      final String secondBundle = runScript(kube);
      assertThat(secondBundle).as("a second run renews the CA").isNotEqualTo(firstBundle);

      final JsonNode secret = json(kube, "-n", NS, "secret", "webhook-server-cert");
      assertThat(secret.path("type").asText()).isEqualTo("kubernetes.io/tls");
      final Path certs = Files.createDirectories(dir.resolve("certs"));
      Files.write(certs.resolve("tls.crt"), decode(secret.at("/data/tls.crt").asText()));
      Files.write(certs.resolve("tls.key"), decode(secret.at("/data/tls.key").asText()));
      try (WebhookServer server =
          new WebhookServer(
                  "127.0.0.1:0",
                  certs,
                  Webhooks.handlers(
                      kube.adminClient(), new SubscriberSidecar("inference-cache:0.1.0", "x:9090")))
              .start()) {
        final SSLContext trusting = trusting(decode(secondBundle));
        for (final String name : new String[] {HOST, HOST + ".cluster.local"}) {
          assertThat(review(trusting, server.port(), name))
              .startsWith("HTTP/1.1 200")
              .contains("requireChain requires enableChainMatching to be true");
        }
        assertThatThrownBy(() -> review(trusting, server.port(), "webhook-service.other.svc"))
            .isInstanceOf(SSLHandshakeException.class);
        assertThatThrownBy(() -> review(trusting(decode(firstBundle)), server.port(), HOST))
            .as("the replaced CA no longer verifies the renewed pair")
            .isInstanceOf(SSLHandshakeException.class);
      }
    } finally {
      for (final String c : CONFIGURATIONS) {
        kube.kubectl("delete", c, "--ignore-not-found");
      }
    }
  }

  /** Runs the script; returns the caBundle it set, asserted equal on every webhook. */
  private String runScript(final KubeLocal kube) throws Exception {
    final Path bin = Files.createDirectories(dir.resolve("bin"));
    final Path shim = bin.resolve("kubectl");
    Files.writeString(
        shim,
        "#!/bin/sh\nif [ \"$1\" = apply ]; then shift; exec /usr/bin/kubectl apply"
            + " --validate=false \"$@\"; fi\nexec /usr/bin/kubectl \"$@\"\n");
    Files.setPosixFilePermissions(shim, PosixFilePermissions.fromString("rwxr-xr-x"));
    final ProcessBuilder pb =
        new ProcessBuilder("bash", SCRIPT.toString(), "2")
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("script.log").toFile());
    pb.environment().put("KUBECONFIG", kube.kubeconfig().toString());
    pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
    final Process p = pb.start();
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    final String out = Files.readString(dir.resolve("script.log"));
    assertThat(p.exitValue()).as(out).isZero();
    assertThat(out).contains("caBundle set on both webhook configurations (valid 2 days)");
    String bundle = null;
    int webhooks = 0;
    for (final String c : CONFIGURATIONS) {
      for (final JsonNode w : json(kube, c).path("webhooks")) {
        final String b = w.at("/clientConfig/caBundle").asText();
        assertThat(b).as(c + " " + w.path("name").asText()).isNotEmpty();
        if (bundle != null) {
          assertThat(b).isEqualTo(bundle);
        }
        bundle = b;
        webhooks++;
      }
    }
    assertThat(webhooks).isEqualTo(9);
    return bundle;
  }

  private static JsonNode json(final KubeLocal kube, final String... what) throws IOException {
    final List<String> args = new ArrayList<>(List.of("get"));
    args.addAll(List.of(what));
    args.addAll(List.of("-o", "json"));
    final ProcessResult r = kube.kubectl(args.toArray(String[]::new));
    assertThat(r.exitCode()).as(r.stderr()).isZero();
    return RenderedBundle.YAML.readTree(r.stdout());
  }

  private static byte[] decode(final String base64) {
    return Base64.getDecoder().decode(base64);
  }

  private static SSLContext trusting(final byte[] caPem) throws Exception {
    final X509Certificate ca =
        (X509Certificate)
            CertificateFactory.getInstance("X.509")
                .generateCertificate(new ByteArrayInputStream(caPem));
    final KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
    store.load(null, null);
    store.setCertificateEntry("ca", ca);
    final TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(store);
    final SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  /**
   * A CachePolicy review POSTed to 127.0.0.1:{@code port} as if it were {@code host}: SNI and the
   * HTTPS hostname check use {@code host}. Returns the raw HTTP response.
   */
  private static String review(final SSLContext ctx, final int port, final String host)
      throws IOException {
    final String body =
        "{\"apiVersion\":\"admission.k8s.io/v1\",\"kind\":\"AdmissionReview\",\"request\":{"
            + "\"uid\":\"self-signed\",\"kind\":{\"group\":\"inferencecache.io\",\"version\":"
            + "\"v1alpha1\",\"kind\":\"CachePolicy\"},\"resource\":{\"group\":\"inferencecache.io\","
            + "\"version\":\"v1alpha1\",\"resource\":\"cachepolicies\"},\"name\":\"p\","
            + "\"namespace\":\"self-signed-probe\",\"operation\":\"CREATE\",\"object\":{"
            + "\"apiVersion\":\"inferencecache.io/v1alpha1\",\"kind\":\"CachePolicy\",\"metadata\":"
            + "{\"name\":\"p\",\"namespace\":\"self-signed-probe\"},\"spec\":{\"strategy\":"
            + "{\"enableChainMatching\":false,\"requireChain\":true}}}}}";
    final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    try (Socket plain = new Socket("127.0.0.1", port);
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(plain, host, port, true)) {
      final SSLParameters params = s.getSSLParameters();
      params.setEndpointIdentificationAlgorithm("HTTPS");
      params.setServerNames(List.of(new SNIHostName(host)));
      s.setSSLParameters(params);
      s.startHandshake();
      s.getOutputStream()
          .write(
              ("POST "
                      + Webhooks.VALIDATE_CACHE_POLICY
                      + " HTTP/1.1\r\nHost: "
                      + host
                      + "\r\nContent-Type: application/json\r\nContent-Length: "
                      + bytes.length
                      + "\r\nConnection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      s.getOutputStream().write(bytes);
      s.getOutputStream().flush();
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    }
  }
}
