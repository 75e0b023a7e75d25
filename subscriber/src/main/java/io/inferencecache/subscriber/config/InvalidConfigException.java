package io.inferencecache.subscriber.config;

/** The subscriber configuration is invalid; the application maps it to exit code 2. */
public final class InvalidConfigException extends IllegalArgumentException {
  private static final long serialVersionUID = 1L;

  /** One message naming every problem found. */
  public InvalidConfigException(final String message) {
    super(message);
  }
}
