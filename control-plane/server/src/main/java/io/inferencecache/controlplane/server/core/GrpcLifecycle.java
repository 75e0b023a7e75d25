package io.inferencecache.controlplane.server.core;

import io.inferencecache.service.ingest.IngestRules;

/**
 * The gRPC server as the application sees it: started after the index is open, stopped (drained,
 * bounded) before the index closes. The real implementation wraps the service module's Netty
 * server; {@link GrpcLifecycleFactory} builds it once the index is open.
 */
public interface GrpcLifecycle {
  /**
   * Binds and serves.
   *
   * @throws Exception on a TLS load or listen failure (exit 1 at start-up)
   */
  void start() throws Exception;

  /** Stops accepting calls, drains in-flight ones within the configured bound, then forces. */
  void stop();

  /** Whether the server is accepting calls (feeds {@code /readyz}). */
  boolean serving();

  /** Whether the listener serves TLS (feeds {@code inferencecache_server_grpc_tls_enabled}). */
  boolean tlsEnabled();

  /** The service's ingest rules (shared with the replication reader), or null. */
  default IngestRules ingestRules() {
    return null;
  }

  /** Open client connections (feeds {@code inferencecache_grpc_connections}). */
  default long openConnections() {
    return 0;
  }

  /**
   * Connections closed at accept because {@code grpc.maxConnections} were open (feeds {@code
   * inferencecache_grpc_connections_refused_total}).
   */
  default long refusedConnections() {
    return 0;
  }

  /**
   * Calls shed under overload: refused at admission or reached too late by a handler thread (feeds
   * {@code inferencecache_grpc_calls_shed_total}).
   */
  default long shedCalls() {
    return 0;
  }

  /**
   * ReportCacheState entries dropped for {@code reason} (feeds {@code ..._entries_dropped_total}).
   */
  default long ingestEntriesDropped(final IngestRules.EntryDrop reason) {
    return 0;
  }

  /**
   * ReportCacheState updates dropped for {@code reason} (feeds {@code ..._updates_dropped_total}).
   */
  default long ingestUpdatesDropped(final IngestRules.UpdateDrop reason) {
    return 0;
  }

  /**
   * {@code what} ingested since start (feeds {@code inferencecache_ingest_updates_total}, {@code
   * ..._entries_total} and {@code ..._events_total}).
   */
  default long ingested(final IngestRules.Ingested what) {
    return 0;
  }
}
