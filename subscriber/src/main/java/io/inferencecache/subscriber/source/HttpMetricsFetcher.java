package io.inferencecache.subscriber.source;

import io.inferencecache.subscriber.decode.ScrapeException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * GETs the engine's {@code /metrics} with {@link HttpClient}: {@value #TIMEOUT_SECONDS} s connect
 * and request timeout, 200 required, body capped at {@value #MAX_BODY_BYTES} bytes, read as UTF-8.
 * Thread-safe.
 */
public final class HttpMetricsFetcher implements MetricsFetcher {
  /** Connect and whole-request timeout, seconds. */
  public static final int TIMEOUT_SECONDS = 5;

  /** Largest accepted body. */
  public static final int MAX_BODY_BYTES = 16 << 20;

  private final URI uri;
  private final HttpClient client;
  private final Duration timeout;

  /** A fetcher of {@code url} with the default timeout. */
  public HttpMetricsFetcher(final String url) {
    this(URI.create(url), Duration.ofSeconds(TIMEOUT_SECONDS));
  }

  /**
   * @param uri the absolute http(s) URI of the exposition
   * @param timeout connect and request timeout
   */
  public HttpMetricsFetcher(final URI uri, final Duration timeout) {
    this.uri = uri;
    this.timeout = timeout;
    this.client =
        HttpClient.newBuilder()
            .connectTimeout(timeout)
            .followRedirects(HttpClient.Redirect.NEVER)
            .build();
  }

  @Override
  public String fetch() throws ScrapeException {
    final HttpRequest request =
        HttpRequest.newBuilder(uri)
            .timeout(timeout)
            .header("Accept", "text/plain;version=0.0.4")
            .GET()
            .build();
    try {
      final HttpResponse<InputStream> response =
          client.send(request, HttpResponse.BodyHandlers.ofInputStream());
      try (InputStream body = response.body()) {
        if (response.statusCode() != 200) {
          throw new ScrapeException("scrape " + uri + ": status " + response.statusCode());
        }
        final byte[] bytes = body.readNBytes(MAX_BODY_BYTES + 1);
        if (bytes.length > MAX_BODY_BYTES) {
          throw new ScrapeException(
              "scrape " + uri + ": body larger than " + MAX_BODY_BYTES + " bytes");
        }
        return new String(bytes, StandardCharsets.UTF_8);
      }
    } catch (final IOException e) {
      throw new ScrapeException("scrape " + uri + ": " + e, e);
    } catch (final InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new ScrapeException("scrape " + uri + ": interrupted", e);
    }
  }

  /** The scraped URI. */
  public URI uri() {
    return uri;
  }
}
