package io.inferencecache.perf;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import org.openjdk.jmh.runner.NoBenchmarksException;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.CommandLineOptionException;
import org.openjdk.jmh.runner.options.CommandLineOptions;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;

/**
 * The benchmark jar's entry point: JMH's own command line, with {@link JvmFlags#offHeap()} added in
 * front of any {@code -jvmArgsAppend} given, so every fork can run Chronicle Map and Agrona. All
 * other options (and {@code -h}, {@code -l}, {@code -lprof}) behave exactly as in {@code
 * org.openjdk.jmh.Main}. Benchmarks must fork ({@code -f 0} would run them in this JVM, without the
 * flags).
 */
public final class BenchmarkMain {
  private BenchmarkMain() {}

  public static void main(final String[] args) throws Exception {
    final CommandLineOptions cmd;
    try {
      cmd = new CommandLineOptions(args);
    } catch (CommandLineOptionException e) {
      System.err.println("Error parsing command line: " + e.getMessage());
      System.exit(1);
      return;
    }
    if (cmd.shouldHelp()
        || cmd.shouldList()
        || cmd.shouldListWithParams()
        || cmd.shouldListProfilers()
        || cmd.shouldListResultFormats()) {
      org.openjdk.jmh.Main.main(args);
      return;
    }
    final List<String> append = new ArrayList<>();
    final Collection<String> given = cmd.getJvmArgsAppend().orElse(List.of());
    append.addAll(given);
    final Options options =
        new OptionsBuilder().parent(cmd).jvmArgsAppend(JvmFlags.with(append)).build();
    try {
      new Runner(options).run();
    } catch (NoBenchmarksException e) {
      System.err.println("No matching benchmarks. Miss-spelled regexp? Use -l to list them.");
      System.exit(1);
    } catch (RunnerException e) {
      System.err.print("ERROR: ");
      e.printStackTrace(System.err);
      System.exit(1);
    }
  }
}
