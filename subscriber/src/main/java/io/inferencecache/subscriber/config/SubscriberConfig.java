package io.inferencecache.subscriber.config;

import io.inferencecache.replication.StreamSettings;
import java.time.Duration;
import java.util.Map;

/**
 * Every setting of the kvevent-subscriber, with the upstream flag names and defaults, validated
 * once by {@link Builder#build()} before any thread or socket is created.
 *
 * <table>
 *   <caption>Flags</caption>
 *   <tr><th>flag</th><th>default</th><th>rule</th></tr>
 *   <tr><td>--engine-endpoint</td><td>{@value #ENGINE_ENDPOINT_DEFAULT}</td>
 *       <td>a {@code tcp://}, {@code ipc://} or {@code inproc://} ZMQ endpoint</td></tr>
 *   <tr><td>--topic</td><td>{@value #TOPIC_DEFAULT}</td><td>empty = every topic</td></tr>
 *   <tr><td>--server</td><td>{@value #SERVER_DEFAULT}</td><td>non-empty gRPC target</td></tr>
 *   <tr><td>--server-buffer-updates</td><td>{@value #SERVER_BUFFER_UPDATES_DEFAULT}</td>
 *       <td>&gt; 0: updates and events held while the server is unreachable (beyond upstream)
 *       </td></tr>
 *   <tr><td>--server-buffer-entries</td><td>{@value #SERVER_BUFFER_ENTRIES_DEFAULT}</td>
 *       <td>&gt; 0: prefix entries held in those updates (beyond upstream)</td></tr>
 *   <tr><td>--replica-id</td><td></td><td>required, non-empty</td></tr>
 *   <tr><td>--model-id</td><td></td><td>required, non-empty</td></tr>
 *   <tr><td>--tenant-id</td><td>""</td><td>optional</td></tr>
 *   <tr><td>--hash-scheme</td><td>{@value #HASH_SCHEME_DEFAULT}</td>
 *       <td>required, non-empty; {@code sglang} selects the SGLang metric profile, anything
 *       else the vLLM one</td></tr>
 *   <tr><td>--window</td><td>100ms</td><td>&gt; 0</td></tr>
 *   <tr><td>--engine-metrics-url</td><td>{@value #ENGINE_METRICS_URL_DEFAULT}</td>
 *       <td>absolute http(s) URL; empty disables the stats path</td></tr>
 *   <tr><td>--stats-interval</td><td>10s</td><td>&gt; 0</td></tr>
 *   <tr><td>--engine-cache-size-bytes</td><td>0</td><td>≥ 0 (0 = cache_memory_bytes 0)</td></tr>
 *   <tr><td>--max-concurrency-ceiling</td><td>{@value #MAX_CONCURRENCY_CEILING_DEFAULT}</td>
 *       <td>any; ≤ 0 makes pressure 0</td></tr>
 *   <tr><td>--cache-tier</td><td>auto</td><td>auto | kv | gpu | cpu</td></tr>
 *   <tr><td>--engine-model-name</td><td>""</td><td>model_name label filter; empty = none</td></tr>
 *   <tr><td>--ignore-block-removed</td><td>false</td><td>declares an L2 offload tier</td></tr>
 *   <tr><td>--replication-nats-url</td><td>""</td><td>{@code nats://host:port[,...]}: publish to
 *       the JetStream replication stream instead of {@code --server}; empty = off</td></tr>
 *   <tr><td>--replication-stream</td><td>{@value #REPLICATION_STREAM_DEFAULT}</td>
 *       <td>stream name (also the subject prefix), {@code [A-Za-z0-9_-]{1,64}}</td></tr>
 *   <tr><td>--replication-publish-timeout</td><td>2s</td><td>&gt; 0</td></tr>
 *   <tr><td>--lora-adapter-names</td><td>""</td>
 *       <td>{@code id=name,...}: int64 ids, non-empty names, no duplicate id; blank entries
 *       skipped</td></tr>
 *   <tr><td>--http-address</td><td>{@value #HTTP_ADDRESS_DEFAULT} in {@code subscribe}, off in
 *       this builder</td><td>{@link HttpAddress} forms; empty = no HTTP endpoint</td></tr>
 * </table>
 *
 * <p>The checks and their messages: {@code ConfigValidation}; the {@code --lora-adapter-names}
 * grammar: {@code LoraAdapterNames}. Immutable and thread-safe.
 */
public final class SubscriberConfig {
  /** Default {@code --engine-endpoint}. */
  public static final String ENGINE_ENDPOINT_DEFAULT = "tcp://127.0.0.1:5557";

  /** Default {@code --topic}. */
  public static final String TOPIC_DEFAULT = "kv-events";

  /** Default {@code --server}. */
  public static final String SERVER_DEFAULT = "127.0.0.1:9090";

  /** Default {@code --server-buffer-updates}. */
  public static final int SERVER_BUFFER_UPDATES_DEFAULT = 1024;

  /** Default {@code --server-buffer-entries}. */
  public static final int SERVER_BUFFER_ENTRIES_DEFAULT = 65_536;

  /** Default {@code --hash-scheme}. */
  public static final String HASH_SCHEME_DEFAULT = "vllm";

  /** Default {@code --window}. */
  public static final Duration WINDOW_DEFAULT = Duration.ofMillis(100);

  /** Default {@code --engine-metrics-url}. */
  public static final String ENGINE_METRICS_URL_DEFAULT = "http://127.0.0.1:8000/metrics";

  /** Default {@code --stats-interval}. */
  public static final Duration STATS_INTERVAL_DEFAULT = Duration.ofSeconds(10);

  /** Default {@code --max-concurrency-ceiling}. */
  public static final int MAX_CONCURRENCY_CEILING_DEFAULT = 256;

  /** Default {@code --replication-stream}. */
  public static final String REPLICATION_STREAM_DEFAULT = StreamSettings.STREAM_DEFAULT;

  /**
   * Default {@code --http-address} of the {@code subscribe} command: every interface, so that the
   * kubelet's probes and Prometheus reach the sidecar on the pod IP. The builder leaves the
   * endpoint off (embedding, tests: several subscribers in one JVM).
   */
  public static final String HTTP_ADDRESS_DEFAULT = ":9105";

  /** Capacity of the source → reporter queue (upstream's channel of 256). */
  public static final int QUEUE_CAPACITY = 256;

  private final String engineEndpoint;
  private final String topic;
  private final String server;
  private final int serverBufferUpdates;
  private final int serverBufferEntries;
  private final String replicaId;
  private final String modelId;
  private final String tenantId;
  private final String hashScheme;
  private final Duration window;
  private final String engineMetricsUrl;
  private final Duration statsInterval;
  private final long engineCacheSizeBytes;
  private final int maxConcurrencyCeiling;
  private final CacheTier cacheTier;
  private final String engineModelName;
  private final boolean ignoreBlockRemoved;
  private final String loraAdapterNamesFlag;
  private final Map<Long, String> loraAdapterNames;
  private final StreamSettings replication;
  private final HttpAddress httpAddress;

  SubscriberConfig(
      final Builder b,
      final CacheTier tier,
      final Map<Long, String> names,
      final StreamSettings replication,
      final HttpAddress httpAddress) {
    this.replication = replication;
    this.httpAddress = httpAddress;
    this.engineEndpoint = b.engineEndpoint;
    this.topic = b.topic;
    this.server = b.server;
    this.serverBufferUpdates = b.serverBufferUpdates;
    this.serverBufferEntries = b.serverBufferEntries;
    this.replicaId = b.replicaId;
    this.modelId = b.modelId;
    this.tenantId = b.tenantId;
    this.hashScheme = b.hashScheme;
    this.window = b.window;
    this.engineMetricsUrl = b.engineMetricsUrl;
    this.statsInterval = b.statsInterval;
    this.engineCacheSizeBytes = b.engineCacheSizeBytes;
    this.maxConcurrencyCeiling = b.maxConcurrencyCeiling;
    this.cacheTier = tier;
    this.engineModelName = b.engineModelName;
    this.ignoreBlockRemoved = b.ignoreBlockRemoved;
    this.loraAdapterNamesFlag = b.loraAdapterNames;
    this.loraAdapterNames = names;
  }

  /** A builder holding every default; replica and model ids must still be set. */
  public static Builder builder() {
    return new Builder();
  }

  /** ZMQ endpoint of the engine's KV-event publisher. */
  public String engineEndpoint() {
    return engineEndpoint;
  }

  /** ZMQ topic prefix to subscribe to; empty = all. */
  public String topic() {
    return topic;
  }

  /** The inference-cache server's gRPC target. */
  public String server() {
    return server;
  }

  /** Updates and events the sink holds while the server is unreachable; more are dropped. */
  public int serverBufferUpdates() {
    return serverBufferUpdates;
  }

  /** Prefix entries the sink holds in those updates; more are dropped. */
  public int serverBufferEntries() {
    return serverBufferEntries;
  }

  /** The engine replica id stamped on every update. */
  public String replicaId() {
    return replicaId;
  }

  /** The served model id stamped on every update. */
  public String modelId() {
    return modelId;
  }

  /** The tenant id stamped on every update; may be empty. */
  public String tenantId() {
    return tenantId;
  }

  /** The engine's hash-domain tag. */
  public String hashScheme() {
    return hashScheme;
  }

  /** The add-batching window. */
  public Duration window() {
    return window;
  }

  /** The engine's Prometheus endpoint; empty = stats path disabled. */
  public String engineMetricsUrl() {
    return engineMetricsUrl;
  }

  /** The stats scrape cadence. */
  public Duration statsInterval() {
    return statsInterval;
  }

  /** The engine's total KV-cache capacity in bytes; 0 = unknown. */
  public long engineCacheSizeBytes() {
    return engineCacheSizeBytes;
  }

  /** The denominator of the pressure proxy. */
  public int maxConcurrencyCeiling() {
    return maxConcurrencyCeiling;
  }

  /** Which usage gauge feeds cache_memory_bytes. */
  public CacheTier cacheTier() {
    return cacheTier;
  }

  /** The {@code model_name} label filter; empty = none. */
  public String engineModelName() {
    return engineModelName;
  }

  /** Whether the engine has an L2 offload tier (evictions become T2 downgrades). */
  public boolean ignoreBlockRemoved() {
    return ignoreBlockRemoved;
  }

  /** The raw {@code --lora-adapter-names} value. */
  public String loraAdapterNamesFlag() {
    return loraAdapterNamesFlag;
  }

  /** Engine LoRA id → adapter name (unmodifiable, in flag order). */
  public Map<Long, String> loraAdapterNames() {
    return loraAdapterNames;
  }

  /** The replication stream settings ({@code --replication-*}); disabled without a NATS URL. */
  public StreamSettings replication() {
    return replication;
  }

  /** Whether updates go to the replication stream ({@code --replication-nats-url} set). */
  public boolean replicationEnabled() {
    return replication.enabled();
  }

  /**
   * Where the HTTP endpoint ({@code /metrics}, {@code /healthz}, {@code /readyz}) listens; null =
   * off.
   */
  public HttpAddress httpAddress() {
    return httpAddress;
  }

  /** Whether the stats path is on. */
  public boolean statsEnabled() {
    return !engineMetricsUrl.isEmpty();
  }

  @Override
  public String toString() {
    return "SubscriberConfig{engineEndpoint="
        + engineEndpoint
        + ", topic="
        + topic
        + ", server="
        + server
        + ", serverBufferUpdates="
        + serverBufferUpdates
        + ", serverBufferEntries="
        + serverBufferEntries
        + ", replicaId="
        + replicaId
        + ", modelId="
        + modelId
        + ", tenantId="
        + tenantId
        + ", hashScheme="
        + hashScheme
        + ", window="
        + window
        + ", engineMetricsUrl="
        + engineMetricsUrl
        + ", statsInterval="
        + statsInterval
        + ", engineCacheSizeBytes="
        + engineCacheSizeBytes
        + ", maxConcurrencyCeiling="
        + maxConcurrencyCeiling
        + ", cacheTier="
        + cacheTier.flag()
        + ", engineModelName="
        + engineModelName
        + ", ignoreBlockRemoved="
        + ignoreBlockRemoved
        + ", loraAdapterNames="
        + loraAdapterNames
        + ", replication="
        + replication
        + ", httpAddress="
        + (httpAddress == null ? "off" : httpAddress)
        + '}';
  }

  /**
   * Collects raw flag values (read by {@code ConfigValidation}); {@link #build()} validates them
   * all at once. Not thread-safe.
   */
  public static final class Builder {
    String engineEndpoint = ENGINE_ENDPOINT_DEFAULT;
    String topic = TOPIC_DEFAULT;
    String server = SERVER_DEFAULT;
    int serverBufferUpdates = SERVER_BUFFER_UPDATES_DEFAULT;
    int serverBufferEntries = SERVER_BUFFER_ENTRIES_DEFAULT;
    String replicaId = "";
    String modelId = "";
    String tenantId = "";
    String hashScheme = HASH_SCHEME_DEFAULT;
    Duration window = WINDOW_DEFAULT;
    String engineMetricsUrl = ENGINE_METRICS_URL_DEFAULT;
    Duration statsInterval = STATS_INTERVAL_DEFAULT;
    long engineCacheSizeBytes;
    int maxConcurrencyCeiling = MAX_CONCURRENCY_CEILING_DEFAULT;
    String cacheTier = CacheTier.AUTO.flag();
    String engineModelName = "";
    boolean ignoreBlockRemoved;
    String loraAdapterNames = "";
    String replicationNatsUrl = "";
    String replicationStream = REPLICATION_STREAM_DEFAULT;
    Duration replicationPublishTimeout = StreamSettings.PUBLISH_TIMEOUT_DEFAULT;
    String httpAddress = "";

    private Builder() {}

    /** {@code --http-address}; empty = no HTTP endpoint. */
    public Builder httpAddress(final String v) {
      httpAddress = v;
      return this;
    }

    /** {@code --replication-nats-url}. */
    public Builder replicationNatsUrl(final String v) {
      replicationNatsUrl = v;
      return this;
    }

    /** {@code --replication-stream}. */
    public Builder replicationStream(final String v) {
      replicationStream = v;
      return this;
    }

    /** {@code --replication-publish-timeout}. */
    public Builder replicationPublishTimeout(final Duration v) {
      replicationPublishTimeout = v;
      return this;
    }

    /** {@code --replication-publish-timeout}, Go duration syntax. */
    public Builder replicationPublishTimeout(final String v) {
      replicationPublishTimeout = ConfigValidation.goDuration("--replication-publish-timeout", v);
      return this;
    }

    /** {@code --engine-endpoint}. */
    public Builder engineEndpoint(final String v) {
      engineEndpoint = v;
      return this;
    }

    /** {@code --topic}. */
    public Builder topic(final String v) {
      topic = v;
      return this;
    }

    /** {@code --server}. */
    public Builder server(final String v) {
      server = v;
      return this;
    }

    /** {@code --server-buffer-updates}. */
    public Builder serverBufferUpdates(final int v) {
      serverBufferUpdates = v;
      return this;
    }

    /** {@code --server-buffer-entries}. */
    public Builder serverBufferEntries(final int v) {
      serverBufferEntries = v;
      return this;
    }

    /** {@code --replica-id}. */
    public Builder replicaId(final String v) {
      replicaId = v;
      return this;
    }

    /** {@code --model-id}. */
    public Builder modelId(final String v) {
      modelId = v;
      return this;
    }

    /** {@code --tenant-id}. */
    public Builder tenantId(final String v) {
      tenantId = v;
      return this;
    }

    /** {@code --hash-scheme}. */
    public Builder hashScheme(final String v) {
      hashScheme = v;
      return this;
    }

    /** {@code --window}. */
    public Builder window(final Duration v) {
      window = v;
      return this;
    }

    /** {@code --window} in Go duration syntax ({@code 100ms}). */
    public Builder window(final String v) {
      window = ConfigValidation.goDuration("--window", v);
      return this;
    }

    /** {@code --engine-metrics-url}. */
    public Builder engineMetricsUrl(final String v) {
      engineMetricsUrl = v;
      return this;
    }

    /** {@code --stats-interval}. */
    public Builder statsInterval(final Duration v) {
      statsInterval = v;
      return this;
    }

    /** {@code --stats-interval} in Go duration syntax ({@code 10s}). */
    public Builder statsInterval(final String v) {
      statsInterval = ConfigValidation.goDuration("--stats-interval", v);
      return this;
    }

    /** {@code --engine-cache-size-bytes}. */
    public Builder engineCacheSizeBytes(final long v) {
      engineCacheSizeBytes = v;
      return this;
    }

    /** {@code --max-concurrency-ceiling}. */
    public Builder maxConcurrencyCeiling(final int v) {
      maxConcurrencyCeiling = v;
      return this;
    }

    /** {@code --cache-tier}. */
    public Builder cacheTier(final String v) {
      cacheTier = v;
      return this;
    }

    /** {@code --engine-model-name}. */
    public Builder engineModelName(final String v) {
      engineModelName = v;
      return this;
    }

    /** {@code --ignore-block-removed}. */
    public Builder ignoreBlockRemoved(final boolean v) {
      ignoreBlockRemoved = v;
      return this;
    }

    /** {@code --lora-adapter-names}. */
    public Builder loraAdapterNames(final String v) {
      loraAdapterNames = v;
      return this;
    }

    /**
     * Validates every setting.
     *
     * @throws InvalidConfigException naming every problem found
     */
    public SubscriberConfig build() {
      return ConfigValidation.validate(this);
    }
  }
}
