package io.inferencecache.controlplane.server.core;

/** Builds the gRPC server for an open index (called once, at start). */
@FunctionalInterface
public interface GrpcLifecycleFactory {
  GrpcLifecycle create(GrpcContext context);
}
