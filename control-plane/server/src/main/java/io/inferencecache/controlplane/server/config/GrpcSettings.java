package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.DataSize;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.inferencecache.service.server.BindAddress;
import io.inferencecache.service.server.GrpcServerConfig;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * gRPC server limits (the listener address and TLS have their own flags). A Dropwizard-style
 * factory: {@link #build} turns the YAML section into the server's {@link GrpcServerConfig}.
 */
public final class GrpcSettings {
  @Min(0)
  @Max(4096)
  private int executorThreads;

  @NotNull private DataSize maxInboundMessageSize = DataSize.mebibytes(4);

  @Min(1)
  private int maxConcurrentCallsPerConnection = 1024;

  @NotNull private Duration drainTimeout = Duration.seconds(5);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration handshakeTimeout = Duration.seconds(10);

  @NotNull private Duration maxConnectionIdle = Duration.minutes(5);

  @Min(0)
  private int maxConnections = 10_000;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration maxQueueDelay = Duration.seconds(1);

  /**
   * The gRPC server's configuration: these limits, the listener address and the TLS files.
   *
   * @throws IllegalArgumentException naming the setting that {@link GrpcServerConfig} refuses
   */
  public GrpcServerConfig build(
      final BindAddress address, final String tlsCertFile, final String tlsKeyFile) {
    final GrpcServerConfig.Builder b =
        GrpcServerConfig.builder()
            .bindAddress(address)
            .maxInboundMessageSize((int) maxInboundMessageSize.toBytes())
            .maxConcurrentCallsPerConnection(maxConcurrentCallsPerConnection)
            .shutdownDrainTimeout(java(drainTimeout))
            .handshakeTimeout(java(handshakeTimeout))
            .maxConnectionIdle(java(maxConnectionIdle))
            .maxConnections(maxConnections)
            .maxQueueDelay(java(maxQueueDelay))
            .tlsCertFile(tlsCertFile)
            .tlsKeyFile(tlsKeyFile);
    if (executorThreads > 0) {
      b.executorThreads(executorThreads);
    }
    return b.build();
  }

  private static java.time.Duration java(final Duration d) {
    return java.time.Duration.ofNanos(d.toNanoseconds());
  }

  /** Threads of the call executor; 0 = the transport's default. */
  @JsonProperty
  public int getExecutorThreads() {
    return executorThreads;
  }

  @JsonProperty
  public void setExecutorThreads(final int v) {
    this.executorThreads = v;
  }

  @JsonProperty
  public DataSize getMaxInboundMessageSize() {
    return maxInboundMessageSize;
  }

  @JsonProperty
  public void setMaxInboundMessageSize(final DataSize v) {
    this.maxInboundMessageSize = v;
  }

  @JsonProperty
  public int getMaxConcurrentCallsPerConnection() {
    return maxConcurrentCallsPerConnection;
  }

  @JsonProperty
  public void setMaxConcurrentCallsPerConnection(final int v) {
    this.maxConcurrentCallsPerConnection = v;
  }

  /** How long a graceful stop waits for in-flight calls before forcing (upstream GracefulStop). */
  @JsonProperty
  public Duration getDrainTimeout() {
    return drainTimeout;
  }

  @JsonProperty
  public void setDrainTimeout(final Duration v) {
    this.drainTimeout = v;
  }

  /** Time a new connection has to finish its TLS and HTTP/2 handshake before it is closed. */
  @JsonProperty
  public Duration getHandshakeTimeout() {
    return handshakeTimeout;
  }

  @JsonProperty
  public void setHandshakeTimeout(final Duration v) {
    this.handshakeTimeout = v;
  }

  /** A connection without calls for this long gets GOAWAY; 0 = never. */
  @JsonProperty
  public Duration getMaxConnectionIdle() {
    return maxConnectionIdle;
  }

  @JsonProperty
  public void setMaxConnectionIdle(final Duration v) {
    this.maxConnectionIdle = v;
  }

  /** Open connections at which new ones are closed at accept; 0 = no cap. */
  @JsonProperty
  public int getMaxConnections() {
    return maxConnections;
  }

  @JsonProperty
  public void setMaxConnections(final int v) {
    this.maxConnections = v;
  }

  /** Oldest waiting handler task's wait at which new calls are shed (LookupRoute: NO_HINT). */
  @JsonProperty
  public Duration getMaxQueueDelay() {
    return maxQueueDelay;
  }

  @JsonProperty
  public void setMaxQueueDelay(final Duration v) {
    this.maxQueueDelay = v;
  }
}
