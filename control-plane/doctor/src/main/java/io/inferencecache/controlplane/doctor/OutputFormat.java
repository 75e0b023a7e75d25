package io.inferencecache.controlplane.doctor;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.SerializableString;
import com.fasterxml.jackson.core.io.CharacterEscapes;
import com.fasterxml.jackson.core.io.SerializedString;
import com.fasterxml.jackson.core.util.DefaultIndenter;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The three renderings of a {@link Report}: {@code human} (sections by status, worst first), {@code
 * table} (one aligned row per finding) and {@code json} (summary and findings), each exactly as
 * upstream's doctor prints them.
 */
public enum OutputFormat {
  HUMAN,
  JSON,
  TABLE;

  private static final String RESET = "\u001b[0m";
  private static final String BOLD = "\u001b[1m";

  /** The format named {@code name}, or an error naming the valid ones. */
  public static OutputFormat parse(final String name) {
    for (final OutputFormat f : values()) {
      if (f.name().toLowerCase(Locale.ROOT).equals(name)) {
        return f;
      }
    }
    throw new IllegalArgumentException(
        "invalid output format \"" + name + "\" (want one of: human, json, table)");
  }

  /**
   * {@code report} rendered; {@code color} applies to {@link #HUMAN} only (the caller decides: a
   * terminal and no {@code --no-color}).
   */
  public String render(final Report report, final boolean color) {
    return switch (this) {
      case HUMAN -> human(report, color);
      case TABLE -> table(report);
      case JSON -> json(report);
    };
  }

  private static String colorOf(final Status s) {
    return switch (s) {
      case FAIL -> "\u001b[31m";
      case WARN -> "\u001b[33m";
      case INFO -> "\u001b[36m";
      case OK -> "\u001b[32m";
    };
  }

  private static String human(final Report report, final boolean color) {
    final StringBuilder b = new StringBuilder();
    b.append(color ? BOLD + "inferencecache doctor" + RESET : "inferencecache doctor")
        .append("\n\n");
    final Status[] order = {Status.FAIL, Status.WARN, Status.INFO, Status.OK};
    for (final Status s : order) {
      final List<Finding> section = new ArrayList<>();
      for (final Finding f : report.findings()) {
        if (f.status() == s) {
          section.add(f);
        }
      }
      if (section.isEmpty()) {
        continue;
      }
      b.append(color ? BOLD + colorOf(s) + s.name() + RESET : s.name()).append('\n');
      for (final Finding f : section) {
        final String tag = String.format(Locale.ROOT, "%-4s %s", s.name(), f.code().name());
        b.append("  ").append(color ? colorOf(s) + tag + RESET : tag);
        if (!f.resource().isEmpty()) {
          b.append("  ").append(f.resource());
        }
        b.append('\n').append("      ").append(f.message()).append('\n');
      }
      b.append('\n');
    }
    final String summary =
        String.format(
            Locale.ROOT,
            "Summary: %d OK, %d INFO, %d WARN, %d FAIL  (exit %d)",
            report.count(Status.OK),
            report.count(Status.INFO),
            report.count(Status.WARN),
            report.count(Status.FAIL),
            report.exitCode());
    b.append(color ? BOLD + summary + RESET : summary).append('\n');
    return b.toString();
  }

  /** Columns padded to their widest cell plus two spaces, the last column (message) as it is. */
  private static String table(final Report report) {
    final List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"STATUS", "CODE", "CHECK", "RESOURCE", "MESSAGE"});
    for (final Finding f : report.findings()) {
      rows.add(
          new String[] {
            f.status().name(),
            f.code().name(),
            f.check(),
            f.resource().isEmpty() ? "-" : f.resource(),
            f.message().trim().replaceAll("\\s+", " ")
          });
    }
    final int[] width = new int[4];
    for (final String[] r : rows) {
      for (int c = 0; c < 4; c++) {
        width[c] = Math.max(width[c], r[c].length());
      }
    }
    final StringBuilder b = new StringBuilder();
    for (final String[] r : rows) {
      for (int c = 0; c < 4; c++) {
        b.append(r[c]).append(" ".repeat(width[c] - r[c].length() + 2));
      }
      b.append(r[4]).append('\n');
    }
    return b.toString();
  }

  /** Go's {@code json.MarshalIndent(v, "", " ")} followed by a newline. */
  private static String json(final Report report) {
    final ObjectMapper mapper = new ObjectMapper();
    final StringWriter out = new StringWriter();
    try (JsonGenerator g = mapper.getFactory().createGenerator(out)) {
      g.setCharacterEscapes(GoEscapes.INSTANCE);
      final DefaultIndenter indent = new DefaultIndenter("  ", "\n");
      g.setPrettyPrinter(
          new DefaultPrettyPrinter()
              .withSeparators(
                  Separators.createDefaultInstance()
                      .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
                      .withObjectEmptySeparator("")
                      .withArrayEmptySeparator(""))
              .withObjectIndenter(indent)
              .withArrayIndenter(indent));
      g.writeStartObject();
      g.writeObjectFieldStart("summary");
      g.writeNumberField("ok", report.count(Status.OK));
      g.writeNumberField("info", report.count(Status.INFO));
      g.writeNumberField("warn", report.count(Status.WARN));
      g.writeNumberField("fail", report.count(Status.FAIL));
      g.writeNumberField("exitCode", report.exitCode());
      g.writeEndObject();
      g.writeArrayFieldStart("findings");
      for (final Finding f : report.findings()) {
        g.writeStartObject();
        g.writeStringField("code", f.code().name());
        g.writeStringField("status", f.status().name());
        g.writeStringField("check", f.check());
        if (!f.resource().isEmpty()) {
          g.writeStringField("resource", f.resource());
        }
        g.writeStringField("message", f.message());
        g.writeEndObject();
      }
      g.writeEndArray();
      g.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out + "\n";
  }

  /**
   * Go's encoding/json string escapes: {@code <}, {@code >}, {@code &}, U+2028 and U+2029 as a
   * six-character unicode escape with lower-case hex, other control characters likewise unless they
   * have a short form.
   */
  private static final class GoEscapes extends CharacterEscapes {
    static final GoEscapes INSTANCE = new GoEscapes();
    private static final long serialVersionUID = 1L;
    private final int[] table = standardAsciiEscapesForJSON();

    private GoEscapes() {
      for (int c = 0; c < 0x20; c++) {
        if (c != '\n' && c != '\r' && c != '\t' && c != '\b' && c != '\f') {
          table[c] = ESCAPE_CUSTOM;
        }
      }
      table['<'] = ESCAPE_CUSTOM;
      table['>'] = ESCAPE_CUSTOM;
      table['&'] = ESCAPE_CUSTOM;
    }

    @Override
    public int[] getEscapeCodesForAscii() {
      return table;
    }

    @Override
    public SerializableString getEscapeSequence(final int ch) {
      if (ch < 0x80 && table[ch] != ESCAPE_CUSTOM && ch != 0x2028 && ch != 0x2029) {
        return null;
      }
      if (ch >= 0x80 && ch != 0x2028 && ch != 0x2029) {
        return null;
      }
      return new SerializedString(String.format(Locale.ROOT, "\\u%04x", ch));
    }
  }
}
