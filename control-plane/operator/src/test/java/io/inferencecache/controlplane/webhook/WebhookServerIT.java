package io.inferencecache.controlplane.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import javax.net.ssl.SSLSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The HTTPS webhook listener on a loopback port with a test CA. */
@Timeout(60)
class WebhookServerIT {
  @TempDir Path certs;
  private WebhookCerts ca;
  private WebhookServer server;

  @BeforeEach
  void start() throws Exception {
    ca = new WebhookCerts();
    ca.writeServing(certs, "webhook-1");
    server =
        new WebhookServer(
                "127.0.0.1:0",
                certs,
                Map.of(
                    "/ok",
                    request -> AdmissionResponse.allow(),
                    "/boom",
                    request -> {
                      throw new IllegalStateException("handler bug");
                    },
                    Webhooks.VALIDATE_CACHE_POLICY,
                    new CachePolicyValidator(ns -> java.util.List.of())))
            .start();
  }

  @AfterEach
  void stop() {
    server.close();
  }

  private HttpResponse<String> post(final String path, final String type, final String body)
      throws Exception {
    final HttpClient client =
        HttpClient.newBuilder()
            .sslContext(ca.clientContext())
            .version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(5))
            .build();
    final HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + path))
            .timeout(Duration.ofSeconds(10))
            .POST(HttpRequest.BodyPublishers.ofString(body));
    if (type != null) {
      r.header("Content-Type", type);
    }
    return client.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static String review(final String op) {
    return Reviews.body(op, "", "Pod", "ns", "{'metadata':{'name':'p'},'spec':{}}", null);
  }

  @Test
  void answersAnAdmissionReviewOverTlsSignedByTheCa() throws Exception {
    final HttpResponse<String> r = post("/ok", "application/json", review("CREATE"));
    assertThat(r.statusCode()).isEqualTo(200);
    final JsonNode body = AdmissionRequest.JSON.readTree(r.body());
    assertThat(body.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
    assertThat(body.path("kind").asText()).isEqualTo("AdmissionReview");
    assertThat(body.path("response").path("uid").asText()).isEqualTo("uid-1");
    assertThat(body.path("response").path("allowed").asBoolean()).isTrue();
  }

  @Test
  void malformedBodyIs400WithTheReason() throws Exception {
    final HttpResponse<String> r = post("/ok", "application/json", "{\"apiVersion\": ");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).startsWith("request body is not valid JSON");
    assertThat(post("/ok", "application/json", "").body()).contains("request body is empty");
    assertThat(post("/ok", "application/json", "[1]").body()).contains("not a JSON object");
  }

  @Test
  void wrongApiVersionIs400() throws Exception {
    final HttpResponse<String> r =
        post(
            "/ok",
            "application/json",
            review("CREATE").replace("admission.k8s.io/v1", "admission.k8s.io/v1beta1"));
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body())
        .contains("unsupported AdmissionReview apiVersion \"admission.k8s.io/v1beta1\"");
  }

  @Test
  void oversizedBodyIs413() throws Exception {
    final String big = "{\"pad\":\"" + "x".repeat(WebhookServer.MAX_BODY_BYTES) + "\"}";
    final HttpResponse<String> r = post("/ok", "application/json", big);
    assertThat(r.statusCode()).isEqualTo(413);
  }

  @Test
  void unknownPathMethodAndContentTypeAre4xx() throws Exception {
    assertThat(post("/nope", "application/json", review("CREATE")).statusCode()).isEqualTo(404);
    assertThat(post("/ok", "text/plain", review("CREATE")).statusCode()).isEqualTo(415);
    assertThat(post("/ok", null, review("CREATE")).statusCode()).isEqualTo(415);
    final HttpClient client = HttpClient.newBuilder().sslContext(ca.clientContext()).build();
    final HttpResponse<String> get =
        client.send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + "/ok"))
                .GET()
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(get.statusCode()).isEqualTo(405);
  }

  @Test
  void unknownKindIsARefusedReviewNamingTheKind() throws Exception {
    final HttpResponse<String> r =
        post(Webhooks.VALIDATE_CACHE_POLICY, "application/json", review("CREATE"));
    assertThat(r.statusCode()).isEqualTo(200);
    final JsonNode response = AdmissionRequest.JSON.readTree(r.body()).path("response");
    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("code").asInt()).isEqualTo(400);
    assertThat(response.path("status").path("message").asText()).contains("got v1, Kind=Pod");
  }

  @Test
  void handlerFailureIs500AndTheServerKeepsServing() throws Exception {
    assertThat(post("/boom", "application/json", review("CREATE")).statusCode()).isEqualTo(500);
    assertThat(post("/ok", "application/json", review("CREATE")).statusCode()).isEqualTo(200);
  }

  @Test
  void reloadsTheCertificateWhenTheFilesChange() throws Exception {
    assertThat(servedCommonName()).contains("webhook-1");
    final X509Certificate next = ca.writeServing(certs, "webhook-2");
    Files.setLastModifiedTime(
        certs.resolve(WebhookServer.CERT_FILE), FileTime.from(Instant.now().plusSeconds(5)));
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(300))
        .untilAsserted(() -> assertThat(servedCommonName()).contains("webhook-2"));
    assertThat(server.certificate().getSerialNumber()).isEqualTo(next.getSerialNumber());
  }

  @Test
  void startupFailsNamingTheFlagWhenTheCertificateIsMissing(@TempDir final Path empty) {
    assertThatThrownBy(() -> new WebhookServer("127.0.0.1:0", empty, Map.of()))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("--webhook-cert-dir")
        .hasMessageContaining("tls.crt");
  }

  private String servedCommonName() throws Exception {
    final HttpClient client =
        HttpClient.newBuilder()
            .sslContext(ca.clientContext())
            .version(HttpClient.Version.HTTP_1_1)
            .build();
    final HttpResponse<String> r =
        client.send(
            HttpRequest.newBuilder(URI.create("https://127.0.0.1:" + server.port() + "/ok"))
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(review("CREATE")))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    final SSLSession s = r.sslSession().orElseThrow();
    return ((X509Certificate) s.getPeerCertificates()[0]).getSubjectX500Principal().getName();
  }
}
