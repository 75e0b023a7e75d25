package io.inferencecache.controlplane.server.resources;

import io.inferencecache.controlplane.server.core.Readiness;
import jakarta.servlet.http.HttpServletResponse;

/**
 * {@code /healthz} (always {@code ok}) and {@code /readyz} ({@code ok} or 503 {@code not ready}).
 */
public final class HealthEndpoints {
  private HealthEndpoints() {}

  public static Endpoint healthz() {
    return (req, resp) -> HttpText.text(resp, "ok\n");
  }

  public static Endpoint readyz(final Readiness readiness) {
    return (req, resp) -> {
      if (readiness.ready()) {
        HttpText.text(resp, "ok\n");
      } else {
        HttpText.error(resp, HttpServletResponse.SC_SERVICE_UNAVAILABLE, "not ready");
      }
    };
  }
}
