package io.inferencecache.controlplane.server.resources;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/** One exact path on one listener; handles every method itself. */
@FunctionalInterface
public interface Endpoint {
  void handle(HttpServletRequest req, HttpServletResponse resp) throws IOException;
}
