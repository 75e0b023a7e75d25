package io.inferencecache.subscriber.http;

import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.report.Reporter;
import io.inferencecache.subscriber.report.StatsReporter;
import io.inferencecache.subscriber.sink.GrpcUpdateSink;
import io.inferencecache.subscriber.sink.JetStreamUpdateSink;
import io.inferencecache.subscriber.sink.SinkCounters;
import io.inferencecache.subscriber.sink.UpdateSink;
import io.inferencecache.subscriber.source.ZmqEventSource;
import io.prometheus.client.Collector;
import io.prometheus.client.CounterMetricFamily;
import io.prometheus.client.GaugeMetricFamily;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The subscriber's counters as {@code inferencecache_subscriber_*} Prometheus families, read at
 * scrape time from the parts that own them (nothing is counted twice): the {@link ZmqEventSource}
 * and its queue, the {@link Reporter}, the {@link StatsReporter} when the stats path is on, and the
 * sink ({@code _grpc_*} families for a {@link GrpcUpdateSink}, {@code _jetstream_*} for a {@link
 * JetStreamUpdateSink}). {@value #DROPPED} sums, whatever the sink, what left the event path and
 * will never reach its destination; it and {@value #SINK_READY} are what the {@code
 * SubscriberDeliveryFailing} alert reads. docs/sidecar.md's metrics table lists every family.
 *
 * <p>Thread-safe: every value is an atomic or volatile read.
 */
public final class SubscriberMetrics extends Collector {
  /** Updates and events of the event path dropped undelivered, over every sink. */
  public static final String DROPPED = "inferencecache_subscriber_deliveries_dropped_total";

  /** 1 while the sink can deliver (the sink half of {@code /readyz}). */
  public static final String SINK_READY = "inferencecache_subscriber_sink_ready";

  private static final String P = "inferencecache_subscriber_";

  private final SubscriberConfig config;
  private final ZmqEventSource source;
  private final Collection<?> queue;
  private final Reporter reporter;
  private final StatsReporter stats;
  private final UpdateSink sink;

  /**
   * @param queue the source → reporter queue (its size is a gauge)
   * @param stats the stats reporter, or null when the stats path is off
   */
  public SubscriberMetrics(
      final SubscriberConfig config,
      final ZmqEventSource source,
      final Collection<?> queue,
      final Reporter reporter,
      final StatsReporter stats,
      final UpdateSink sink) {
    this.config = Objects.requireNonNull(config, "config");
    this.source = Objects.requireNonNull(source, "source");
    this.queue = Objects.requireNonNull(queue, "queue");
    this.reporter = Objects.requireNonNull(reporter, "reporter");
    this.stats = stats;
    this.sink = Objects.requireNonNull(sink, "sink");
  }

  /** The sink's kind as the {@code sink} label says it: grpc, jetstream or the class name. */
  public static String sinkKind(final UpdateSink sink) {
    if (sink instanceof GrpcUpdateSink) {
      return "grpc";
    }
    if (sink instanceof JetStreamUpdateSink) {
      return "jetstream";
    }
    return sink.getClass().getSimpleName();
  }

  @Override
  public List<MetricFamilySamples> collect() {
    final List<MetricFamilySamples> out = new ArrayList<>();
    final GaugeMetricFamily info =
        new GaugeMetricFamily(
            P + "info",
            "Always 1; the labels name this subscriber's replica, model, tenant and sink.",
            List.of("replica_id", "model_id", "tenant_id", "sink"));
    info.addMetric(
        List.of(config.replicaId(), config.modelId(), config.tenantId(), sinkKind(sink)), 1);
    out.add(info);
    source(out);
    reporter(out);
    if (stats != null) {
      stats(out);
    }
    out.add(gauge(SINK_READY, "1 while the sink can deliver (connected), else 0.", sink.ready()));
    final long grpcDropped;
    if (sink instanceof GrpcUpdateSink grpc) {
      grpc(out, grpc);
      grpcDropped = grpc.counters().updatesDropped() + grpc.counters().eventsDropped();
    } else {
      grpcDropped = 0;
    }
    if (sink instanceof JetStreamUpdateSink js) {
      jetStream(out, js);
    }
    out.add(
        counter(
            DROPPED,
            "Updates and events of the event path dropped undelivered: a failed synchronous"
                + " delivery, or a full or closing send buffer.",
            reporter.sinkFailures() + grpcDropped));
    return out;
  }

  private void source(final List<MetricFamilySamples> out) {
    out.add(
        gauge(
            P + "engine_connected",
            "1 while the ZMQ socket holds a handshaken connection to the engine, else 0.",
            source.connected()));
    out.add(
        counter(
            P + "messages_received_total", "ZMQ messages received.", source.messagesReceived()));
    out.add(
        counter(P + "batches_decoded_total", "KV event batches decoded.", source.batchesDecoded()));
    out.add(
        counter(
            P + "batches_malformed_total",
            "KV event batches dropped as undecodable.",
            source.malformedBatches()));
    out.add(
        counter(
            P + "source_reconnects_total",
            "ZMQ socket errors that led to a new socket.",
            source.reconnects()));
    out.add(
        counter(
            P + "sequence_gaps_total",
            "Gaps in the engine's batch sequence (messages lost).",
            source.gaps()));
    out.add(
        counter(
            P + "engine_restarts_total",
            "Engine restarts detected from the batch sequence.",
            source.restarts()));
    out.add(
        gauge(
            P + "queue_depth",
            "Batches waiting between the source and the reporter.",
            queue.size()));
  }

  private void reporter(final List<MetricFamilySamples> out) {
    out.add(
        counter(
            P + "updates_reported_total",
            "Updates (batches of prefix additions) handed to the sink.",
            reporter.updatesReported()));
    out.add(
        counter(
            P + "prefixes_reported_total",
            "Prefix records handed to the sink in updates.",
            reporter.prefixesReported()));
    out.add(
        counter(
            P + "evictions_published_total",
            "Prefix evictions handed to the sink.",
            reporter.evictionsPublished()));
    out.add(
        counter(
            P + "clears_published_total",
            "Clears of every prefix of the replica handed to the sink.",
            reporter.clearsPublished()));
    final CounterMetricFamily resyncs =
        new CounterMetricFamily(
            P + "resyncs_total",
            "Full-state resynchronisations, by cause: a sequence gap or engine restart, or the"
                + " sink's request after a loss.",
            List.of("cause"));
    resyncs.addMetric(List.of("sequence"), reporter.resyncs());
    resyncs.addMetric(List.of("sink"), reporter.sinkResyncs());
    out.add(resyncs);
    out.add(
        counter(
            P + "sink_calls_failed_total",
            "Event-path sink calls that failed; their data was dropped.",
            reporter.sinkFailures()));
    out.add(
        counter(
            P + "unmapped_adapter_events_total",
            "BlockStored events dropped for a LoRA id missing from --lora-adapter-names.",
            reporter.droppedUnmappedAdapter()));
  }

  private void stats(final List<MetricFamilySamples> out) {
    final CounterMetricFamily samples =
        new CounterMetricFamily(
            P + "stats_samples_total",
            "Stats scrapes of the engine, by result: delivered, or failed (scrape or delivery).",
            List.of("result"));
    samples.addMetric(List.of("delivered"), stats.delivered());
    samples.addMetric(List.of("failed"), stats.failed());
    out.add(samples);
    out.add(
        gauge(
            P + "stats_consecutive_failures",
            "Current run of stats ticks that delivered nothing.",
            stats.consecutiveFailures()));
  }

  private static void grpc(final List<MetricFamilySamples> out, final GrpcUpdateSink sink) {
    final SinkCounters c = sink.counters();
    final String g = P + "grpc_";
    out.add(
        counter(g + "updates_sent_total", "Updates written to a report stream.", c.updatesSent()));
    out.add(
        counter(
            g + "entries_sent_total",
            "Prefix entries written to a report stream.",
            c.entriesSent()));
    out.add(
        counter(
            g + "events_sent_total",
            "PublishEvent calls (evictions, clears) the server acknowledged.",
            c.eventsSent()));
    out.add(
        counter(
            g + "updates_dropped_total",
            "Updates dropped: send buffer full, or still queued when the sink closed.",
            c.updatesDropped()));
    out.add(
        counter(
            g + "entries_dropped_total",
            "Prefix entries in the dropped updates.",
            c.entriesDropped()));
    out.add(
        counter(
            g + "events_dropped_total",
            "Evictions and clears dropped: buffer full, out of attempts, or undelivered at close.",
            c.eventsDropped()));
    out.add(
        counter(
            g + "updates_unconfirmed_total",
            "Updates sent on streams that failed before the server confirmed them.",
            c.updatesUnconfirmed()));
    out.add(
        counter(
            g + "entries_unconfirmed_total",
            "Prefix entries of the unconfirmed updates.",
            c.entriesUnconfirmed()));
    out.add(
        counter(
            g + "reconnects_total",
            "Connections to the server re-established after a failure.",
            c.reconnects()));
    out.add(counter(g + "resyncs_total", "Resyncs the sink carried out.", c.resyncs()));
    out.add(
        counter(
            g + "streams_opened_total",
            "ReportCacheState streams opened for the event path.",
            c.streamsOpened()));
    out.add(
        gauge(
            g + "queued_updates",
            "Updates and events waiting in the send buffer.",
            sink.queuedUpdates()));
  }

  private static void jetStream(
      final List<MetricFamilySamples> out, final JetStreamUpdateSink sink) {
    final String j = P + "jetstream_";
    final CounterMetricFamily publishes =
        new CounterMetricFamily(
            j + "publishes_total",
            "Publishes to the replication stream, by result: ok (acknowledged) or failed.",
            List.of("result"));
    publishes.addMetric(List.of("ok"), sink.published());
    publishes.addMetric(List.of("failed"), sink.failed());
    out.add(publishes);
    out.add(
        counter(
            j + "connections_total",
            "Broker (re)connections, each followed by a full-state publish.",
            sink.connections()));
    out.add(
        counter(
            j + "states_published_total",
            "Full states of the replica published whole.",
            sink.statesPublished()));
  }

  private static CounterMetricFamily counter(final String name, final String help, final double v) {
    return new CounterMetricFamily(name, help, v);
  }

  private static GaugeMetricFamily gauge(final String name, final String help, final double v) {
    return new GaugeMetricFamily(name, help, v);
  }

  private static GaugeMetricFamily gauge(final String name, final String help, final boolean v) {
    return new GaugeMetricFamily(name, help, v ? 1 : 0);
  }
}
