package io.inferencecache.controlplane.server.core;

import io.inferencecache.controlplane.server.metrics.ServerMetrics;
import java.util.ArrayList;
import java.util.List;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.NetworkConnector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.component.LifeCycle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The server's lifecycle lines and flags: on start (listeners bound, index open, gRPC serving)
 * marks ready, sets {@code server_up} and logs {@code startup}; on stop logs {@code
 * graceful_shutdown_started}, marks not ready and clears {@code server_up} before anything drains,
 * and logs {@code graceful_shutdown_done} once everything (index included) is closed.
 */
public final class ServerEvents implements LifeCycle.Listener {
  private static final Logger LOG = LoggerFactory.getLogger("io.inferencecache.controlplane");

  private final Readiness readiness;
  private final ServerMetrics metrics;
  private final String grpcAddress;
  private volatile List<String> boundListeners = List.of();

  public ServerEvents(final Readiness readiness, final ServerMetrics metrics, final String grpc) {
    this.readiness = readiness;
    this.metrics = metrics;
    this.grpcAddress = grpc;
  }

  /** Called once the server has started. */
  public void serverStarted(final Server server) {
    final List<String> bound = new ArrayList<>();
    for (final Connector c : server.getConnectors()) {
      if (c instanceof NetworkConnector n) {
        bound.add(
            c.getName() + "=" + (n.getHost() == null ? "" : n.getHost()) + ":" + n.getLocalPort());
      }
    }
    boundListeners = List.copyOf(bound);
    readiness.markStarted();
    metrics.up(true);
    LOG.info("startup grpc={} listeners={}", grpcAddress, boundListeners);
  }

  /** The bound listeners as {@code name=host:port}, after start. */
  public List<String> boundListeners() {
    return boundListeners;
  }

  @Override
  public void lifeCycleStopping(final LifeCycle event) {
    LOG.info("graceful_shutdown_started");
    readiness.markStopping();
    metrics.up(false);
  }

  @Override
  public void lifeCycleStopped(final LifeCycle event) {
    LOG.info("graceful_shutdown_done");
  }
}
