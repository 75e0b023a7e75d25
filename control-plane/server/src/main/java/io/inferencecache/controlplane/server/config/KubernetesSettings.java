package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import jakarta.validation.constraints.NotNull;

/**
 * How the server reaches the Kubernetes API for TokenReviews. By default the in-cluster config
 * (service-account token, CA and {@code KUBERNETES_SERVICE_HOST}); outside a cluster either a
 * {@code kubeconfig} file or an {@code apiServerUrl} (with an optional bearer token file and CA).
 */
public final class KubernetesSettings {
  @NotNull private String kubeconfig = "";
  @NotNull private String apiServerUrl = "";
  @NotNull private String bearerTokenFile = "";
  @NotNull private String caCertFile = "";
  private boolean verifyTls = true;
  @NotNull private Duration connectTimeout = Duration.seconds(5);
  @NotNull private Duration requestTimeout = Duration.seconds(10);

  @JsonProperty
  public String getKubeconfig() {
    return kubeconfig;
  }

  @JsonProperty
  public void setKubeconfig(final String v) {
    this.kubeconfig = v;
  }

  @JsonProperty
  public String getApiServerUrl() {
    return apiServerUrl;
  }

  @JsonProperty
  public void setApiServerUrl(final String v) {
    this.apiServerUrl = v;
  }

  @JsonProperty
  public String getBearerTokenFile() {
    return bearerTokenFile;
  }

  @JsonProperty
  public void setBearerTokenFile(final String v) {
    this.bearerTokenFile = v;
  }

  @JsonProperty
  public String getCaCertFile() {
    return caCertFile;
  }

  @JsonProperty
  public void setCaCertFile(final String v) {
    this.caCertFile = v;
  }

  @JsonProperty
  public boolean isVerifyTls() {
    return verifyTls;
  }

  @JsonProperty
  public void setVerifyTls(final boolean v) {
    this.verifyTls = v;
  }

  @JsonProperty
  public Duration getConnectTimeout() {
    return connectTimeout;
  }

  @JsonProperty
  public void setConnectTimeout(final Duration v) {
    this.connectTimeout = v;
  }

  @JsonProperty
  public Duration getRequestTimeout() {
    return requestTimeout;
  }

  @JsonProperty
  public void setRequestTimeout(final Duration v) {
    this.requestTimeout = v;
  }
}
