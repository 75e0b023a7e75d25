package io.inferencecache.controlplane.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.controller.metrics.ControllerMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The controller's health and metrics listeners on loopback, plain and with --metrics-secure. */
@Timeout(60)
class ControllerListenersIT {
  @TempDir Path dir;

  private static HttpResponse<String> get(final HttpClient client, final String url)
      throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A self-signed pair for 127.0.0.1 written by openssl as tls.crt / tls.key (PKCS#8). */
  private Path certDir() throws Exception {
    final Path certs = Files.createDirectories(dir.resolve("certs"));
    final Process p =
        new ProcessBuilder(
                "openssl",
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-subj",
                "/CN=controller-metrics",
                "-addext",
                "subjectAltName=IP:127.0.0.1",
                "-keyout",
                certs.resolve("tls.key").toString(),
                "-out",
                certs.resolve("tls.crt").toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("openssl.log").toFile())
            .start();
    assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as(Files.readString(dir.resolve("openssl.log"))).isZero();
    return certs;
  }

  private static SSLContext trusting(final Path cert) throws Exception {
    final KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
    ks.load(null, null);
    try (InputStream in = Files.newInputStream(cert)) {
      ks.setCertificateEntry(
          "metrics", CertificateFactory.getInstance("X.509").generateCertificate(in));
    }
    final TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ks);
    final SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(null, tmf.getTrustManagers(), null);
    return ctx;
  }

  @Test
  void servesHealthAndTheBridgedMetricsOverPlainHttp() throws Exception {
    final MetricRegistry registry = new MetricRegistry();
    new ControllerMetrics(registry).controller("cachepolicies-policy-push");
    try (ControllerListeners l = new ControllerListeners("127.0.0.1:0", "127.0.0.1:0", registry)) {
      final HttpClient client = HttpClient.newHttpClient();
      assertThat(get(client, "http://127.0.0.1:" + l.port(0) + "/healthz").body())
          .isEqualTo("ok\n");
      assertThat(get(client, "http://127.0.0.1:" + l.port(0) + "/readyz").statusCode())
          .isEqualTo(200);
      final HttpResponse<String> m = get(client, "http://127.0.0.1:" + l.port(1) + "/metrics");
      assertThat(m.headers().firstValue("Content-Type"))
          .hasValueSatisfying(t -> t.startsWith("text/plain; version=0.0.4"));
      assertThat(m.body())
          .contains(
              "controller_runtime_reconcile_total{controller=\"cachepolicies-policy-push\","
                  + "result=\"success\",} 0.0")
          .contains("jvm_threads_current");
    }
  }

  @Test
  void metricsSecureServesTlsWithTheGivenPairAndOffersOnlyHttp11() throws Exception {
    final Path certs = certDir();
    final MetricRegistry registry = new MetricRegistry();
    new ControllerMetrics(registry);
    try (ControllerListeners l =
        new ControllerListeners(
            "127.0.0.1:0", "127.0.0.1:0", registry, ControllerListeners.tls(certs))) {
      final HttpClient client =
          HttpClient.newBuilder()
              .sslContext(trusting(certs.resolve("tls.crt")))
              .version(HttpClient.Version.HTTP_2)
              .build();
      final HttpResponse<String> m = get(client, "https://127.0.0.1:" + l.port(1) + "/metrics");
      assertThat(m.statusCode()).isEqualTo(200);
      assertThat(m.version())
          .as("ALPN offers http/1.1 only")
          .isEqualTo(HttpClient.Version.HTTP_1_1);
      assertThat(m.body()).contains("leader_election_master_status");
      assertThatThrownBy(
              () -> get(HttpClient.newHttpClient(), "http://127.0.0.1:" + l.port(1) + "/metrics"))
          .isInstanceOf(IOException.class);
    }
  }

  @Test
  void aMissingPairIsAnErrorNamingTheFiles() {
    assertThatThrownBy(() -> ControllerListeners.tls(dir.resolve("nowhere")))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("--metrics-cert-dir")
        .hasMessageContaining("tls.crt");
  }
}
