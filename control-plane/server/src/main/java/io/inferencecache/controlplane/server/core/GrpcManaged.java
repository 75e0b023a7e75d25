package io.inferencecache.controlplane.server.core;

import io.dropwizard.lifecycle.Managed;
import io.inferencecache.controlplane.server.metrics.ServerMetrics;
import java.util.function.Function;
import java.util.function.Supplier;

/** Runs the {@link GrpcLifecycle} as a Dropwizard {@link Managed}, after the index is open. */
public final class GrpcManaged implements Managed {
  private final GrpcLifecycleFactory factory;
  private final Supplier<GrpcContext> context;
  private final ServerMetrics serverMetrics;
  private volatile GrpcLifecycle server;

  /**
   * @param context builds the context at start (the index is open by then)
   */
  public GrpcManaged(
      final GrpcLifecycleFactory factory,
      final Supplier<GrpcContext> context,
      final ServerMetrics serverMetrics) {
    this.factory = factory;
    this.context = context;
    this.serverMetrics = serverMetrics;
  }

  @Override
  public void start() throws Exception {
    final GrpcLifecycle s = factory.create(context.get());
    server = s;
    s.start();
    serverMetrics.tlsEnabled(s.tlsEnabled());
  }

  @Override
  public void stop() {
    final GrpcLifecycle s = server;
    if (s != null) {
      s.stop();
    }
  }

  /** Whether the gRPC server accepts calls. */
  public boolean serving() {
    final GrpcLifecycle s = server;
    return s != null && s.serving();
  }

  /** Applies {@code f} to the running server, or returns {@code orElse}. */
  public <T> T withServer(final Function<GrpcLifecycle, T> f, final T orElse) {
    final GrpcLifecycle s = server;
    return s == null ? orElse : f.apply(s);
  }
}
