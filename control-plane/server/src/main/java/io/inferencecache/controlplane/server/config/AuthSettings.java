package io.inferencecache.controlplane.server.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.dropwizard.util.Duration;
import io.dropwizard.validation.MinDuration;
import io.inferencecache.controlplane.server.auth.AuthLog;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotNull;
import java.util.concurrent.TimeUnit;

/**
 * Authentication of the snapshot listener (docs/behaviour.md#auth). The first four keys have flags
 * of the same meaning ({@code --allowed-controller-sa}, {@code --insecure-disable-auth}, {@code
 * --controller-audience}, {@code --policy-audience}), which override them.
 */
public final class AuthSettings {
  public static final String CONTROLLER_AUDIENCE_DEFAULT = "inferencecache.io/controller";
  public static final String POLICY_AUDIENCE_DEFAULT = "inferencecache.io/policy";

  @NotNull private String allowedControllerSa = "";
  private boolean insecureDisableAuth;
  @NotNull private String controllerAudience = CONTROLLER_AUDIENCE_DEFAULT;
  @NotNull private String policyAudience = POLICY_AUDIENCE_DEFAULT;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration cacheTtl = Duration.seconds(30);

  @Min(1)
  @Max(100_000)
  private int cacheMaxEntries = 32;

  @Min(1)
  @Max(1024)
  private int maxConcurrentReviews = 4;

  @NotNull private Duration reviewWait = Duration.milliseconds(250);

  /** WARN lines per interval for rejected tokens (and as many for failed reviews). */
  @Min(1)
  @Max(100_000)
  private int rejectionLogLimit = AuthLog.DEFAULT_MAX_LINES;

  @NotNull
  @MinDuration(value = 1, unit = TimeUnit.MILLISECONDS)
  private Duration rejectionLogInterval = Duration.seconds(10);

  @JsonProperty
  public String getAllowedControllerSa() {
    return allowedControllerSa;
  }

  @JsonProperty
  public void setAllowedControllerSa(final String v) {
    this.allowedControllerSa = v;
  }

  @JsonProperty
  public boolean isInsecureDisableAuth() {
    return insecureDisableAuth;
  }

  @JsonProperty
  public void setInsecureDisableAuth(final boolean v) {
    this.insecureDisableAuth = v;
  }

  @JsonProperty
  public String getControllerAudience() {
    return controllerAudience;
  }

  @JsonProperty
  public void setControllerAudience(final String v) {
    this.controllerAudience = v;
  }

  @JsonProperty
  public String getPolicyAudience() {
    return policyAudience;
  }

  @JsonProperty
  public void setPolicyAudience(final String v) {
    this.policyAudience = v;
  }

  @JsonProperty
  public Duration getCacheTtl() {
    return cacheTtl;
  }

  @JsonProperty
  public void setCacheTtl(final Duration v) {
    this.cacheTtl = v;
  }

  @JsonProperty
  public int getCacheMaxEntries() {
    return cacheMaxEntries;
  }

  @JsonProperty
  public void setCacheMaxEntries(final int v) {
    this.cacheMaxEntries = v;
  }

  @JsonProperty
  public int getMaxConcurrentReviews() {
    return maxConcurrentReviews;
  }

  @JsonProperty
  public void setMaxConcurrentReviews(final int v) {
    this.maxConcurrentReviews = v;
  }

  @JsonProperty
  public Duration getReviewWait() {
    return reviewWait;
  }

  @JsonProperty
  public void setReviewWait(final Duration v) {
    this.reviewWait = v;
  }

  @JsonProperty
  public int getRejectionLogLimit() {
    return rejectionLogLimit;
  }

  @JsonProperty
  public void setRejectionLogLimit(final int v) {
    this.rejectionLogLimit = v;
  }

  @JsonProperty
  public Duration getRejectionLogInterval() {
    return rejectionLogInterval;
  }

  @JsonProperty
  public void setRejectionLogInterval(final Duration v) {
    this.rejectionLogInterval = v;
  }
}
