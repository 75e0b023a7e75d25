/**
 * The data-plane service: gRPC transport ({@code server}), the RPC handlers ({@code grpc}, {@code
 * lookup}) and the streaming feeds ({@code feeds}). The engine-side KV-event sidecar is its own
 * module ({@code subscriber}).
 */
package io.inferencecache.service;
