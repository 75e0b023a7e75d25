package io.inferencecache.controlplane.controller.backend;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.inferencecache.controlplane.controller.bridge.ServerBridge;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * {@code POST /probe} on the server's snapshot listener with the controller-audience token (re-read
 * per call; a missing file sends none, an unreadable one is an error), 5 s timeout. Any failure —
 * transport, non-2xx (with up to 1 KiB of the body), an undecodable answer, an answer about another
 * backend — is an {@link IOException} whose message an operator can act on.
 */
final class ProbeClient {
  static final String MODEL = "functional-self-test";
  private static final int SNIPPET = 1024;
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final String url;
  private final Path tokenFile;

  ProbeClient(final String url, final Path tokenFile) {
    this.url = url;
    this.tokenFile = tokenFile;
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(ServerBridge.TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /** Stage outcomes ({@code ok}, {@code failed}, {@code skipped}, or anything the server said). */
  record Outcome(
      String ingest,
      String routing,
      String t2,
      String ingestError,
      String routingError,
      String t2Error) {}

  static String requestBody(final String backend, final String hashScheme, final String type) {
    final ObjectNode body = JSON.createObjectNode();
    body.put("backend", backend);
    body.put("model", MODEL);
    body.put("hashScheme", hashScheme);
    if (type != null && !type.isEmpty()) {
      body.put("backendType", type);
    }
    return body.toString();
  }

  Outcome run(final String backend, final String hashScheme, final String type)
      throws IOException, InterruptedException {
    final HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(ServerBridge.TIMEOUT)
            .header("Content-Type", "application/json")
            .POST(
                HttpRequest.BodyPublishers.ofString(
                    requestBody(backend, hashScheme, type), StandardCharsets.UTF_8));
    final String token =
        tokenFile == null ? null : ServerBridge.readToken(tokenFile); // unreadable: IOException
    if (token != null && !token.isEmpty()) {
      req.header("Authorization", "Bearer " + token);
    }
    final HttpResponse<String> resp;
    try {
      resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new IOException("probe " + url + " unreachable: " + e, e);
    }
    if (resp.statusCode() / 100 != 2) {
      final String body = resp.body().strip();
      throw new IOException(
          "probe "
              + url
              + " answered "
              + resp.statusCode()
              + ": "
              + (body.length() > SNIPPET ? body.substring(0, SNIPPET) : body));
    }
    final JsonNode answer;
    try {
      answer = JSON.readTree(resp.body());
    } catch (IOException e) {
      throw new IOException("probe " + url + " answer is not JSON: " + e.getMessage(), e);
    }
    if (answer == null || !answer.isObject()) {
      throw new IOException("probe " + url + " answer is not a JSON object");
    }
    final String echoed = answer.path("backend").asText("");
    if (!backend.equals(echoed)) {
      throw new IOException(
          "probe " + url + " answered for backend \"" + echoed + "\", asked for " + backend);
    }
    String ingestError = null;
    String routingError = null;
    String t2Error = null;
    for (final JsonNode e : answer.path("errors")) {
      final String message = e.path("message").asText("");
      switch (e.path("stage").asText("")) {
        case "ingest" -> ingestError = message;
        case "routing" -> routingError = message;
        case "t2" -> t2Error = message;
        default -> {}
      }
    }
    return new Outcome(
        answer.path("ingest").asText(""),
        answer.path("routing").asText(""),
        answer.path("t2").asText(""),
        ingestError,
        routingError,
        t2Error);
  }
}
