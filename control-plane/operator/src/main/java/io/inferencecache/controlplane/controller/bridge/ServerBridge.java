package io.inferencecache.controlplane.controller.bridge;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The controller's side of the server's snapshot listener: {@code POST /policy} and {@code GET
 * /snapshot}, 5 s per request, each with a bearer token re-read from its projected token file on
 * every call. A missing token file sends the request unauthenticated without complaint; an
 * unreadable one is logged and the request still goes out unauthenticated.
 */
public final class ServerBridge {
  private static final Logger LOG = LoggerFactory.getLogger(ServerBridge.class);

  /** Timeout of every bridge request. */
  public static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final HttpClient http;

  public ServerBridge() {
    this.http =
        HttpClient.newBuilder()
            .connectTimeout(TIMEOUT)
            .version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  /** A non-2xx answer (or, for the snapshot, non-200), with the server's own message. */
  public static final class BridgeException extends IOException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String serverMessage;

    BridgeException(final String url, final int status, final String serverMessage) {
      super(url + " answered " + status + ": " + serverMessage);
      this.status = status;
      this.serverMessage = serverMessage;
    }

    public int status() {
      return status;
    }

    public String serverMessage() {
      return serverMessage;
    }
  }

  /**
   * The bearer token in {@code file}, trimmed; {@code null} when the file does not exist.
   *
   * @throws IOException when it exists but cannot be read
   */
  public static String readToken(final Path file) throws IOException {
    try {
      return Files.readString(file, StandardCharsets.UTF_8).strip();
    } catch (NoSuchFileException e) {
      return null;
    }
  }

  /**
   * POSTs {@code body} to {@code url}.
   *
   * @throws BridgeException on a non-2xx answer
   * @throws IOException on a transport failure or timeout
   */
  public void postPolicy(final String url, final String body, final Path tokenFile)
      throws IOException, InterruptedException {
    final HttpRequest.Builder req =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(TIMEOUT)
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body, StandardCharsets.UTF_8));
    authorize(req, tokenFile);
    final HttpResponse<String> resp =
        http.send(req.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
    if (resp.statusCode() / 100 != 2) {
      throw new BridgeException(url, resp.statusCode(), resp.body().strip());
    }
  }

  /**
   * GETs {@code url}; returns the body of a 200 answer.
   *
   * @throws BridgeException on any other status
   * @throws IOException on a transport failure or timeout
   */
  public byte[] getSnapshot(final String url, final Path tokenFile)
      throws IOException, InterruptedException {
    final HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(url)).timeout(TIMEOUT).GET();
    authorize(req, tokenFile);
    final HttpResponse<byte[]> resp =
        http.send(req.build(), HttpResponse.BodyHandlers.ofByteArray());
    if (resp.statusCode() != 200) {
      throw new BridgeException(
          url, resp.statusCode(), new String(resp.body(), StandardCharsets.UTF_8).strip());
    }
    return resp.body();
  }

  private static void authorize(final HttpRequest.Builder req, final Path tokenFile) {
    if (tokenFile == null) {
      return;
    }
    try {
      final String token = readToken(tokenFile);
      if (token != null && !token.isEmpty()) {
        req.header("Authorization", "Bearer " + token);
      }
    } catch (IOException e) {
      LOG.error("bearer token {} unreadable, sending unauthenticated: {}", tokenFile, e.toString());
    }
  }
}
