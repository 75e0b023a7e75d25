package io.inferencecache.engine.internal;

/**
 * A count written by the single writer and read by anyone (volatile, no read-modify-write race).
 */
public final class Counter {
  private volatile long value;

  public long get() {
    return value;
  }

  /** Writer only. */
  public void add(final long delta) {
    value = value + delta;
  }
}
