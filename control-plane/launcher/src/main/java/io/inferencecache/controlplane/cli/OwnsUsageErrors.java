package io.inferencecache.controlplane.cli;

import java.io.PrintWriter;

/**
 * A subcommand that reports its own command-line errors instead of the usage text and exit 2 of the
 * others: upstream's cobra commands ({@code doctor}) print {@code error: <message>} and exit 1; the
 * {@code client} commands print one line naming the fix and exit 2.
 */
public interface OwnsUsageErrors {
  /** Prints {@code message} as this command reports a usage error; returns the exit code. */
  int usageError(String message, PrintWriter err);
}
