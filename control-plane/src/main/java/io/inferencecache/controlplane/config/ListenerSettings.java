package io.inferencecache.controlplane.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;

/**
 * The three listeners (spec §6.1), Go {@code host:port} form ({@code :8080} = every interface).
 * Flags {@code --grpc-bind-address}, {@code --http-bind-address}, {@code --snapshot-bind-address}
 * override these.
 */
public final class ListenerSettings {
  @NotNull private String grpc = ":9090";
  @NotNull private String http = ":8080";
  @NotNull private String snapshot = ":8081";

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
}
