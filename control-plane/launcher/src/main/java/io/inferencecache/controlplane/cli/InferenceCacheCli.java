package io.inferencecache.controlplane.cli;

import io.inferencecache.controlplane.server.core.StartupException;
import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * The {@code inference-cache} command line. Each subcommand is one picocli {@code @Command} class
 * listed in {@link #COMMANDS}; adding one ({@code controller}, {@code doctor}, {@code subscribe},
 * {@code fake-engine}, {@code client}) is one class and one line here. Exit codes: 0 success or
 * {@code --help}, 2 unknown flag or bad value (with usage), start-up errors as {@link
 * StartupException} says, 1 for any other failure.
 */
@Command(
    name = "inference-cache",
    mixinStandardHelpOptions = true,
    versionProvider = InferenceCacheCli.Version.class,
    description = "Cache-aware routing hints for LLM inference.",
    synopsisSubcommandLabel = "COMMAND")
public final class InferenceCacheCli implements Callable<Integer> {
  /** The subcommands, in help order. */
  public static final List<Class<?>> COMMANDS =
      List.of(
          ServeCommand.class,
          ControllerCommand.class,
          SubscribeCommand.class,
          FakeEngineCommand.class,
          DoctorCommand.class,
          ClientCommand.class);

  @Spec private CommandSpec spec;

  @Override
  public Integer call() {
    spec.commandLine().usage(spec.commandLine().getErr());
    return CommandLine.ExitCode.USAGE;
  }

  /** A configured command line writing to {@code out} and {@code err}. */
  public static CommandLine commandLine(final PrintWriter out, final PrintWriter err) {
    final CommandLine cli = new CommandLine(new InferenceCacheCli());
    for (final Class<?> command : COMMANDS) {
      cli.addSubcommand(command);
    }
    cli.setOut(out);
    cli.setErr(err);
    final CommandLine.IParameterExceptionHandler usage = cli.getParameterExceptionHandler();
    cli.setParameterExceptionHandler(
        (e, rest) ->
            e.getCommandLine().getCommand() instanceof OwnsUsageErrors own
                ? own.usageError(e.getMessage(), e.getCommandLine().getErr())
                : usage.handleParseException(e, rest));
    cli.setExecutionExceptionHandler(
        (e, commandLine, parseResult) -> {
          if (e instanceof StartupException s) {
            commandLine.getErr().println(s.getMessage());
            commandLine.getErr().flush();
            return s.exitCode();
          }
          commandLine.getErr().println("inference-cache: " + e);
          commandLine.getErr().flush();
          return CommandLine.ExitCode.SOFTWARE;
        });
    return cli;
  }

  /** Runs {@code args}; returns the exit code. */
  public static int run(final String[] args, final PrintWriter out, final PrintWriter err) {
    return commandLine(out, err).execute(goFlags(args));
  }

  /**
   * Go's flag package also takes long flags with one dash ({@code -log-level=debug}); they are
   * rewritten to the two-dash form. Arguments after {@code --} are left alone.
   */
  static String[] goFlags(final String[] args) {
    final String[] out = args.clone();
    for (int i = 0; i < out.length; i++) {
      final String a = out[i];
      if ("--".equals(a)) {
        break;
      }
      if (a.length() > 2 && a.charAt(0) == '-' && Character.isLetter(a.charAt(1))) {
        final int eq = a.indexOf('=');
        final String name = eq < 0 ? a.substring(1) : a.substring(1, eq);
        if (name.length() > 1
            && name.chars().allMatch(c -> c == '-' || Character.isLetterOrDigit(c))) {
          out[i] = "-" + a;
        }
      }
    }
    return out;
  }

  /** The jar's Implementation-Version. */
  static final class Version implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
      final String v = InferenceCacheCli.class.getPackage().getImplementationVersion();
      return new String[] {"inference-cache " + (v == null ? "dev" : v)};
    }
  }
}
