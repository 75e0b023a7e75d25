package io.inferencecache.subscriber.config;

import io.inferencecache.configtext.GoDuration;
import io.inferencecache.replication.StreamSettings;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Every rule of a {@link SubscriberConfig} setting and its message: {@link
 * SubscriberConfig.Builder#build()} checks the raw flag values here, all at once, and each problem
 * found is named in one {@link InvalidConfigException}.
 */
final class ConfigValidation {
  private ConfigValidation() {}

  /** Parses a Go duration flag value; the error names {@code flag}. */
  static Duration goDuration(final String flag, final String v) {
    try {
      return GoDuration.parse(v);
    } catch (final IllegalArgumentException e) {
      throw new InvalidConfigException(flag + ": " + e.getMessage());
    }
  }

  /**
   * The config of {@code b}'s values.
   *
   * @throws InvalidConfigException naming every problem found
   */
  static SubscriberConfig validate(final SubscriberConfig.Builder b) {
    final List<String> problems = new ArrayList<>();
    if (b.engineEndpoint == null || !validEndpoint(b.engineEndpoint)) {
      problems.add(
          "--engine-endpoint: want tcp://host:port, ipc://path or inproc://name, got \""
              + b.engineEndpoint
              + "\"");
    }
    if (b.topic == null) {
      problems.add("--topic: must not be null");
    }
    if (b.server == null || b.server.isBlank()) {
      problems.add("--server: required");
    }
    if (b.serverBufferUpdates <= 0) {
      problems.add("--server-buffer-updates: must be positive, got " + b.serverBufferUpdates);
    }
    if (b.serverBufferEntries <= 0) {
      problems.add("--server-buffer-entries: must be positive, got " + b.serverBufferEntries);
    }
    if (b.replicaId == null || b.replicaId.isEmpty()) {
      problems.add("--replica-id: required");
    }
    if (b.modelId == null || b.modelId.isEmpty()) {
      problems.add("--model-id: required");
    }
    if (b.tenantId == null) {
      problems.add("--tenant-id: must not be null");
    }
    if (b.hashScheme == null || b.hashScheme.isEmpty()) {
      problems.add("--hash-scheme: required (an empty scheme is dropped server-side)");
    }
    if (b.window == null || b.window.isNegative() || b.window.isZero()) {
      problems.add("--window: must be positive, got " + b.window);
    }
    if (b.engineMetricsUrl == null || !validMetricsUrl(b.engineMetricsUrl)) {
      problems.add(
          "--engine-metrics-url: want an absolute http(s) URL or empty, got \""
              + b.engineMetricsUrl
              + "\"");
    }
    if (b.statsInterval == null || b.statsInterval.isNegative() || b.statsInterval.isZero()) {
      problems.add("--stats-interval: must be positive, got " + b.statsInterval);
    }
    if (b.engineCacheSizeBytes < 0) {
      problems.add("--engine-cache-size-bytes: must be >= 0, got " + b.engineCacheSizeBytes);
    }
    CacheTier tier = CacheTier.AUTO;
    try {
      tier = CacheTier.fromFlag(b.cacheTier);
    } catch (final InvalidConfigException e) {
      problems.add(e.getMessage());
    }
    if (b.engineModelName == null) {
      problems.add("--engine-model-name: must not be null");
    }
    Map<Long, String> names = Map.of();
    try {
      names = LoraAdapterNames.parse(b.loraAdapterNames);
    } catch (final InvalidConfigException e) {
      problems.add(e.getMessage());
    }
    StreamSettings replication = null;
    if (b.replicationNatsUrl == null || b.replicationStream == null) {
      problems.add("--replication-nats-url, --replication-stream: must not be null");
    } else if (b.replicationPublishTimeout == null) {
      problems.add("--replication-publish-timeout: must be positive, got null");
    } else {
      replication =
          new StreamSettings(
              b.replicationNatsUrl.trim(), b.replicationStream, b.replicationPublishTimeout);
      final String problem = replication.problem();
      if (problem != null) {
        problems.add("--replication-*: " + problem);
      }
    }
    HttpAddress http = null;
    if (b.httpAddress == null) {
      problems.add("--http-address: must not be null");
    } else if (!b.httpAddress.isEmpty()) {
      try {
        http = HttpAddress.parse("--http-address", b.httpAddress);
      } catch (final InvalidConfigException e) {
        problems.add(e.getMessage());
      }
    }
    if (!problems.isEmpty()) {
      throw new InvalidConfigException("invalid config: " + String.join("; ", problems));
    }
    return new SubscriberConfig(b, tier, names, replication, http);
  }

  private static boolean validEndpoint(final String endpoint) {
    final int sep = endpoint.indexOf("://");
    if (sep <= 0 || sep + 3 >= endpoint.length()) {
      return false;
    }
    final String transport = endpoint.substring(0, sep).toLowerCase(Locale.ROOT);
    return transport.equals("tcp") || transport.equals("ipc") || transport.equals("inproc");
  }

  private static boolean validMetricsUrl(final String url) {
    if (url.isEmpty()) {
      return true;
    }
    try {
      final URI uri = new URI(url);
      final String scheme = uri.getScheme();
      return uri.isAbsolute()
          && uri.getHost() != null
          && scheme != null
          && (scheme.equalsIgnoreCase("http") || scheme.equalsIgnoreCase("https"));
    } catch (final URISyntaxException e) {
      return false;
    }
  }
}
