package io.inferencecache.controlplane.server.resources;

import io.inferencecache.controlplane.metrics.PrometheusExposition;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.StringWriter;

/** {@code /metrics}: Prometheus text format 0.0.4. */
public final class MetricsEndpoint implements Endpoint {
  private final PrometheusExposition exposition;

  public MetricsEndpoint(final PrometheusExposition exposition) {
    this.exposition = exposition;
  }

  @Override
  public void handle(final HttpServletRequest req, final HttpServletResponse resp)
      throws IOException {
    final StringWriter out = new StringWriter(8192);
    exposition.write(out);
    resp.setStatus(HttpServletResponse.SC_OK);
    resp.setHeader("Content-Type", PrometheusExposition.CONTENT_TYPE);
    HttpText.write(resp, out.toString());
  }
}
