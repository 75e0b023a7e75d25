package io.inferencecache.controlplane.server.core;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.inferencecache.controlplane.server.config.ListenerSettings;
import io.inferencecache.service.server.BindAddress;
import org.eclipse.jetty.server.AbstractConnector;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.util.thread.ThreadPool;

/**
 * A Dropwizard HTTP application connector that carries the name of the listener it serves ({@link
 * #PUBLIC} for {@code :8080}, {@link #SNAPSHOT} for {@code :8081}) instead of Dropwizard's common
 * {@code application}, so that the router can tell the two listeners apart whatever their ports
 * (including ephemeral ones), and with the listener's connection limits: at most {@code
 * listeners.httpMaxConnections} open connections ({@link HttpConnectionLimit}: surplus ones are
 * closed at once, and at the cap open ones get {@code listeners.httpLimitedIdleTimeout}), and
 * {@code listeners.httpHeaderTimeout} to send a request's headers ({@link HeaderTimeout}).
 */
public final class ListenerConnectorFactory extends HttpConnectorFactory {
  /** The public listener: {@code /healthz}, {@code /readyz}, {@code /metrics}. */
  public static final String PUBLIC = "inferencecache-public";

  /** The snapshot listener: {@code /snapshot}, {@code /policy}, {@code /probe}. */
  public static final String SNAPSHOT = "inferencecache-snapshot";

  private final String listenerName;
  private final ListenerSettings limits;

  public ListenerConnectorFactory(
      final String listenerName, final BindAddress address, final ListenerSettings limits) {
    this.listenerName = listenerName;
    this.limits = limits;
    setBindHost(address.wildcard() ? null : address.host()); // null: every interface
    setPort(address.port());
  }

  public String listenerName() {
    return listenerName;
  }

  @Override
  public Connector build(
      final Server server,
      final MetricRegistry metrics,
      final String name,
      final ThreadPool threadPool) {
    final Connector connector = super.build(server, metrics, listenerName, threadPool);
    if (connector instanceof AbstractConnector c) {
      c.addEventListener(
          new HeaderTimeout(
              limits.getHttpHeaderTimeout().toMilliseconds(), c.getScheduler(), listenerName));
    }
    if (limits.getHttpMaxConnections() > 0 && connector instanceof AbstractConnector c) {
      c.addEventListener(
          new HttpConnectionLimit(
              limits.getHttpMaxConnections(),
              limits.getHttpLimitedIdleTimeout().toMilliseconds(),
              c,
              listenerName));
    }
    return connector;
  }

  @Override
  protected String httpConnections() {
    // Outside the inferencecache_ namespace: jetty_listener_<name>_connections.
    return MetricRegistry.name(
        "jetty", "listener", listenerName.substring(listenerName.indexOf('-') + 1), "connections");
  }
}
