package io.inferencecache.controlplane.metrics;

import io.prometheus.client.Collector;
import java.util.List;

/**
 * The catalogue of the server's own series (docs/behaviour.md#metrics): Prometheus name, type, help
 * and label names (sorted, as client_golang writes them). Counters are named without {@code _total}
 * here, as simpleclient's text writer adds it.
 */
public enum MetricFamily {
  SERVER_UP("inferencecache_server_up", Collector.Type.GAUGE, "1 while the server runs, 0 after."),
  GRPC_TLS_ENABLED(
      "inferencecache_server_grpc_tls_enabled",
      Collector.Type.GAUGE,
      "1 when the gRPC listener serves TLS, 0 for plaintext."),
  INDEX_ENTRIES(
      "inferencecache_index_entries",
      Collector.Type.GAUGE,
      "Distinct prefix keys per model (reserved probe tenant excluded).",
      "model"),
  LOOKUP_ROUTE_CALLS(
      "inferencecache_lookup_route_calls",
      Collector.Type.COUNTER,
      "LookupRoute calls by model, reason code and whether a hint was returned.",
      "hint_used",
      "model",
      "reason_code"),
  LOOKUP_ROUTE_LATENCY(
      "inferencecache_lookup_route_latency_seconds",
      Collector.Type.HISTOGRAM,
      "LookupRoute handler latency in seconds.",
      "model"),
  PD_ROUTE_CALLS(
      "inferencecache_pd_route",
      Collector.Type.COUNTER,
      "LookupPDRoute calls by reason code (PD_DECODE_LOCAL's share is the decode-local fraction).",
      "reason"),
  PD_ROUTE_LATENCY(
      "inferencecache_pd_route_latency_seconds",
      Collector.Type.HISTOGRAM,
      "LookupPDRoute handler latency in seconds."),
  PD_POOL_REPLICAS(
      "inferencecache_pd_pool_replicas",
      Collector.Type.GAUGE,
      "Replicas each pool of a P/D topology lists, as last pushed to /pd-topologies.",
      "namespace",
      "pool",
      "role",
      "topology"),
  INDEX_EVICTIONS(
      "inferencecache_index_evictions",
      Collector.Type.COUNTER,
      "Storage entries evicted by the global cap or TTL.",
      "algorithm",
      "reason"),
  TENANT_EVICTIONS(
      "inferencecache_tenant_evictions",
      Collector.Type.COUNTER,
      "Prefix keys evicted by a tenant's entry quota.",
      "reason",
      "tenant_id"),
  SNAPSHOT_AUTH(
      "inferencecache_snapshot_auth",
      Collector.Type.COUNTER,
      "Authentication outcomes on /snapshot.",
      "result"),
  POLICY_AUTH(
      "inferencecache_policy_auth",
      Collector.Type.COUNTER,
      "Authentication outcomes on /policy.",
      "result"),
  PROBE_AUTH(
      "inferencecache_probe_auth",
      Collector.Type.COUNTER,
      "Authentication outcomes on /probe.",
      "result"),
  GRPC_CONNECTIONS(
      "inferencecache_grpc_connections",
      Collector.Type.GAUGE,
      "Open connections on the gRPC listener."),
  GRPC_CONNECTIONS_REFUSED(
      "inferencecache_grpc_connections_refused",
      Collector.Type.COUNTER,
      "gRPC connections closed at accept because grpc.maxConnections were open."),
  GRPC_CALLS_SHED(
      "inferencecache_grpc_calls_shed",
      Collector.Type.COUNTER,
      "gRPC calls shed under overload (LookupRoute answered NO_HINT, others RESOURCE_EXHAUSTED)."),
  INGEST_UPDATES(
      "inferencecache_ingest_updates",
      Collector.Type.COUNTER,
      "ReportCacheState updates ingested (entries dropped for a defect included in the update)."),
  INGEST_ENTRIES(
      "inferencecache_ingest_entries",
      Collector.Type.COUNTER,
      "ReportCacheState entries ingested."),
  INGEST_EVENTS(
      "inferencecache_ingest_events",
      Collector.Type.COUNTER,
      "PublishEvent events applied to the index."),
  INGEST_ENTRIES_DROPPED(
      "inferencecache_ingest_entries_dropped",
      Collector.Type.COUNTER,
      "ReportCacheState entries dropped for a defect; the rest of the update was ingested.",
      "reason"),
  INGEST_UPDATES_DROPPED(
      "inferencecache_ingest_updates_dropped",
      Collector.Type.COUNTER,
      "ReportCacheState updates dropped whole; the rest of the stream was ingested.",
      "reason"),
  INDEX_STORAGE_ENTRIES(
      "inferencecache_index_storage_entries",
      Collector.Type.GAUGE,
      "Storage entries in the index (reserved probe tenant excluded)."),
  INDEX_OFF_HEAP_BYTES(
      "inferencecache_index_off_heap_bytes",
      Collector.Type.GAUGE,
      "Off-heap bytes of the prefix map and LFU counters."),
  INDEX_DIRECTORY_HEAP_BYTES(
      "inferencecache_index_directory_heap_bytes",
      Collector.Type.GAUGE,
      "Heap bytes of the index's block directory (every stored block's run and row), allocated."),
  INDEX_DROPPED_FULL(
      "inferencecache_index_dropped_full",
      Collector.Type.COUNTER,
      "Entries dropped at ingest because no room could be made in the index."),
  REPLICATION_CONNECTED(
      "inferencecache_replication_connected",
      Collector.Type.GAUGE,
      "1 while the replication stream's broker is connected, 0 while not (replication on only)."),
  REPLICATION_APPLIED_SEQUENCE(
      "inferencecache_replication_applied_sequence",
      Collector.Type.GAUGE,
      "Last replication-stream sequence applied to the index (persisted with it)."),
  REPLICATION_MESSAGES_APPLIED(
      "inferencecache_replication_messages_applied",
      Collector.Type.COUNTER,
      "Replication-stream messages applied to the index (content the ingest rules dropped"
          + " included)."),
  REPLICATION_MESSAGES_UNREADABLE(
      "inferencecache_replication_messages_unreadable",
      Collector.Type.COUNTER,
      "Replication-stream messages skipped because their kind or body could not be read."),
  REPLICATION_LAG(
      "inferencecache_replication_lag_milliseconds",
      Collector.Type.GAUGE,
      "Broker store time to applied, of the last applied replication-stream message."),
  REPLICATION_FORWARDED(
      "inferencecache_replication_forwarded",
      Collector.Type.COUNTER,
      "ReportCacheState updates and PublishEvent events sent to this server and forwarded to the"
          + " stream."),
  REPLICATION_APPLIED_LOCALLY(
      "inferencecache_replication_applied_locally",
      Collector.Type.COUNTER,
      "ReportCacheState updates and PublishEvent events applied to this server only because the"
          + " broker did not acknowledge them."),
  REPLICATION_RESYNC_REQUESTS(
      "inferencecache_replication_resync_requests",
      Collector.Type.COUNTER,
      "Direct senders whose ReportCacheState call this server ended with ABORTED once the broker"
          + " was back, so that they re-send the state it had applied locally."),
  REPLICATION_RESYNCS_PENDING(
      "inferencecache_replication_resyncs_pending",
      Collector.Type.GAUGE,
      "Direct senders with content applied to this server only that have not been asked to"
          + " resync yet (they are asked on their next ReportCacheState message once the broker is"
          + " back)."),
  // The controller's families (controller command; never registered by the server).
  BACKEND_PROBE_RESULT(
      "inferencecache_backend_probe_result",
      Collector.Type.COUNTER,
      "Functional probe outcomes per CacheBackend and stage (one per stage per probe call).",
      "backend",
      "result",
      "stage"),
  BACKEND_T2_HIT_RATE(
      "inferencecache_backend_t2_hit_rate",
      Collector.Type.GAUGE,
      "Lifetime tier-2 hit ratio of a CacheBackend's replicas (only once tier 2 was queried).",
      "backend"),
  BACKEND_T2_QUERY_TOKENS(
      "inferencecache_backend_t2_query_tokens",
      Collector.Type.COUNTER,
      "Tier-2 query tokens of a CacheBackend's replicas (positive deltas of their cumulative count).",
      "backend"),
  CONTROLLER_SNAPSHOT_POLLS(
      "inferencecache_controller_snapshot_polls",
      Collector.Type.COUNTER,
      "Reads of the server's /snapshot by the controller's CacheIndex poller, by result (ok, error).",
      "result"),
  CONTROLLER_RECONCILE(
      "controller_runtime_reconcile",
      Collector.Type.COUNTER,
      "Reconciles per controller and result (success, error, requeue, requeue_after).",
      "controller",
      "result"),
  CONTROLLER_RECONCILE_ERRORS(
      "controller_runtime_reconcile_errors",
      Collector.Type.COUNTER,
      "Reconciles per controller that ended in an error.",
      "controller"),
  WORKQUEUE_ADDS(
      "workqueue_adds",
      Collector.Type.COUNTER,
      "Items added to a controller's work queue.",
      "name"),
  WORKQUEUE_RETRIES(
      "workqueue_retries",
      Collector.Type.COUNTER,
      "Items put back into a controller's work queue with the rate limiter's delay.",
      "name"),
  WORKQUEUE_DEPTH(
      "workqueue_depth",
      Collector.Type.GAUGE,
      "Items waiting in a controller's work queue.",
      "name"),
  LEADER_ELECTION_MASTER_STATUS(
      "leader_election_master_status",
      Collector.Type.GAUGE,
      "1 while this process holds the leader-election Lease, else 0.",
      "name");

  /** Buckets of {@link #LOOKUP_ROUTE_LATENCY}, seconds. */
  public static final double[] LATENCY_BUCKETS = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1
  };

  private final String familyName;
  private final Collector.Type type;
  private final String help;
  private final String[] labelNames;

  MetricFamily(
      final String familyName,
      final Collector.Type type,
      final String help,
      final String... labelNames) {
    this.familyName = familyName;
    this.type = type;
    this.help = help;
    this.labelNames = labelNames;
  }

  /** The family name (counters without {@code _total}). */
  public String familyName() {
    return familyName;
  }

  /** The series name: counters with {@code _total}. */
  public String seriesName() {
    return type == Collector.Type.COUNTER ? familyName + "_total" : familyName;
  }

  public Collector.Type type() {
    return type;
  }

  public String help() {
    return help;
  }

  public List<String> labelNames() {
    return List.of(labelNames);
  }

  /** The registry name of one series of this family; values in {@link #labelNames()} order. */
  public String registryName(final String... labelValues) {
    return MetricNames.encode(seriesName(), labelNames, labelValues);
  }

  /** The family whose series name is {@code seriesName}, or {@code null}. */
  public static MetricFamily bySeriesName(final String seriesName) {
    for (final MetricFamily f : values()) {
      if (f.seriesName().equals(seriesName)) {
        return f;
      }
    }
    return null;
  }
}
