package io.inferencecache.controlplane.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A tiny blocking HTTP client for the integration tests. A pooled keep-alive connection that the
 * server closed after an error response (e.g. an oversized body) can be picked for the next request
 * and fail before any byte arrives; such a call is sent once more on a new connection.
 */
public final class Http {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  private Http() {}

  public static HttpResponse<String> call(
      final String method, final String url, final String body, final String authorization)
      throws IOException, InterruptedException {
    final HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(url))
            .timeout(Duration.ofSeconds(20))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    final HttpRequest request = b.build();
    try {
      return CLIENT.send(request, HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      if (e.getMessage() == null || !e.getMessage().contains("received no bytes")) {
        throw e;
      }
      return CLIENT.send(request, HttpResponse.BodyHandlers.ofString()); // stale pooled connection
    }
  }

  public static HttpResponse<String> get(final String url)
      throws IOException, InterruptedException {
    return call("GET", url, null, null);
  }
}
