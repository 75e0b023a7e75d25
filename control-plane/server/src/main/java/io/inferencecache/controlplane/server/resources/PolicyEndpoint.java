package io.inferencecache.controlplane.server.resources;

import io.inferencecache.controlplane.api.JsonDecodeException;
import io.inferencecache.controlplane.api.PolicyJson;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.policy.PolicySnapshot;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * {@code /policy} (docs/behaviour.md#policy): POST or PUT, body ≤ 1 MiB, strict decode, version
 * window [3, 7], normalization of older versions, atomic replace of the index's policy store, 204.
 * GET (and HEAD) read back what the server holds, in the canonical body form (beyond upstream).
 */
public final class PolicyEndpoint implements Endpoint {
  /** Body limit (Go {@code MaxBytesReader}). */
  public static final int MAX_BODY_BYTES = 1 << 20;

  private final Supplier<CacheIndex> index;

  public PolicyEndpoint(final Supplier<CacheIndex> index) {
    this.index = index;
  }

  @Override
  public void handle(final HttpServletRequest req, final HttpServletResponse resp)
      throws IOException {
    if (HttpText.heldJson(req, resp, () -> PolicyJson.write(index.get().policyStore().current()))) {
      return;
    }
    final HttpText.Body body =
        HttpText.replaceBody(
            req, resp, MAX_BODY_BYTES, "decode policy snapshot: http: request body too large");
    if (body == null) {
      return;
    }
    final PolicySnapshot snapshot;
    try {
      snapshot = PolicyJson.decode(body.bytes(), body.length());
    } catch (JsonDecodeException e) {
      HttpText.error(
          resp, HttpServletResponse.SC_BAD_REQUEST, "decode policy snapshot: " + e.getMessage());
      return;
    }
    if (!PolicySnapshot.isSupportedVersion(snapshot.version())) {
      HttpText.error(
          resp, HttpServletResponse.SC_BAD_REQUEST, "unsupported policy snapshot version");
      return;
    }
    index.get().policyStore().replace(snapshot.normalized());
    resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
  }
}
