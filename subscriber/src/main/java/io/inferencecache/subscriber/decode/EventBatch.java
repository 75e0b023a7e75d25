package io.inferencecache.subscriber.decode;

import java.util.List;

/**
 * One decoded engine {@code EventBatch}.
 *
 * @param timestampSeconds the engine's batch timestamp, Unix seconds (0 when the engine sent none)
 * @param events the known events in engine order (unknown event types already skipped)
 */
public record EventBatch(double timestampSeconds, List<KvEvent> events) {
  /** Copies {@code events} into an unmodifiable list. */
  public EventBatch {
    events = List.copyOf(events);
  }

  /**
   * The batch timestamp in Unix microseconds as the wire wants it: {@code seconds × 1e6}, and 0
   * ("server now") for a non-positive or non-finite timestamp.
   */
  public long timestampMicros() {
    return toMicros(timestampSeconds);
  }

  /** {@code seconds × 1e6}; 0 for a non-positive or non-finite value. */
  public static long toMicros(final double seconds) {
    if (!(seconds > 0) || Double.isInfinite(seconds)) {
      return 0L;
    }
    return (long) (seconds * 1e6);
  }
}
