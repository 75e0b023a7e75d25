package io.inferencecache.controlplane.server.metrics;

import com.codahale.metrics.Gauge;
import java.util.concurrent.atomic.AtomicLong;

/** A settable integer Dropwizard gauge (set without allocation; boxed only when read). */
public final class LongGauge implements Gauge<Long> {
  private final AtomicLong value = new AtomicLong();

  public void set(final long v) {
    value.set(v);
  }

  public long get() {
    return value.get();
  }

  @Override
  public Long getValue() {
    return value.get();
  }
}
