package io.inferencecache.controlplane.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The README's test command is exactly what CI runs. */
class TestCommandTest {
  private final Path root = RepositoryDocs.root();

  @Test
  void ciRunsTheReadmesTestCommand() {
    final List<String> readme = RepositoryDocs.readLines(root.resolve("README.md"));
    final int fence = readme.indexOf("```bash");
    assertThat(fence).as("a bash block in README.md").isNotNegative();
    assertThat(fence).as("the two commands come first in README.md").isLessThan(12);
    final String testCommand = command(readme.get(fence + 2));
    assertThat(readme.get(fence + 3)).as("the block holds exactly two commands").isEqualTo("```");

    final List<String> commands =
        RepositoryDocs.readLines(root.resolve(".ci/run")).stream()
            .map(String::strip)
            .filter(l -> !l.isEmpty() && !l.startsWith("#"))
            .filter(l -> !l.startsWith("set ") && !l.startsWith("cd "))
            .toList();
    assertThat(commands).as("what .ci/run runs besides set-up of the shell").hasSize(1);
    assertThat(command(commands.get(0).replaceFirst("^exec\\s+", "")))
        .as(".ci/run against the README's test command")
        .isEqualTo(testCommand);
  }

  /** A command line without its trailing comment. */
  private static String command(final String line) {
    final int comment = line.indexOf(" #");
    return (comment < 0 ? line : line.substring(0, comment)).strip();
  }
}
