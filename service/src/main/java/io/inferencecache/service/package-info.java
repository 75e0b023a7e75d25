/**
 * The data-plane service, one package per feature: {@code lookup} (LookupRoute), {@code prompt}
 * (prompt text to tokens), {@code ingest} (ReportCacheState, PublishEvent), {@code streams} (the
 * two server streams), {@code replication} (several replicas, one view), {@code admission}
 * (overload and connection limits), {@code tls} and {@code server} (the gRPC listener and the
 * service that binds each RPC to its feature). The engine-side KV-event sidecar is its own module.
 */
package io.inferencecache.service;
