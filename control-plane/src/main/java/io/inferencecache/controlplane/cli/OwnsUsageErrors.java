package io.inferencecache.controlplane.cli;

import java.io.PrintWriter;

/**
 * A subcommand that reports its own command-line errors (upstream's cobra commands print {@code
 * error: <message>} and exit 1) instead of the usage text and exit 2 of the others.
 */
public interface OwnsUsageErrors {
  /** Prints {@code message} as this command reports a usage error; returns the exit code. */
  int usageError(String message, PrintWriter err);
}
