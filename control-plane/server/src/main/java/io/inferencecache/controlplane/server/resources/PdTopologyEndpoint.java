package io.inferencecache.controlplane.server.resources;

import io.inferencecache.controlplane.api.JsonDecodeException;
import io.inferencecache.controlplane.api.PdTopologyJson;
import io.inferencecache.controlplane.server.metrics.PdMetrics;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import io.inferencecache.engine.pd.PdTopologyStore;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * {@code /pd-topologies} (docs/server.md, docs/behaviour.md#lookup-pd-route): POST or PUT the whole
 * set (body ≤ 1 MiB, strict decode by {@link PdTopologyJson}, 400 naming the field), replaced
 * atomically in the index's topology store, 204; GET and HEAD read back what the server holds, in
 * the canonical form; other methods 405. Held in memory only (the controller re-pushes). Served on
 * the listener of {@code /policy}, behind its authentication.
 */
public final class PdTopologyEndpoint implements Endpoint {
  /**
   * Body limit: a cluster's whole set in one body (every pool's members listed), so well above
   * {@code /policy}'s 1 MiB; a push over it is refused whole and the controller records the refusal
   * as a PushFailed event.
   */
  public static final int MAX_BODY_BYTES = 32 << 20;

  private final Supplier<CacheIndex> index;
  private final PdMetrics metrics;

  /**
   * @param metrics whose pool gauges follow each replace ({@code null}: none)
   */
  public PdTopologyEndpoint(final Supplier<CacheIndex> index, final PdMetrics metrics) {
    this.index = index;
    this.metrics = metrics;
  }

  @Override
  public void handle(final HttpServletRequest req, final HttpServletResponse resp)
      throws IOException {
    final HttpText.Body body =
        HttpText.replaceWhole(
            req,
            resp,
            () -> PdTopologyJson.write(index.get().pdTopologies().current()),
            "pd topologies",
            MAX_BODY_BYTES);
    if (body == null) {
      return;
    }
    final PdTopologySnapshot snapshot;
    try {
      snapshot = PdTopologyJson.decode(body.bytes(), body.length());
    } catch (JsonDecodeException e) {
      HttpText.error(
          resp, HttpServletResponse.SC_BAD_REQUEST, "decode pd topologies: " + e.getMessage());
      return;
    }
    final PdTopologyStore store = index.get().pdTopologies();
    store.replace(snapshot);
    if (metrics != null) {
      metrics.pools(store::current); // what is held now: a later push may have overtaken this one
    }
    resp.setStatus(HttpServletResponse.SC_NO_CONTENT);
  }
}
