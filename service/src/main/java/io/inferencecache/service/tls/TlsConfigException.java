package io.inferencecache.service.tls;

import java.util.Objects;

/**
 * The gRPC server TLS settings are unusable. {@link #kind()} tells the application which exit code
 * upstream uses (dataplane docs/behaviour.md#tls and docs/behaviour.md#startup): a pair given by
 * halves is a usage error (exit 2, raised by {@link GrpcServerConfig.Builder#build()}), a pair that
 * cannot be loaded at startup is a runtime failure (exit 1, raised when {@link GrpcServer} is
 * built).
 *
 * <p>Immutable; thread-safe.
 */
public final class TlsConfigException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  /** What is wrong with the TLS settings. */
  public enum Kind {
    /**
     * Exactly one of {@code --tls-cert-file} / {@code --tls-key-file} is set. The message is
     * exactly {@link GrpcServerConfig#TLS_PARTIAL_MESSAGE}; upstream prints it prefixed with {@code
     * "server: "}.
     */
    PARTIAL(2),
    /** The certificate or key file cannot be read, parsed, or the two do not match. */
    LOAD_FAILED(1);

    private final int exitCode;

    Kind(final int exitCode) {
      this.exitCode = exitCode;
    }

    /** Process exit code upstream uses for this failure. */
    public int exitCode() {
      return exitCode;
    }
  }

  private final Kind kind;

  /**
   * @param kind what is wrong
   * @param message the message shown to the operator
   * @param cause the underlying error, or null
   */
  public TlsConfigException(final Kind kind, final String message, final Throwable cause) {
    super(message, cause);
    this.kind = Objects.requireNonNull(kind, "kind");
  }

  /** What is wrong. */
  public Kind kind() {
    return kind;
  }

  /** Shorthand for {@code kind().exitCode()}. */
  public int exitCode() {
    return kind.exitCode();
  }
}
