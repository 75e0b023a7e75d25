package io.inferencecache.controlplane.server.core;

import io.dropwizard.lifecycle.Managed;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import java.util.function.Supplier;

/**
 * Opens and starts the index (TTL sweeper included) when the server starts, and stops the sweeper,
 * flushes and closes it (persisted file included) when the server stops. Registered first, so it
 * starts before and stops after the gRPC server.
 */
public final class IndexLifecycle implements Managed, Supplier<CacheIndex> {
  private final IndexConfig config;
  private volatile CacheIndex index;

  public IndexLifecycle(final IndexConfig config) {
    this.config = config;
  }

  @Override
  public void start() {
    final CacheIndex opened = CacheIndex.open(config);
    opened.start();
    index = opened;
  }

  @Override
  public void stop() {
    final CacheIndex opened = index;
    if (opened != null) {
      opened.close();
    }
  }

  /**
   * The open index.
   *
   * @throws IllegalStateException before {@link #start()}
   */
  @Override
  public CacheIndex get() {
    final CacheIndex opened = index;
    if (opened == null) {
      throw new IllegalStateException("index is not open");
    }
    return opened;
  }

  /** Whether the index is open and started. */
  public boolean isReady() {
    final CacheIndex opened = index;
    return opened != null && opened.isReady();
  }
}
