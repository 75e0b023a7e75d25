package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import jakarta.validation.constraints.NotNull;

/**
 * gRPC server TLS (docs/behaviour.md#tls); flags {@code --tls-cert-file} / {@code --tls-key-file}
 * override.
 */
public final class TlsSettings {
  @NotNull private String certFile = "";
  @NotNull private String keyFile = "";

  @JsonProperty
  public String getCertFile() {
    return certFile;
  }

  @JsonProperty
  public void setCertFile(final String v) {
    this.certFile = v;
  }

  @JsonProperty
  public String getKeyFile() {
    return keyFile;
  }

  @JsonProperty
  public void setKeyFile(final String v) {
    this.keyFile = v;
  }

  /** Whether both halves are set (TLS on). */
  public boolean enabled() {
    return !certFile.isEmpty() && !keyFile.isEmpty();
  }

  /** Whether exactly one half is set (a start-up error, exit 2). */
  public boolean partial() {
    return certFile.isEmpty() != keyFile.isEmpty();
  }
}
