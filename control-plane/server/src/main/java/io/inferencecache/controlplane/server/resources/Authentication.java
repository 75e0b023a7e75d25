package io.inferencecache.controlplane.server.resources;

import io.inferencecache.controlplane.server.auth.BearerAuthenticator;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * Wraps a snapshot-listener endpoint with its authenticator: authentication first, then the
 * endpoint's own method and body checks (correction 6). {@code null} authenticator = auth disabled.
 */
public final class Authentication {
  private Authentication() {}

  public static Endpoint require(final BearerAuthenticator authenticator, final Endpoint next) {
    if (authenticator == null) {
      return next;
    }
    return (HttpServletRequest req, HttpServletResponse resp) -> {
      final BearerAuthenticator.Decision d =
          authenticator.authenticate(req.getHeader("Authorization"));
      if (d != BearerAuthenticator.Decision.ALLOW) {
        deny(resp, d);
        return;
      }
      next.handle(req, resp);
    };
  }

  private static void deny(final HttpServletResponse resp, final BearerAuthenticator.Decision d)
      throws IOException {
    HttpText.error(resp, d.status(), d.message());
  }
}
