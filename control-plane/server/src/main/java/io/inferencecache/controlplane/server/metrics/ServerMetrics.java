package io.inferencecache.controlplane.server.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import io.inferencecache.controlplane.metrics.MetricFamily;
import io.inferencecache.service.ingest.IngestRules;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;

/**
 * {@code inferencecache_server_up}, {@code inferencecache_server_grpc_tls_enabled}, the gRPC
 * listener's connection series and the ingest counters.
 */
public final class ServerMetrics {
  private final MetricRegistry registry;
  private final LongGauge up;
  private final LongGauge tls;

  public ServerMetrics(final MetricRegistry registry) {
    this.registry = registry;
    this.up =
        Registrations.getOrRegister(
            registry, MetricFamily.SERVER_UP.registryName(), LongGauge::new, LongGauge.class);
    this.tls =
        Registrations.getOrRegister(
            registry,
            MetricFamily.GRPC_TLS_ENABLED.registryName(),
            LongGauge::new,
            LongGauge.class);
  }

  /** 1 while serving, 0 after. */
  public void up(final boolean serving) {
    up.set(serving ? 1 : 0);
  }

  /** 1 when gRPC serves TLS. */
  public void tlsEnabled(final boolean enabled) {
    tls.set(enabled ? 1 : 0);
  }

  /**
   * Exports {@code inferencecache_grpc_connections} and {@code
   * inferencecache_grpc_connections_refused_total}, read from the suppliers at each scrape.
   */
  public void grpcConnections(final LongSupplier open, final LongSupplier refused) {
    registry.gauge(
        MetricFamily.GRPC_CONNECTIONS.registryName(), () -> (Gauge<Long>) open::getAsLong);
    registry.gauge(
        MetricFamily.GRPC_CONNECTIONS_REFUSED.registryName(),
        () -> (Gauge<Long>) refused::getAsLong);
  }

  /**
   * Exports {@code inferencecache_grpc_calls_shed_total}, read from the supplier at each scrape.
   */
  public void grpcCallsShed(final LongSupplier shed) {
    registry.gauge(
        MetricFamily.GRPC_CALLS_SHED.registryName(), () -> (Gauge<Long>) shed::getAsLong);
  }

  /**
   * Exports {@code inferencecache_ingest_entries_dropped_total{reason}} and {@code
   * inferencecache_ingest_updates_dropped_total{reason}}, one series per reason from the start
   * (each can happen), read from the functions at each scrape.
   */
  public void ingestDrops(
      final ToLongFunction<IngestRules.EntryDrop> entries,
      final ToLongFunction<IngestRules.UpdateDrop> updates) {
    for (final IngestRules.EntryDrop r : IngestRules.EntryDrop.values()) {
      registry.gauge(
          MetricFamily.INGEST_ENTRIES_DROPPED.registryName(r.label()),
          () -> (Gauge<Long>) () -> entries.applyAsLong(r));
    }
    for (final IngestRules.UpdateDrop r : IngestRules.UpdateDrop.values()) {
      registry.gauge(
          MetricFamily.INGEST_UPDATES_DROPPED.registryName(r.label()),
          () -> (Gauge<Long>) () -> updates.applyAsLong(r));
    }
  }

  /**
   * Exports {@code inferencecache_ingest_updates_total}, {@code
   * inferencecache_ingest_entries_total} and {@code inferencecache_ingest_events_total}, read from
   * the function at each scrape.
   */
  public void ingested(final ToLongFunction<IngestRules.Ingested> counts) {
    register(MetricFamily.INGEST_UPDATES, counts, IngestRules.Ingested.UPDATES);
    register(MetricFamily.INGEST_ENTRIES, counts, IngestRules.Ingested.ENTRIES);
    register(MetricFamily.INGEST_EVENTS, counts, IngestRules.Ingested.EVENTS);
  }

  /**
   * Exports the {@code inferencecache_replication_*} series (replication on only), read from the
   * suppliers at each scrape.
   */
  public void replication(
      final LongSupplier connected,
      final LongSupplier appliedSequence,
      final LongSupplier applied,
      final LongSupplier unreadable,
      final LongSupplier lagMillis,
      final LongSupplier forwarded,
      final LongSupplier appliedLocally) {
    gauge(MetricFamily.REPLICATION_CONNECTED, connected);
    gauge(MetricFamily.REPLICATION_APPLIED_SEQUENCE, appliedSequence);
    gauge(MetricFamily.REPLICATION_MESSAGES_APPLIED, applied);
    gauge(MetricFamily.REPLICATION_MESSAGES_UNREADABLE, unreadable);
    gauge(MetricFamily.REPLICATION_LAG, lagMillis);
    gauge(MetricFamily.REPLICATION_FORWARDED, forwarded);
    gauge(MetricFamily.REPLICATION_APPLIED_LOCALLY, appliedLocally);
  }

  /**
   * Exports the resync requests of direct senders (replication on only): asked so far, and owed but
   * not asked yet.
   */
  public void replicationResyncs(final LongSupplier requested, final LongSupplier pending) {
    gauge(MetricFamily.REPLICATION_RESYNC_REQUESTS, requested);
    gauge(MetricFamily.REPLICATION_RESYNCS_PENDING, pending);
  }

  private void gauge(final MetricFamily family, final LongSupplier value) {
    registry.gauge(family.registryName(), () -> (Gauge<Long>) value::getAsLong);
  }

  private void register(
      final MetricFamily family,
      final ToLongFunction<IngestRules.Ingested> counts,
      final IngestRules.Ingested what) {
    registry.gauge(family.registryName(), () -> (Gauge<Long>) () -> counts.applyAsLong(what));
  }
}
