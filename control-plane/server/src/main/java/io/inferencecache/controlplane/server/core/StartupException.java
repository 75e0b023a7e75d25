package io.inferencecache.controlplane.server.core;

/** A start-up failure with the process exit code it maps to (2 = usage/config, 1 = runtime). */
public final class StartupException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** Exit code of flag and configuration errors. */
  public static final int USAGE = 2;

  /** Exit code of runtime start-up failures (client setup, TLS load, listen). */
  public static final int FAILURE = 1;

  private final int exitCode;

  public StartupException(final int exitCode, final String message) {
    super(message);
    this.exitCode = exitCode;
  }

  public StartupException(final int exitCode, final String message, final Throwable cause) {
    super(message, cause);
    this.exitCode = exitCode;
  }

  public int exitCode() {
    return exitCode;
  }
}
