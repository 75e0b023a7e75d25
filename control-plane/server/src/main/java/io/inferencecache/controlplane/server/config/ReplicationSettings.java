package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.dropwizard.validation.ValidationMethod;
import io.inferencecache.replication.StreamSettings;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * Several server replicas sharing one view through the NATS JetStream replication stream (YAML
 * section {@code replication}); off while {@code natsUrl} is empty, and then nothing changes.
 */
public final class ReplicationSettings {
  @NotNull private String natsUrl = "";

  @NotNull private String stream = StreamSettings.STREAM_DEFAULT;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration publishTimeout =
      Duration.milliseconds(StreamSettings.PUBLISH_TIMEOUT_DEFAULT.toMillis());

  @NotNull
  @MinDuration(value = 0, unit = TimeUnit.MILLISECONDS)
  private Duration catchUpTimeout = Duration.seconds(60);

  /** The stream settings of this section. */
  public StreamSettings toStreamSettings() {
    return new StreamSettings(
        natsUrl.trim(), stream, java.time.Duration.ofNanos(publishTimeout.toNanoseconds()));
  }

  /** Whether replication is on. */
  public boolean enabled() {
    return !natsUrl.isBlank();
  }

  @ValidationMethod(
      message = "stream must be 1-64 of A-Z a-z 0-9 - _ (it is also the subject prefix)")
  @com.fasterxml.jackson.annotation.JsonIgnore
  public boolean isValidStream() {
    return toStreamSettings().problem() == null;
  }

  /** Comma-separated {@code nats://host:port} URLs of the broker; empty = replication off. */
  @JsonProperty
  public String getNatsUrl() {
    return natsUrl;
  }

  @JsonProperty
  public void setNatsUrl(final String v) {
    this.natsUrl = v;
  }

  /** The stream name, also its subject prefix. */
  @JsonProperty
  public String getStream() {
    return stream;
  }

  @JsonProperty
  public void setStream(final String v) {
    this.stream = v;
  }

  /** Bound of one publish of a forwarded ReportCacheState / PublishEvent message. */
  @JsonProperty
  public Duration getPublishTimeout() {
    return publishTimeout;
  }

  @JsonProperty
  public void setPublishTimeout(final Duration v) {
    this.publishTimeout = v;
  }

  /**
   * How long {@code /readyz} waits for the replica to apply what the stream held when it started;
   * after it the replica is ready with what it has (logged).
   */
  @JsonProperty
  public Duration getCatchUpTimeout() {
    return catchUpTimeout;
  }

  @JsonProperty
  public void setCatchUpTimeout(final Duration v) {
    this.catchUpTimeout = v;
  }
}
