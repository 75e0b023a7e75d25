package io.inferencecache.controlplane.server.health;

import com.codahale.metrics.health.HealthCheck;
import io.inferencecache.controlplane.server.core.Readiness;

/** Dropwizard's view of {@code /readyz} (shown on the admin connector when one is configured). */
public final class ReadinessHealthCheck extends HealthCheck {
  private final Readiness readiness;

  public ReadinessHealthCheck(final Readiness readiness) {
    this.readiness = readiness;
  }

  @Override
  protected Result check() {
    return readiness.ready() ? Result.healthy() : Result.unhealthy("not ready");
  }
}
