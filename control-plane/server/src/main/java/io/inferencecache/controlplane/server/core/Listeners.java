package io.inferencecache.controlplane.server.core;

import io.dropwizard.core.server.DefaultServerFactory;
import io.dropwizard.core.server.ServerFactory;
import io.dropwizard.jetty.ConnectorFactory;
import io.dropwizard.jetty.HttpConnectorFactory;
import io.inferencecache.controlplane.server.config.ListenerSettings;
import io.inferencecache.service.server.BindAddress;
import io.inferencecache.service.server.GrpcServerConfig;
import java.util.List;

/**
 * Turns the listener addresses into Dropwizard application connectors: {@code :8080} and {@code
 * :8081} become two named {@link ListenerConnectorFactory}s of the (default) server factory.
 */
public final class Listeners {
  private Listeners() {}

  /**
   * Installs the two connectors.
   *
   * @throws StartupException exit 1 for an address that cannot be listened on, exit 2 for a server
   *     section that cannot carry them
   */
  public static void install(final ListenerSettings listeners, final ServerFactory serverFactory) {
    final BindAddress http = address("--http-bind-address", listeners.getHttp());
    final BindAddress snapshot = address("--snapshot-bind-address", listeners.getSnapshot());
    address(GrpcServerConfig.BIND_ADDRESS_FLAG, listeners.getGrpc());
    if (!(serverFactory instanceof DefaultServerFactory server)) {
      throw new StartupException(
          StartupException.USAGE,
          "server: server.type must be \"default\" (the application has two listeners)");
    }
    for (final ConnectorFactory admin : server.getAdminConnectors()) {
      if (admin instanceof HttpConnectorFactory h
          && h.getPort() != 0
          && (h.getPort() == http.port() || h.getPort() == snapshot.port())) {
        throw new StartupException(
            StartupException.USAGE,
            "server: server.adminConnectors: port "
                + h.getPort()
                + " is also a listener port (set server.adminConnectors explicitly, e.g. [] or"
                + " port 8082)");
      }
    }
    server.setApplicationConnectors(
        List.of(
            new ListenerConnectorFactory(ListenerConnectorFactory.PUBLIC, http, listeners),
            new ListenerConnectorFactory(ListenerConnectorFactory.SNAPSHOT, snapshot, listeners)));
  }

  /** The one Go {@code host:port} grammar of every listener (the gRPC server's parser). */
  private static BindAddress address(final String flag, final String addr) {
    try {
      return BindAddress.parse(flag, addr);
    } catch (IllegalArgumentException e) {
      throw new StartupException(StartupException.FAILURE, "server: " + e.getMessage(), e);
    }
  }
}
