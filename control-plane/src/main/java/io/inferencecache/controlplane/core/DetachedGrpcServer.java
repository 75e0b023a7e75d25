package io.inferencecache.controlplane.core;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stand-in used while this build carries no gRPC server (the service module is not in the
 * reactor yet): binds nothing, logs {@code grpc_server_not_built} once, and reports serving once
 * started so that readiness follows the index and the HTTP listeners. Replaced by the real factory
 * in {@link io.inferencecache.controlplane.ControlPlaneApplication}.
 */
public final class DetachedGrpcServer implements GrpcLifecycle {
  private static final Logger LOG = LoggerFactory.getLogger(DetachedGrpcServer.class);

  /** The factory of this stand-in. */
  public static final GrpcLifecycleFactory FACTORY = DetachedGrpcServer::new;

  private final GrpcContext context;
  private volatile boolean serving;

  private DetachedGrpcServer(final GrpcContext context) {
    this.context = context;
  }

  @Override
  public void start() {
    LOG.warn("grpc_server_not_built address={}", context.address());
    serving = true;
  }

  @Override
  public void stop() {
    serving = false;
  }

  @Override
  public boolean serving() {
    return serving;
  }

  @Override
  public boolean tlsEnabled() {
    return context.tls().enabled();
  }
}
