package io.inferencecache.controlplane.server.resources;

import io.inferencecache.controlplane.api.SnapshotJson;
import io.inferencecache.engine.CacheIndex;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.function.Supplier;

/**
 * {@code /snapshot} (docs/behaviour.md#snapshot): GET only (HEAD included in the 405s), the index
 * aggregate.
 */
public final class SnapshotEndpoint implements Endpoint {
  private final Supplier<CacheIndex> index;

  public SnapshotEndpoint(final Supplier<CacheIndex> index) {
    this.index = index;
  }

  @Override
  public void handle(final HttpServletRequest req, final HttpServletResponse resp)
      throws IOException {
    if (!"GET".equals(req.getMethod())) {
      HttpText.methodNotAllowed(resp, "GET");
      return;
    }
    HttpText.json(resp, SnapshotJson.write(index.get().snapshot()));
  }
}
