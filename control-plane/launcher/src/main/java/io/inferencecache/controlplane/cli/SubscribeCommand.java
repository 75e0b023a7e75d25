package io.inferencecache.controlplane.cli;

import io.inferencecache.controlplane.server.core.LogConfigurer;
import io.inferencecache.controlplane.server.core.StartupException;
import io.inferencecache.subscriber.KvEventSubscriber;
import io.inferencecache.subscriber.config.InvalidConfigException;
import io.inferencecache.subscriber.config.SubscriberConfig;
import java.io.UncheckedIOException;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code subscribe}: the engine-side KV-event subscriber (sidecar). Listens to one engine replica's
 * ZMQ KV-event stream and reports to the server over gRPC. Flags and defaults are upstream's {@code
 * cmd/kvevent-subscriber}; an invalid configuration exits 2, an HTTP address that cannot be bound
 * exits 1. Runs until SIGTERM, then flushes what it holds. Logs go to standard error, info and
 * above.
 */
@Command(
    name = "subscribe",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description = "Run the KV-event subscriber sidecar for one engine replica.")
public final class SubscribeCommand implements Callable<Integer> {
  @Option(
      names = "--engine-endpoint",
      paramLabel = "URL",
      description = "ZMQ endpoint of the engine's KV-event publisher (default ${DEFAULT-VALUE}).")
  String engineEndpoint = SubscriberConfig.ENGINE_ENDPOINT_DEFAULT;

  @Option(
      names = "--topic",
      paramLabel = "TOPIC",
      description = "ZMQ topic filter; empty = all (default ${DEFAULT-VALUE}).")
  String topic = SubscriberConfig.TOPIC_DEFAULT;

  @Option(
      names = "--server",
      paramLabel = "HOST:PORT",
      description = "inference-cache gRPC server, plaintext (default ${DEFAULT-VALUE}).")
  String server = SubscriberConfig.SERVER_DEFAULT;

  @Option(
      names = "--server-buffer-updates",
      paramLabel = "N",
      description =
          "Updates and events held while the server is unreachable; more are dropped and the"
              + " replica resynced (default ${DEFAULT-VALUE}).")
  int serverBufferUpdates = SubscriberConfig.SERVER_BUFFER_UPDATES_DEFAULT;

  @Option(
      names = "--server-buffer-entries",
      paramLabel = "N",
      description = "Prefix entries held in those updates (default ${DEFAULT-VALUE}).")
  int serverBufferEntries = SubscriberConfig.SERVER_BUFFER_ENTRIES_DEFAULT;

  @Option(
      names = "--replica-id",
      paramLabel = "ID",
      description = "This engine replica's id (required).")
  String replicaId = "";

  @Option(
      names = "--model-id",
      paramLabel = "ID",
      description = "Model served by the replica (required).")
  String modelId = "";

  @Option(
      names = "--tenant-id",
      paramLabel = "ID",
      description = "Tenant (in a cluster: the pod namespace).")
  String tenantId = "";

  @Option(
      names = "--hash-scheme",
      paramLabel = "SCHEME",
      description = "vllm | sglang (default ${DEFAULT-VALUE}).")
  String hashScheme = SubscriberConfig.HASH_SCHEME_DEFAULT;

  @Option(
      names = "--window",
      paramLabel = "DURATION",
      description = "Reporting window, Go duration (default 100ms).")
  String window = "100ms";

  @Option(
      names = "--engine-metrics-url",
      paramLabel = "URL",
      description =
          "Engine Prometheus endpoint for the stats path; empty disables it (default ${DEFAULT-VALUE}).")
  String engineMetricsUrl = SubscriberConfig.ENGINE_METRICS_URL_DEFAULT;

  @Option(
      names = "--stats-interval",
      paramLabel = "DURATION",
      description = "Stats scrape interval, Go duration (default 10s).")
  String statsInterval = "10s";

  @Option(
      names = "--engine-cache-size-bytes",
      paramLabel = "BYTES",
      description = "KV cache size, for cache_memory_bytes = usage × size (default 0 = unset).")
  long engineCacheSizeBytes;

  @Option(
      names = "--max-concurrency-ceiling",
      paramLabel = "N",
      description = "Running+waiting requests that mean pressure 1.0 (default ${DEFAULT-VALUE}).")
  int maxConcurrencyCeiling = SubscriberConfig.MAX_CONCURRENCY_CEILING_DEFAULT;

  @Option(
      names = "--cache-tier",
      paramLabel = "TIER",
      description = "auto | kv | gpu | cpu (default ${DEFAULT-VALUE}).")
  String cacheTier = "auto";

  @Option(
      names = "--engine-model-name",
      paramLabel = "NAME",
      description = "model_name label filter for the engine metrics.")
  String engineModelName = "";

  @Option(
      names = "--ignore-block-removed",
      arity = "0..1",
      fallbackValue = "true",
      paramLabel = "BOOL",
      description = "L2 mode: report removed blocks as tier T2 instead of evicting them.")
  boolean ignoreBlockRemoved;

  @Option(
      names = "--lora-adapter-names",
      paramLabel = "ID=NAME,...",
      description = "lora_id → adapter name; events of unmapped adapters are dropped.")
  String loraAdapterNames = "";

  @Option(
      names = "--replication-nats-url",
      paramLabel = "URL",
      description =
          "nats://host:port[,...]: publish to the JetStream replication stream instead of --server;"
              + " empty = off.")
  String replicationNatsUrl = "";

  @Option(
      names = "--replication-stream",
      paramLabel = "NAME",
      description = "Replication stream name, also the subject prefix (default ${DEFAULT-VALUE}).")
  String replicationStream = SubscriberConfig.REPLICATION_STREAM_DEFAULT;

  @Option(
      names = "--replication-publish-timeout",
      paramLabel = "DURATION",
      description = "Bound of one publish to the stream, Go duration (default 2s).")
  String replicationPublishTimeout = "2s";

  @Option(
      names = "--http-address",
      paramLabel = "HOST:PORT",
      description =
          "Where /metrics, /healthz and /readyz listen: host:port, :port (every interface) or"
              + " [ipv6]:port; empty = off (default ${DEFAULT-VALUE}).")
  String httpAddress = SubscriberConfig.HTTP_ADDRESS_DEFAULT;

  @Override
  public Integer call() throws Exception {
    LogConfigurer.level("info");
    final SubscriberConfig config;
    try {
      config =
          SubscriberConfig.builder()
              .engineEndpoint(engineEndpoint)
              .topic(topic)
              .server(server)
              .serverBufferUpdates(serverBufferUpdates)
              .serverBufferEntries(serverBufferEntries)
              .replicaId(replicaId)
              .modelId(modelId)
              .tenantId(tenantId)
              .hashScheme(hashScheme)
              .window(window)
              .engineMetricsUrl(engineMetricsUrl)
              .statsInterval(statsInterval)
              .engineCacheSizeBytes(engineCacheSizeBytes)
              .maxConcurrencyCeiling(maxConcurrencyCeiling)
              .cacheTier(cacheTier)
              .engineModelName(engineModelName)
              .ignoreBlockRemoved(ignoreBlockRemoved)
              .loraAdapterNames(loraAdapterNames)
              .replicationNatsUrl(replicationNatsUrl)
              .replicationStream(replicationStream)
              .replicationPublishTimeout(replicationPublishTimeout)
              .httpAddress(httpAddress)
              .build();
    } catch (InvalidConfigException e) {
      throw new StartupException(StartupException.USAGE, "subscribe: " + e.getMessage(), e);
    }
    final CountDownLatch stopped = new CountDownLatch(1);
    final KvEventSubscriber subscriber = new KvEventSubscriber(config);
    try {
      subscriber.start();
    } catch (UncheckedIOException e) { // the HTTP address cannot be bound
      subscriber.close();
      throw new StartupException(StartupException.FAILURE, "subscribe: " + e.getMessage(), e);
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  subscriber.close(); // final flush
                  stopped.countDown();
                },
                "subscribe-shutdown"));
    stopped.await();
    return 0;
  }
}
