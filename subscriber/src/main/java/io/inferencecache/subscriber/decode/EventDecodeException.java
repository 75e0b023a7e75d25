package io.inferencecache.subscriber.decode;

/**
 * A msgpack payload is not a well-formed engine {@code EventBatch}. The message names the problem
 * (the element and what was wrong with it); the whole batch is rejected.
 */
public final class EventDecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  /** A decode failure with a message naming the problem. */
  public EventDecodeException(final String message) {
    super(message);
  }

  /** A decode failure caused by a lower-level error (truncated or invalid msgpack). */
  public EventDecodeException(final String message, final Throwable cause) {
    super(message, cause);
  }
}
