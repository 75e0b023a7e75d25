package io.inferencecache.subscriber.decode;

/**
 * One stats scrape failed: the engine's {@code /metrics} could not be fetched, is not valid
 * Prometheus text, or lacks what the metric profile requires. No stats update is sent for it.
 */
public final class ScrapeException extends Exception {
  private static final long serialVersionUID = 1L;

  /** A failure with a message naming the problem. */
  public ScrapeException(final String message) {
    super(message);
  }

  /** A failure caused by a lower-level error. */
  public ScrapeException(final String message, final Throwable cause) {
    super(message, cause);
  }
}
