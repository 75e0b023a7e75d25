package io.inferencecache.controlplane.server.metrics;

import com.codahale.metrics.Metric;
import com.codahale.metrics.MetricRegistry;
import java.util.function.Supplier;

/** Get-or-register for metric types the registry has no factory method for. */
final class Registrations {
  private Registrations() {}

  static <T extends Metric> T getOrRegister(
      final MetricRegistry registry,
      final String name,
      final Supplier<T> create,
      final Class<T> type) {
    synchronized (registry) {
      final Metric existing = registry.getMetrics().get(name);
      if (existing != null) {
        if (!type.isInstance(existing)) {
          throw new IllegalStateException(name + " is already registered as another type");
        }
        return type.cast(existing);
      }
      return registry.register(name, create.get());
    }
  }
}
