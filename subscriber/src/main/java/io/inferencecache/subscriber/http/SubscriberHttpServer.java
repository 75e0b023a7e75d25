package io.inferencecache.subscriber.http;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.inferencecache.subscriber.config.HttpAddress;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.exporter.common.TextFormat;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscriber's HTTP endpoint on the JDK's {@code com.sun.net.httpserver} (no servlet container
 * in a 64 MiB sidecar), one daemon handler thread:
 *
 * <ul>
 *   <li>{@code GET /metrics}: the {@link SubscriberMetrics} families in Prometheus text format
 *       0.0.4 (simpleclient's writer);
 *   <li>{@code GET /healthz}: 200 {@code ok} while the process answers (liveness);
 *   <li>{@code GET /readyz}: 200 {@code ready} when every readiness check passes, else 503 with one
 *       line per failing check ({@code engine: ...}, {@code sink: ...});
 *   <li>any other path: 404 naming the paths served; another method: 405 with {@code Allow}.
 * </ul>
 *
 * {@code HEAD} is answered like {@code GET} without a body. Start and close from one thread.
 */
public final class SubscriberHttpServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SubscriberHttpServer.class);
  private static final String TEXT = "text/plain; charset=utf-8";

  /** One readiness check: its name, and the problem now or null when it passes. */
  public record Check(String name, Supplier<String> problem) {
    /** Validates the parts. */
    public Check {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(problem, "problem");
    }
  }

  private final CollectorRegistry registry;
  private final List<Check> checks;
  private final HttpServer server;
  private final ExecutorService executor;

  /**
   * Binds {@code address} (nothing is served before {@link #start()}).
   *
   * @throws UncheckedIOException when the address cannot be bound
   */
  public SubscriberHttpServer(
      final HttpAddress address, final CollectorRegistry registry, final List<Check> checks) {
    this.registry = Objects.requireNonNull(registry, "registry");
    this.checks = List.copyOf(checks);
    try {
      this.server = HttpServer.create(address.socketAddress(), 16);
    } catch (final IOException e) {
      throw new UncheckedIOException("--http-address " + address + ": cannot bind: " + e, e);
    }
    this.executor =
        Executors.newSingleThreadExecutor(
            r -> {
              final Thread t = new Thread(r, "kvevent-subscriber-http");
              t.setDaemon(true);
              return t;
            });
    server.setExecutor(executor);
    server.createContext("/", this::handle);
  }

  /** Starts answering. */
  public void start() {
    server.start();
    LOG.info("subscriber HTTP endpoint listening on {}", address());
  }

  /** The bound address (its port when 0 was asked for). */
  public InetSocketAddress address() {
    return server.getAddress();
  }

  private void handle(final HttpExchange exchange) throws IOException {
    try (exchange) {
      final String method = exchange.getRequestMethod();
      final String path = exchange.getRequestURI().getPath();
      if (!method.equals("GET") && !method.equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        text(exchange, 405, "method " + method + " not allowed; use GET\n");
        return;
      }
      switch (path) {
        case "/metrics" -> metrics(exchange);
        case "/healthz" -> text(exchange, 200, "ok\n");
        case "/readyz" -> readyz(exchange);
        default ->
            text(
                exchange,
                404,
                "no such path: " + path + " (this endpoint serves /metrics, /healthz, /readyz)\n");
      }
    } catch (final RuntimeException e) {
      LOG.warn("subscriber HTTP request failed: {}", e.toString());
      throw e;
    }
  }

  private void metrics(final HttpExchange exchange) throws IOException {
    final StringWriter page = new StringWriter();
    TextFormat.write004(page, registry.metricFamilySamples());
    send(exchange, 200, TextFormat.CONTENT_TYPE_004, page.toString());
  }

  private void readyz(final HttpExchange exchange) throws IOException {
    final StringBuilder problems = new StringBuilder();
    for (final Check c : checks) {
      final String problem = c.problem().get();
      if (problem != null) {
        problems.append(c.name()).append(": ").append(problem).append('\n');
      }
    }
    if (problems.length() == 0) {
      text(exchange, 200, "ready\n");
    } else {
      text(exchange, 503, problems.toString());
    }
  }

  private static void text(final HttpExchange exchange, final int status, final String body)
      throws IOException {
    send(exchange, status, TEXT, body);
  }

  private static void send(
      final HttpExchange exchange, final int status, final String contentType, final String body)
      throws IOException {
    final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", contentType);
    final boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** Stops answering (in-flight requests get up to a second) and stops the handler thread. */
  @Override
  public void close() {
    server.stop(1);
    executor.shutdownNow();
  }
}
