package io.inferencecache.controlplane.api;

/** A request body that does not decode; the message is what follows {@code decode …: } upstream. */
public final class JsonDecodeException extends Exception {
  private static final long serialVersionUID = 1L;

  public JsonDecodeException(final String message) {
    super(message);
  }
}
