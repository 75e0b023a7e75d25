package io.inferencecache.controlplane.server.resources;

import io.inferencecache.controlplane.server.core.ListenerConnectorFactory;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import org.eclipse.jetty.ee10.servlet.ServletContextRequest;
import org.eclipse.jetty.server.Connector;

/**
 * The one servlet of the application context: dispatches on (listener, exact path) so that {@code
 * :8080} serves exactly {@code /healthz}, {@code /readyz}, {@code /metrics} and {@code :8081}
 * exactly {@code /snapshot}, {@code /policy}, {@code /pd-topologies}, {@code /probe}; anything else
 * is Go's {@code 404 page not found}. The listener is the name of the Jetty connector the request
 * arrived on (see {@link ListenerConnectorFactory}).
 */
public final class ListenerRouter extends HttpServlet {
  private static final long serialVersionUID = 1L;

  private final transient Map<String, Endpoint> publicEndpoints;
  private final transient Map<String, Endpoint> snapshotEndpoints;

  public ListenerRouter(
      final Map<String, Endpoint> publicEndpoints, final Map<String, Endpoint> snapshotEndpoints) {
    this.publicEndpoints = Map.copyOf(publicEndpoints);
    this.snapshotEndpoints = Map.copyOf(snapshotEndpoints);
  }

  @Override
  protected void service(final HttpServletRequest req, final HttpServletResponse resp)
      throws IOException {
    final Map<String, Endpoint> endpoints =
        switch (listener(req)) {
          case ListenerConnectorFactory.PUBLIC -> publicEndpoints;
          case ListenerConnectorFactory.SNAPSHOT -> snapshotEndpoints;
          default -> Map.of();
        };
    final Endpoint endpoint = endpoints.get(req.getRequestURI());
    if (endpoint == null) {
      HttpText.error(resp, HttpServletResponse.SC_NOT_FOUND, "404 page not found");
      return;
    }
    endpoint.handle(req, resp);
  }

  private static String listener(final HttpServletRequest req) {
    final ServletContextRequest r = ServletContextRequest.getServletContextRequest(req);
    if (r == null) {
      return "";
    }
    final Connector c = r.getConnectionMetaData().getConnector();
    return c == null || c.getName() == null ? "" : c.getName();
  }
}
