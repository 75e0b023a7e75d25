package io.inferencecache.controlplane.server.core;

import java.util.function.BooleanSupplier;

/**
 * {@code /readyz}: ready once the server has started (index open, gRPC serving, listeners bound,
 * and with replication on the stream caught up or its bounded wait over) and until it begins to
 * stop.
 */
public final class Readiness {
  private final BooleanSupplier indexReady;
  private final BooleanSupplier grpcServing;
  private final BooleanSupplier replicationCaughtUp;
  private volatile boolean started;

  public Readiness(final BooleanSupplier indexReady, final BooleanSupplier grpcServing) {
    this(indexReady, grpcServing, () -> true);
  }

  public Readiness(
      final BooleanSupplier indexReady,
      final BooleanSupplier grpcServing,
      final BooleanSupplier replicationCaughtUp) {
    this.indexReady = indexReady;
    this.grpcServing = grpcServing;
    this.replicationCaughtUp = replicationCaughtUp;
  }

  public void markStarted() {
    started = true;
  }

  public void markStopping() {
    started = false;
  }

  public boolean ready() {
    return started
        && indexReady.getAsBoolean()
        && grpcServing.getAsBoolean()
        && replicationCaughtUp.getAsBoolean();
  }
}
