package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.inferencecache.service.streams.IndexChangeFeed;
import io.inferencecache.service.streams.MetricSource;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * The streaming feeds, StreamCacheEvents and StreamMetrics (YAML section {@code feeds}). A
 * Dropwizard-style factory: {@link #build} makes the service's {@link IndexChangeFeed}.
 */
public final class FeedSettings {
  @Min(1)
  @Max(IndexChangeFeed.EVENT_BUFFER_MAX)
  private int eventBuffer = IndexChangeFeed.EVENT_BUFFER_DEFAULT;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration metricsInterval =
      Duration.milliseconds(IndexChangeFeed.METRICS_INTERVAL_DEFAULT.toMillis());

  /** The feed with these settings, sampling {@code metrics} for StreamMetrics. */
  public IndexChangeFeed build(final MetricSource metrics) {
    return IndexChangeFeed.builder()
        .eventBuffer(eventBuffer)
        .metricsInterval(java.time.Duration.ofNanos(metricsInterval.toNanoseconds()))
        .metricSource(metrics)
        .build();
  }

  /**
   * StreamCacheEvents events buffered per subscriber (rounded up to a power of two); a subscriber
   * that overflows it is cut off with {@code RESOURCE_EXHAUSTED}.
   */
  @JsonProperty
  public int getEventBuffer() {
    return eventBuffer;
  }

  @JsonProperty
  public void setEventBuffer(final int v) {
    this.eventBuffer = v;
  }

  /** StreamMetrics cadence. */
  @JsonProperty
  public Duration getMetricsInterval() {
    return metricsInterval;
  }

  @JsonProperty
  public void setMetricsInterval(final Duration v) {
    this.metricsInterval = v;
  }
}
