package io.inferencecache.subscriber;

import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.http.SubscriberHttpServer;
import io.inferencecache.subscriber.http.SubscriberMetrics;
import io.inferencecache.subscriber.report.Reporter;
import io.inferencecache.subscriber.report.StatsReporter;
import io.inferencecache.subscriber.sink.GrpcUpdateSink;
import io.inferencecache.subscriber.sink.JetStreamUpdateSink;
import io.inferencecache.subscriber.sink.UpdateSink;
import io.inferencecache.subscriber.source.ReceivedBatch;
import io.inferencecache.subscriber.source.StatsScraper;
import io.inferencecache.subscriber.source.ZmqEventSource;
import io.prometheus.client.CollectorRegistry;
import java.net.InetSocketAddress;
import java.time.Clock;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole sidecar for one replica, wired from a {@link SubscriberConfig}: {@link ZmqEventSource}
 * → queue of {@link SubscriberConfig#QUEUE_CAPACITY} → {@link Reporter}, and, unless the metrics
 * URL is empty, a {@link StatsReporter}. Both paths deliver to one {@link UpdateSink}: by default a
 * {@link GrpcUpdateSink} to {@link SubscriberConfig#server()}, owned by the subscriber.
 *
 * <p>With {@link SubscriberConfig#httpAddress()} set, {@link #start()} first binds the HTTP
 * endpoint ({@link SubscriberHttpServer}: {@code /metrics} from a {@link SubscriberMetrics} on a
 * registry of its own, {@code /healthz}, and {@code /readyz}, ready while the source is connected
 * to the engine and the sink {@linkplain UpdateSink#ready() can deliver}); it is closed last.
 *
 * <p>{@link #close()} stops the source first, then lets the reporter drain the queue and flush
 * (bounded by {@link Reporter#DRAIN_SECONDS}), then stops the stats path, then closes an owned sink
 * (which delivers what it still holds for up to {@link GrpcUpdateSink#DRAIN_TIMEOUT_DEFAULT}).
 * Start and close from one thread.
 */
public final class KvEventSubscriber implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KvEventSubscriber.class);

  private final SubscriberConfig config;
  private final BlockingQueue<ReceivedBatch> queue =
      new ArrayBlockingQueue<>(SubscriberConfig.QUEUE_CAPACITY);
  private final ZmqEventSource source;
  private final Reporter reporter;
  private final StatsReporter stats;
  private final UpdateSink sink;
  private final boolean ownsSink;
  private SubscriberHttpServer http;

  /**
   * Wires the sidecar to the server of {@code config} through a {@link GrpcUpdateSink} (plaintext,
   * lazy connect, buffer bounds from the config), or, with {@code --replication-nats-url}, to the
   * replication stream through a {@link JetStreamUpdateSink}; with an HTTP metrics fetcher and the
   * system clock.
   */
  public KvEventSubscriber(final SubscriberConfig config) {
    this(
        config,
        config.replicationEnabled()
            ? JetStreamUpdateSink.connect(config)
            : GrpcUpdateSink.builder(config).build(),
        true);
  }

  /** Wires the sidecar to {@code sink}, which the caller keeps owning (tests, embedding). */
  public KvEventSubscriber(final SubscriberConfig config, final UpdateSink sink) {
    this(config, sink, false);
  }

  private KvEventSubscriber(
      final SubscriberConfig config, final UpdateSink sink, final boolean ownsSink) {
    this.config = Objects.requireNonNull(config, "config");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.ownsSink = ownsSink;
    this.source = new ZmqEventSource(config.engineEndpoint(), config.topic(), queue);
    this.reporter = new Reporter(config, sink);
    this.stats =
        config.statsEnabled()
            ? new StatsReporter(
                StatsScraper.fromConfig(config), sink, config.statsInterval(), Clock.systemUTC())
            : null;
  }

  /**
   * Binds the HTTP endpoint when configured, then starts the reporter, the source and the stats
   * path.
   *
   * @throws java.io.UncheckedIOException when the HTTP address cannot be bound (nothing started)
   */
  public void start() {
    if (config.httpAddress() != null) {
      final CollectorRegistry registry = new CollectorRegistry();
      registry.register(new SubscriberMetrics(config, source, queue, reporter, stats, sink));
      http = new SubscriberHttpServer(config.httpAddress(), registry, readinessChecks());
      http.start();
    }
    reporter.start(queue);
    source.start();
    if (stats != null) {
      stats.start();
    }
    LOG.info("kvevent-subscriber started: {}", config);
  }

  private List<SubscriberHttpServer.Check> readinessChecks() {
    final String sinkName =
        switch (SubscriberMetrics.sinkKind(sink)) {
          case "grpc" -> "grpc sink to " + ((GrpcUpdateSink) sink).target();
          case "jetstream" -> "jetstream sink to the replication broker";
          default -> "sink " + SubscriberMetrics.sinkKind(sink);
        };
    return List.of(
        new SubscriberHttpServer.Check(
            "engine",
            () ->
                source.connected()
                    ? null
                    : "no connection with a completed handshake to " + config.engineEndpoint()),
        new SubscriberHttpServer.Check(
            "sink", () -> sink.ready() ? null : sinkName + " cannot deliver: not connected"));
  }

  /** Stops everything, draining and flushing the event path. */
  @Override
  public void close() {
    source.close();
    reporter.close();
    if (stats != null) {
      stats.close();
    }
    if (ownsSink && sink instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (final Exception e) {
        LOG.warn("closing the update sink failed: {}", e.toString());
      }
    }
    if (http != null) {
      http.close();
    }
    LOG.info("kvevent-subscriber stopped");
  }

  /** The bound HTTP address (the real port when 0 was configured), or null without the endpoint. */
  public InetSocketAddress httpAddress() {
    return http == null ? null : http.address();
  }

  /** Where updates go. */
  public UpdateSink sink() {
    return sink;
  }

  /** The event source (for its counters). */
  public ZmqEventSource source() {
    return source;
  }

  /** The reporter (for its counters). */
  public Reporter reporter() {
    return reporter;
  }

  /** The stats reporter, or {@code null} when the stats path is disabled. */
  public StatsReporter stats() {
    return stats;
  }
}
