package io.inferencecache.controlplane.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every relative link and anchor in the repository's Markdown resolves, as GitHub would resolve it.
 */
class DocLinksTest {
  private final Path root = RepositoryDocs.root();

  @Test
  void everyRelativeLinkAndAnchorResolves() {
    final List<Path> files = RepositoryDocs.markdownFiles(root);
    assertThat(files).contains(root.resolve("README.md"), root.resolve("docs/configuration.md"));
    final List<String> broken = new ArrayList<>();
    for (final Path file : files) {
      for (final String target : RepositoryDocs.links(file)) {
        final String problem = problem(file, target);
        if (problem != null) {
          broken.add(root.relativize(file) + ": (" + target + ") " + problem);
        }
      }
    }
    assertThat(broken).as("broken links").isEmpty();
  }

  @Test
  void aBrokenLinkOrAnchorIsFound() throws Exception {
    final Path dir = Files.createTempDirectory("doclinks");
    Files.createDirectories(dir.resolve(".ci"));
    final Path page = dir.resolve("page.md");
    Files.writeString(
        page,
        "# The server (`serve`)\n## Flags\n## Flags\n[ok](#the-server-serve) [ok](#flags-1)"
            + " [bad](#flags-2) [missing](nope.md) [self](page.md#flags) `[code](x.md)`\n"
            + "```\n[fenced](y.md)\n```\n");
    assertThat(RepositoryDocs.links(page))
        .containsExactly("#the-server-serve", "#flags-1", "#flags-2", "nope.md", "page.md#flags");
    assertThat(problem(page, "#the-server-serve")).isNull();
    assertThat(problem(page, "#flags-1")).isNull();
    assertThat(problem(page, "page.md#flags")).isNull();
    assertThat(problem(page, "#flags-2")).contains("no heading");
    assertThat(problem(page, "nope.md")).contains("no file");
  }

  /** Why {@code target}, linked from {@code file}, does not resolve; null when it does. */
  private static String problem(final Path file, final String target) {
    if (target.matches("^[a-zA-Z][a-zA-Z0-9+.-]*:.*")) {
      return null; // http:, https:, mailto: — not ours to check offline
    }
    final int hash = target.indexOf('#');
    final String path = hash < 0 ? target : target.substring(0, hash);
    final String anchor = hash < 0 ? null : target.substring(hash + 1);
    final Path dest = path.isEmpty() ? file : file.getParent().resolve(path).normalize();
    if (!Files.exists(dest)) {
      return "no file " + dest;
    }
    if (anchor != null && !anchor.isEmpty()) {
      if (!dest.toString().endsWith(".md")) {
        return null; // line anchors into source files (#L10) are GitHub's, not checked
      }
      if (!RepositoryDocs.anchors(dest).contains(anchor)) {
        return "no heading with anchor #" + anchor + " in " + dest.getFileName();
      }
    }
    return null;
  }
}
