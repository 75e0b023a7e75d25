/**
 * Wiring: the grpc-netty listener ({@link io.inferencecache.service.server.GrpcServer}) with its
 * validated settings ({@link io.inferencecache.service.server.GrpcServerConfig}), health and
 * reflection, and {@link io.inferencecache.service.server.InferenceCacheService}, which binds each
 * RPC to the feature package that owns it.
 */
package io.inferencecache.service.server;
