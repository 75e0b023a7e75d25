package io.inferencecache.controlplane.docs;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.controlplane.cli.InferenceCacheCli;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code docs/configuration.md} against each command's {@code --help}: every flag the help prints
 * has a row in the command's section, and every flag a row names is one the help prints.
 */
class ConfigurationReferenceTest {
  private static final Path REFERENCE = RepositoryDocs.root().resolve("docs/configuration.md");
  private static final Pattern FLAG = Pattern.compile("(?<![\\w-])(--[a-z][a-z0-9-]*)");
  private static final Set<String> STANDARD = Set.of("--help", "--version");

  @ParameterizedTest
  @ValueSource(
      strings = {
        "serve",
        "subscribe",
        "controller",
        "doctor",
        "fake-engine",
        "client report",
        "client lookup"
      })
  void theReferenceListsExactlyTheFlagsTheHelpPrints(final String command) {
    final Set<String> printed = flagsOf(help(command));
    assertThat(printed).as(command + " --help").isNotEmpty();
    assertThat(documented(command))
        .as("flags in docs/configuration.md ## " + command)
        .isEqualTo(printed);
  }

  /**
   * What {@code inference-cache COMMAND --help} prints, as a user would run it ({@code COMMAND} may
   * be a command and its subcommand, {@code client lookup}).
   */
  private static String help(final String command) {
    final StringWriter out = new StringWriter();
    final int code =
        InferenceCacheCli.run(
            (command + " --help").split(" "),
            new PrintWriter(out),
            new PrintWriter(new StringWriter()));
    assertThat(code).as(command + " --help exit code").isZero();
    return out.toString();
  }

  /** The long flags of a help text's option list (lines that start with a flag). */
  private static Set<String> flagsOf(final String help) {
    final Set<String> flags = new TreeSet<>();
    for (final String line : help.split("\n")) {
      final String s = line.strip();
      if (s.startsWith("-")) {
        final Matcher m = FLAG.matcher(s.split("\\s{2,}")[0]);
        while (m.find()) {
          flags.add(m.group(1).replaceAll("=.*", ""));
        }
      }
    }
    flags.removeAll(STANDARD);
    return flags;
  }

  /**
   * The flags in the first cell of every table row in the reference's section for {@code command}.
   */
  private static Set<String> documented(final String command) {
    final List<String> lines = RepositoryDocs.readLines(REFERENCE);
    final int from = lines.indexOf("## " + command);
    assertThat(from).as("heading '## " + command + "' in " + REFERENCE).isNotNegative();
    final Set<String> flags = new TreeSet<>();
    for (int i = from + 1; i < lines.size() && !lines.get(i).startsWith("## "); i++) {
      final String line = lines.get(i);
      if (line.startsWith("| ")) {
        final Matcher m = FLAG.matcher(line.split("\\|")[1]);
        while (m.find()) {
          flags.add(m.group(1));
        }
      }
    }
    flags.removeAll(STANDARD);
    return flags;
  }
}
