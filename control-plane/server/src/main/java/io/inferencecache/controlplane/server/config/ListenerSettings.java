package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * The three listeners (docs/behaviour.md#http), Go {@code host:port} form ({@code :8080} = every
 * interface). Flags {@code --grpc-bind-address}, {@code --http-bind-address}, {@code
 * --snapshot-bind-address} override these.
 */
public final class ListenerSettings {
  @NotNull private String grpc = ":9090";
  @NotNull private String http = ":8080";
  @NotNull private String snapshot = ":8081";

  @Min(0)
  private int httpMaxConnections = 1024;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration httpHeaderTimeout = Duration.seconds(10);

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration httpLimitedIdleTimeout = Duration.seconds(1);

  @JsonProperty
  public String getGrpc() {
    return grpc;
  }

  @JsonProperty
  public void setGrpc(final String grpc) {
    this.grpc = grpc;
  }

  @JsonProperty
  public String getHttp() {
    return http;
  }

  @JsonProperty
  public void setHttp(final String http) {
    this.http = http;
  }

  @JsonProperty
  public String getSnapshot() {
    return snapshot;
  }

  @JsonProperty
  public void setSnapshot(final String snapshot) {
    this.snapshot = snapshot;
  }

  /**
   * Open connections per HTTP listener ({@code :8080}, {@code :8081}) at which it stops accepting
   * until one closes; 0 = no cap.
   */
  @JsonProperty
  public int getHttpMaxConnections() {
    return httpMaxConnections;
  }

  @JsonProperty
  public void setHttpMaxConnections(final int v) {
    this.httpMaxConnections = v;
  }

  /** Time a client has to send a request's headers before the connection is closed. */
  @JsonProperty
  public Duration getHttpHeaderTimeout() {
    return httpHeaderTimeout;
  }

  @JsonProperty
  public void setHttpHeaderTimeout(final Duration v) {
    this.httpHeaderTimeout = v;
  }

  /** Idle timeout applied to a listener's connections while it is at its connection cap. */
  @JsonProperty
  public Duration getHttpLimitedIdleTimeout() {
    return httpLimitedIdleTimeout;
  }

  @JsonProperty
  public void setHttpLimitedIdleTimeout(final Duration v) {
    this.httpLimitedIdleTimeout = v;
  }
}
