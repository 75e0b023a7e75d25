package io.inferencecache.controlplane.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** The repository's Markdown files, read as GitHub renders them: headings' anchors and links. */
final class RepositoryDocs {
  private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern HTML_ANCHOR =
      Pattern.compile("<a\\s+(?:name|id)=\"([^\"]+)\"", Pattern.CASE_INSENSITIVE);
  private static final Pattern LINK =
      Pattern.compile("\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+\"[^\"]*\")?\\)");
  private static final Pattern CODE_SPAN = Pattern.compile("(`+)(?:(?!\\1).)+?\\1");

  private RepositoryDocs() {}

  /** The repository's root: the folder above the module the tests run in that holds {@code .ci}. */
  static Path root() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null && !Files.isDirectory(dir.resolve(".ci"))) {
      dir = dir.getParent();
    }
    if (dir == null) {
      throw new IllegalStateException(
          "no folder holding .ci above " + Path.of("").toAbsolutePath());
    }
    return dir;
  }

  /** Every {@code *.md} file of the repository outside build output and hidden folders. */
  static List<Path> markdownFiles(final Path root) {
    try (Stream<Path> files = Files.walk(root)) {
      return files
          .filter(p -> p.toString().endsWith(".md"))
          .filter(p -> !excluded(root.relativize(p)))
          .sorted()
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static boolean excluded(final Path relative) {
    for (final Path part : relative) {
      final String name = part.toString();
      if (name.equals("target") || name.equals("node_modules") || name.startsWith(".")) {
        return true;
      }
    }
    return false;
  }

  /** The lines of {@code file} outside fenced code blocks, inline code spans removed. */
  static List<String> prose(final Path file) {
    final List<String> out = new ArrayList<>();
    String fence = null;
    for (final String line : readLines(file)) {
      final String stripped = line.stripLeading();
      if (fence == null && (stripped.startsWith("```") || stripped.startsWith("~~~"))) {
        fence = stripped.substring(0, 3);
        out.add("");
      } else if (fence != null) {
        if (stripped.startsWith(fence)) {
          fence = null;
        }
        out.add("");
      } else {
        out.add(line);
      }
    }
    return out;
  }

  /** The anchors GitHub gives {@code file}'s headings, plus explicit HTML anchors. */
  static Set<String> anchors(final Path file) {
    final Set<String> anchors = new LinkedHashSet<>();
    final List<String> seen = new ArrayList<>();
    for (final String line : prose(file)) {
      final Matcher h = HEADING.matcher(line);
      if (h.matches()) {
        final String slug = slug(h.group(2));
        final long before = seen.stream().filter(slug::equals).count();
        seen.add(slug);
        anchors.add(before == 0 ? slug : slug + "-" + before);
      }
      final Matcher a = HTML_ANCHOR.matcher(line);
      while (a.find()) {
        anchors.add(a.group(1));
      }
    }
    return anchors;
  }

  /**
   * GitHub's heading anchor: lower case, markup and punctuation other than {@code -} and {@code _}
   * dropped, each space a hyphen.
   */
  static String slug(final String heading) {
    final String text =
        heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").strip();
    final StringBuilder out = new StringBuilder();
    for (final char c : text.toLowerCase(Locale.ROOT).toCharArray()) {
      if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
        out.append(c);
      } else if (c == ' ') {
        out.append('-');
      }
    }
    return out.toString();
  }

  /** The link targets of {@code file}'s prose, in order. */
  static List<String> links(final Path file) {
    final List<String> targets = new ArrayList<>();
    for (final String line : prose(file)) {
      final Matcher m = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
      while (m.find()) {
        targets.add(m.group(1));
      }
    }
    return targets;
  }

  static List<String> readLines(final Path file) {
    try {
      return Files.readAllLines(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
