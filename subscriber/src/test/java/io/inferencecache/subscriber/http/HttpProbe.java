package io.inferencecache.subscriber.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Requests to a subscriber's HTTP endpoint on loopback, and reading values off its page. */
public final class HttpProbe {
  private static final HttpClient CLIENT =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  /** A response: status and body. */
  public record Answer(int status, String body, String contentType) {}

  private final String base;

  /** A probe of the endpoint bound at {@code address} (its port, on 127.0.0.1). */
  public HttpProbe(final InetSocketAddress address) {
    this.base = "http://127.0.0.1:" + address.getPort();
  }

  /** {@code method} on {@code path}. */
  public Answer send(final String method, final String path) {
    try {
      final HttpResponse<String> r =
          CLIENT.send(
              HttpRequest.newBuilder(URI.create(base + path))
                  .method(method, HttpRequest.BodyPublishers.noBody())
                  .timeout(Duration.ofSeconds(5))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return new Answer(
          r.statusCode(), r.body(), r.headers().firstValue("Content-Type").orElse(""));
    } catch (final IOException e) {
      throw new UncheckedIOException(e);
    } catch (final InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** {@code GET path}. */
  public Answer get(final String path) {
    return send("GET", path);
  }

  /** The value of {@code series} (name and labels as the page writes them) on {@code /metrics}. */
  public double metric(final String series) {
    final Answer a = get("/metrics");
    assertThat(a.status()).isEqualTo(200);
    return value(a.body(), series);
  }

  /** The value of {@code series} on {@code page}; fails when it is absent. */
  public static double value(final String page, final String series) {
    final Matcher m = Pattern.compile("(?m)^" + Pattern.quote(series) + " (\\S+)$").matcher(page);
    assertThat(m.find()).as(series + " in\n" + page).isTrue();
    return Double.parseDouble(m.group(1));
  }
}
