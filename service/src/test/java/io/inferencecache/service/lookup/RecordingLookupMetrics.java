package io.inferencecache.service.lookup;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** A {@link LookupMetrics} that keeps every record (thread-safe). */
public final class RecordingLookupMetrics implements LookupMetrics {
  /** One {@link LookupMetrics#record} call. */
  public record Call(String model, String reasonCode, boolean hintUsed, long latencyNanos) {}

  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private final AtomicInteger internalErrors = new AtomicInteger();

  @Override
  public void record(
      final String model,
      final String reasonCode,
      final boolean hintUsed,
      final long latencyNanos) {
    calls.add(new Call(model, reasonCode, hintUsed, latencyNanos));
  }

  @Override
  public void internalError() {
    internalErrors.incrementAndGet();
  }

  /** Every record so far, in order. */
  public List<Call> calls() {
    return List.copyOf(calls);
  }

  public int count() {
    return calls.size();
  }

  /** The latest record. */
  public Call last() {
    return calls.get(calls.size() - 1);
  }

  public int internalErrors() {
    return internalErrors.get();
  }
}
