/**
 * The data-plane service: gRPC transport ({@code server}), the RPC handlers ({@code grpc}, {@code
 * lookup}), the streaming feeds ({@code feeds}) and the engine-side KV-event subscriber ({@code
 * subscriber}).
 */
package io.inferencecache.service;
