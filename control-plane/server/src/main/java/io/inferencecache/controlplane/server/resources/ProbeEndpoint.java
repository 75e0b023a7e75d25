package io.inferencecache.controlplane.server.resources;

import io.inferencecache.controlplane.api.JsonDecodeException;
import io.inferencecache.controlplane.api.ProbeRequest;
import io.inferencecache.controlplane.server.probe.Prober;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;

/**
 * {@code /probe} (docs/behaviour.md#probe): POST only, body ≤ 4 KiB; errors in the order method →
 * decode → trailing content → required fields; 200 with the stage outcomes.
 */
public final class ProbeEndpoint implements Endpoint {
  /** Body limit. */
  public static final int MAX_BODY_BYTES = 4 << 10;

  private final Prober prober;

  public ProbeEndpoint(final Prober prober) {
    this.prober = prober;
  }

  @Override
  public void handle(final HttpServletRequest req, final HttpServletResponse resp)
      throws IOException {
    if (!"POST".equals(req.getMethod())) {
      HttpText.methodNotAllowed(resp, "POST");
      return;
    }
    final HttpText.Body body = HttpText.read(req, MAX_BODY_BYTES);
    if (body.tooLarge()) {
      HttpText.error(
          resp,
          HttpServletResponse.SC_BAD_REQUEST,
          "decode probe request: http: request body too large");
      return;
    }
    final ProbeRequest request;
    try {
      request = ProbeRequest.decode(body.bytes(), body.length());
    } catch (JsonDecodeException e) {
      HttpText.error(
          resp, HttpServletResponse.SC_BAD_REQUEST, "decode probe request: " + e.getMessage());
      return;
    } catch (ProbeRequest.TrailingContentException e) {
      HttpText.error(resp, HttpServletResponse.SC_BAD_REQUEST, ProbeRequest.TRAILING_CONTENT);
      return;
    }
    if (!request.complete()) {
      HttpText.error(resp, HttpServletResponse.SC_BAD_REQUEST, ProbeRequest.MISSING_FIELDS);
      return;
    }
    HttpText.json(resp, prober.run(request).toJson());
  }
}
