package io.inferencecache.controlplane.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A tiny blocking HTTP client for the integration tests. Each call uses a fresh client (its own
 * connection): a pooled keep-alive connection that the server closed after an error response
 * (e.g. an oversized body) could otherwise be picked for the next request and fail it.
 */
public final class Http {

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
    final HttpClient client =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    return client.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  public static HttpResponse<String> get(final String url)
      throws IOException, InterruptedException {
    return call("GET", url, null, null);
  }
}
