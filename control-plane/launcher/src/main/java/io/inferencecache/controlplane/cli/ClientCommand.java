package io.inferencecache.controlplane.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * {@code client}: a small gRPC client of the server, for trying it out and for debugging without
 * {@code grpcurl}: {@code client report} reports a chain for a replica, {@code client lookup} asks
 * for a routing hint. A usage error prints one line naming the fix and exits 2; a server that
 * cannot be reached or answers with an error exits 1. Output on stdout, logs on stderr.
 */
@Command(
    name = "client",
    mixinStandardHelpOptions = true,
    description = "Talk to a running server over gRPC: report a chain, look one up.",
    synopsisSubcommandLabel = "COMMAND",
    subcommands = {ClientReportCommand.class, ClientLookupCommand.class})
public final class ClientCommand implements Callable<Integer>, OwnsUsageErrors {
  @Spec private CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return CommandLine.ExitCode.USAGE;
  }

  @Override
  public int usageError(final String message, final PrintWriter err) {
    return usage("client", message, err);
  }

  /** Prints {@code <command>: <message> (see <command> --help)}; returns 2. */
  static int usage(final String command, final String message, final PrintWriter err) {
    err.println(command + ": " + message + " (see " + command + " --help)");
    err.flush();
    return CommandLine.ExitCode.USAGE;
  }

  /** Prints {@code <command>: <message>}; returns 1. */
  static int failure(final String command, final String message, final PrintWriter err) {
    err.println(command + ": " + message);
    err.flush();
    return CommandLine.ExitCode.SOFTWARE;
  }
}
