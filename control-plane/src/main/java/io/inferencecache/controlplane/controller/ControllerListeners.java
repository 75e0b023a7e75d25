package io.inferencecache.controlplane.controller;

import com.codahale.metrics.MetricRegistry;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.inferencecache.service.server.GrpcServerConfig.BindAddress;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.dropwizard.DropwizardExports;
import io.prometheus.client.exporter.common.TextFormat;
import io.prometheus.client.hotspot.DefaultExports;
import java.io.IOException;
import java.io.OutputStream;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;

/**
 * The controller's two plain-HTTP listeners: health ({@code /healthz}, {@code /readyz}, both a
 * plain ping) and metrics ({@code /metrics}: the controller's Dropwizard registry through the
 * Prometheus bridge, plus the JVM collectors). Each binds at construction; a bind failure is an
 * {@link IOException} naming the address.
 */
public final class ControllerListeners implements AutoCloseable {
  private final List<HttpServer> servers = new ArrayList<>();
  private final CollectorRegistry prometheus = new CollectorRegistry();

  public ControllerListeners(
      final String healthAddress, final String metricsAddress, final MetricRegistry registry)
      throws IOException {
    prometheus.register(new DropwizardExports(registry));
    DefaultExports.register(prometheus);
    try {
      final HttpServer health = bind("health-probe-bind-address", healthAddress);
      health.createContext("/healthz", ex -> reply(ex, 200, "text/plain", "ok\n"));
      health.createContext("/readyz", ex -> reply(ex, 200, "text/plain", "ok\n"));
      if (!"0".equals(metricsAddress)) {
        final HttpServer metrics = bind("metrics-bind-address", metricsAddress);
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

  /** The registry behind {@code /metrics} (for collectors that carry labels). */
  public CollectorRegistry prometheus() {
    return prometheus;
  }

  /** The bound port of listener {@code i} (0 health, 1 metrics). */
  public int port(final int i) {
    return servers.get(i).getAddress().getPort();
  }

  private HttpServer bind(final String flag, final String address) throws IOException {
    final BindAddress a;
    try {
      a = BindAddress.parse("--" + flag, address);
    } catch (IllegalArgumentException e) {
      throw new IOException("--" + flag + ": " + e.getMessage(), e);
    }
    final InetSocketAddress socket =
        a.host().isEmpty()
            ? new InetSocketAddress(a.port())
            : new InetSocketAddress(a.host(), a.port());
    final HttpServer s;
    try {
      s = HttpServer.create(socket, 16);
    } catch (IOException e) {
      throw new IOException("--" + flag + " " + address + ": " + e.getMessage(), e);
    }
    s.setExecutor(Executors.newSingleThreadExecutor(r -> Daemons.thread(r, "controller-" + flag)));
    servers.add(s);
    return s;
  }

  private void metrics(final HttpExchange ex) throws IOException {
    final StringWriter out = new StringWriter(8192);
    TextFormat.write004(out, prometheus.metricFamilySamples());
    reply(ex, 200, TextFormat.CONTENT_TYPE_004, out.toString());
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
