package io.inferencecache.perf.replay;

import org.agrona.concurrent.EpochNanoClock;

/**
 * The simulated clock the fleet simulator hands the index ({@code IndexConfig.clock}): entry
 * freshness, the TTL and stats ages all read it. Starts at a fixed epoch (so runs are
 * reproducible); only the simulation thread moves it, other threads (the in-process server's) read
 * it.
 */
final class SimClock implements EpochNanoClock {
  /** Simulated time 0: 2026-01-01T00:00:00Z. */
  static final long EPOCH_NANOS = 1_767_225_600_000_000_000L;

  private volatile long nanos = EPOCH_NANOS;

  void setMicros(final long simMicros) {
    nanos = EPOCH_NANOS + simMicros * 1000L;
  }

  @Override
  public long nanoTime() {
    return nanos;
  }
}
