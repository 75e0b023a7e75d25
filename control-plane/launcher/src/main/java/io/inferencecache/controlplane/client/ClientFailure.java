package io.inferencecache.controlplane.client;

/**
 * A {@code client} command could not do its call: the server is unreachable, did not answer in
 * time, or answered with an error status. The message is one line for the user (exit 1).
 */
public final class ClientFailure extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public ClientFailure(final String message) {
    super(message);
  }
}
