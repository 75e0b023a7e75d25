package io.inferencecache.controlplane.controller;

import com.codahale.metrics.MetricRegistry;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.inferencecache.controlplane.https.HttpsListener;
import io.inferencecache.controlplane.metrics.PrometheusExposition;
import io.inferencecache.service.server.BindAddress;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLException;

/**
 * The controller's two plain-HTTP listeners: health ({@code /healthz}, {@code /readyz}, both a
 * plain ping) and metrics ({@code /metrics}: the controller's Dropwizard registry through the
 * server's own bridge, {@link PrometheusExposition}, so the catalogued families keep their names,
 * types and labels and the JVM collectors come along). Each binds at construction; a bind failure
 * is an {@link IOException} naming the address.
 */
public final class ControllerListeners implements AutoCloseable {
  private final List<HttpServer> servers = new ArrayList<>();
  private final PrometheusExposition exposition;

  /** Plain-HTTP metrics. */
  public ControllerListeners(
      final String healthAddress, final String metricsAddress, final MetricRegistry registry)
      throws IOException {
    this(healthAddress, metricsAddress, registry, null);
  }

  /**
   * @param metricsTls the metrics listener's TLS ({@link #tls(Path)}), or {@code null} for HTTP
   */
  public ControllerListeners(
      final String healthAddress,
      final String metricsAddress,
      final MetricRegistry registry,
      final SSLContext metricsTls)
      throws IOException {
    exposition = new PrometheusExposition(registry);
    try {
      final HttpServer health = bind("health-probe-bind-address", healthAddress, null);
      health.createContext("/healthz", ex -> reply(ex, 200, "text/plain", "ok\n"));
      health.createContext("/readyz", ex -> reply(ex, 200, "text/plain", "ok\n"));
      if (!"0".equals(metricsAddress)) {
        final HttpServer metrics = bind("metrics-bind-address", metricsAddress, metricsTls);
        metrics.createContext("/metrics", this::metrics);
      }
    } catch (IOException | RuntimeException e) {
      close();
      throw e;
    }
    for (final HttpServer s : servers) {
      s.start();
    }
  }

  /** The bound port of listener {@code i} (0 health, 1 metrics). */
  public int port(final int i) {
    return servers.get(i).getAddress().getPort();
  }

  /**
   * The TLS of {@code --metrics-secure}: {@code tls.crt} (PEM chain) and {@code tls.key} (PEM
   * PKCS#8) in {@code certDir}, TLS 1.2 and 1.3, ALPN offering only {@code http/1.1}.
   *
   * @throws IOException naming the file when the pair cannot be read or does not match
   */
  public static SSLContext tls(final Path certDir) throws IOException {
    final File cert = certDir.resolve("tls.crt").toFile();
    final File key = certDir.resolve("tls.key").toFile();
    try {
      final SslContext ctx =
          SslContextBuilder.forServer(cert, key)
              .sslProvider(SslProvider.JDK)
              .protocols("TLSv1.3", "TLSv1.2")
              .build();
      return ((JdkSslContext) ctx).context();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IOException("--metrics-cert-dir: " + cert + " / " + key + ": " + e.getMessage(), e);
    }
  }

  private HttpServer bind(final String flag, final String address, final SSLContext tls)
      throws IOException {
    final BindAddress a;
    try {
      a = BindAddress.parse("--" + flag, address);
    } catch (IllegalArgumentException e) {
      throw new IOException("--" + flag + ": " + e.getMessage(), e);
    }
    final InetSocketAddress socket = HttpsListener.socket(a);
    final HttpServer s;
    try {
      if (tls == null) {
        s = HttpServer.create(socket, 16);
      } else {
        s = HttpsListener.bind(socket, 16, tls);
      }
    } catch (IOException e) {
      throw new IOException("--" + flag + " " + address + ": " + e.getMessage(), e);
    }
    s.setExecutor(Executors.newSingleThreadExecutor(r -> Daemons.thread(r, "controller-" + flag)));
    servers.add(s);
    return s;
  }

  private void metrics(final HttpExchange ex) throws IOException {
    final StringWriter out = new StringWriter(8192);
    exposition.write(out);
    reply(ex, 200, PrometheusExposition.CONTENT_TYPE, out.toString());
  }

  private static void reply(
      final HttpExchange ex, final int status, final String type, final String body)
      throws IOException {
    final byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(status, bytes.length);
    try (OutputStream os = ex.getResponseBody()) {
      os.write(bytes);
    }
  }

  @Override
  public void close() {
    for (final HttpServer s : servers) {
      s.stop(0);
    }
  }
}
