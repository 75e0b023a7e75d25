package io.inferencecache.controlplane.support;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/** A tiny blocking HTTP client for the integration tests. */
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
    return CLIENT.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  public static HttpResponse<String> get(final String url)
      throws IOException, InterruptedException {
    return call("GET", url, null, null);
  }
}
