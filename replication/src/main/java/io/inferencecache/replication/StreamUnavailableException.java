package io.inferencecache.replication;

/** A publish the broker did not acknowledge: not connected, refused, or timed out. */
public final class StreamUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public StreamUnavailableException(final String message) {
    super(message);
  }

  public StreamUnavailableException(final String message, final Throwable cause) {
    super(message, cause);
  }
}
