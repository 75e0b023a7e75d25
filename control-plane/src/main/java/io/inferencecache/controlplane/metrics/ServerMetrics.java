package io.inferencecache.controlplane.metrics;

import com.codahale.metrics.MetricRegistry;

/** {@code inferencecache_server_up} and {@code inferencecache_server_grpc_tls_enabled}. */
public final class ServerMetrics {
  private final LongGauge up;
  private final LongGauge tls;

  public ServerMetrics(final MetricRegistry registry) {
    this.up =
        Registrations.getOrRegister(
            registry, MetricFamily.SERVER_UP.registryName(), LongGauge::new, LongGauge.class);
    this.tls =
        Registrations.getOrRegister(
            registry,
            MetricFamily.GRPC_TLS_ENABLED.registryName(),
            LongGauge::new,
            LongGauge.class);
  }

  /** 1 while serving, 0 after. */
  public void up(final boolean serving) {
    up.set(serving ? 1 : 0);
  }

  /** 1 when gRPC serves TLS. */
  public void tlsEnabled(final boolean enabled) {
    tls.set(enabled ? 1 : 0);
  }
}
