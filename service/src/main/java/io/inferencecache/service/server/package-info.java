/**
 * gRPC transport: the grpc-netty listener ({@link io.inferencecache.service.server.GrpcServer}),
 * its validated settings ({@link io.inferencecache.service.server.GrpcServerConfig}), server TLS
 * with certificate reload, health and reflection. No RPC logic lives here.
 */
package io.inferencecache.service.server;
