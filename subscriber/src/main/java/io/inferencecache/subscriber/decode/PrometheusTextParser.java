package io.inferencecache.subscriber.decode;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.regex.Pattern;

/**
 * A strict parser for the Prometheus text exposition format 0.0.4 — the subset an engine's {@code
 * /metrics} uses. (The Prometheus Java client on Maven Central ships writers only, no parser.)
 *
 * <pre>
 * line    = blank | comment | help | type | sample
 * help    = "#" ws "HELP" ws name [ws docstring]        docstring escapes: \\ \n
 * type    = "#" ws "TYPE" ws name ws ("counter" | "gauge" | "histogram" | "summary" | "untyped"
 *                                      | "unknown")
 * comment = "#" anything else                            (ignored; "# EOF" included)
 * sample  = name [ws] ["{" [label {"," label} [","]] "}"] ws value [ws timestamp] [ws]
 * label   = [ws] lname [ws] "=" [ws] '"' escaped '"' [ws]   escapes: \\ \" \n
 * name    = [a-zA-Z_:][a-zA-Z0-9_:]*        lname = [a-zA-Z_][a-zA-Z0-9_]*
 * value   = decimal float | NaN | [+-]Inf | [+-]Infinity  (case-insensitive specials)
 * timestamp = [+-]digits (int64 milliseconds)
 * </pre>
 *
 * <p>Lines end with LF (a CR before it is tolerated); {@code ws} is spaces and tabs. A sample
 * belongs to the family declared under its own name; else {@code _bucket/_sum/_count} samples to a
 * declared histogram, {@code _sum/_count} to a declared summary and {@code _total/_created} to a
 * declared counter (the OpenMetrics spelling); else to an untyped family of its own name. Errors:
 * any syntax outside the grammar, an invalid escape, a duplicate label, a second HELP or TYPE for
 * one family, and a TYPE after that family's samples. Families without samples are dropped.
 *
 * <p>Stateless and thread-safe.
 */
public final class PrometheusTextParser {
  private static final Pattern DECIMAL =
      Pattern.compile("[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?");
  private static final Pattern INTEGER = Pattern.compile("[+-]?[0-9]+");

  private PrometheusTextParser() {}

  /** A metric family's type. */
  public enum Type {
    /** Monotonic counter. */
    COUNTER,
    /** Gauge. */
    GAUGE,
    /** Histogram ({@code _bucket}, {@code _sum}, {@code _count}). */
    HISTOGRAM,
    /** Summary (quantiles, {@code _sum}, {@code _count}). */
    SUMMARY,
    /** No or {@code untyped}/{@code unknown} TYPE line. */
    UNTYPED
  }

  /**
   * One sample line.
   *
   * @param name the sample's own metric name (e.g. {@code foo_bucket} inside family {@code foo})
   * @param labels label name → value, unmodifiable, in line order
   * @param value the value (may be NaN or infinite)
   * @param timestampMillis the optional timestamp
   */
  public record Sample(
      String name, Map<String, String> labels, double value, OptionalLong timestampMillis) {
    /** The value of label {@code label}, or {@code null}. */
    public String label(final String label) {
      return labels.get(label);
    }
  }

  /**
   * One metric family.
   *
   * @param name the family name
   * @param type its declared type ({@link Type#UNTYPED} when none)
   * @param help the HELP docstring, or {@code null}
   * @param samples its samples in input order, unmodifiable, never empty
   */
  public record Family(String name, Type type, String help, List<Sample> samples) {}

  private static final class FamilyBuilder {
    final String name;
    Type type;
    String help;
    final List<Sample> samples = new ArrayList<>();

    FamilyBuilder(final String name) {
      this.name = name;
    }
  }

  /**
   * Parses an exposition.
   *
   * @return family name → family, in first-seen order, unmodifiable
   * @throws ScrapeException naming the line and the problem
   */
  public static Map<String, Family> parse(final String text) throws ScrapeException {
    final Map<String, FamilyBuilder> families = new LinkedHashMap<>();
    int lineNo = 0;
    int start = 0;
    final int length = text.length();
    while (start < length) {
      int end = text.indexOf('\n', start);
      if (end < 0) {
        end = length;
      }
      lineNo++;
      int lineEnd = end;
      if (lineEnd > start && text.charAt(lineEnd - 1) == '\r') {
        lineEnd--;
      }
      try {
        new Line(text, start, lineEnd).parseInto(families);
      } catch (final LineException e) {
        throw new ScrapeException("metrics line " + lineNo + ": " + e.getMessage());
      }
      start = end + 1;
    }
    final Map<String, Family> out = new LinkedHashMap<>();
    for (final FamilyBuilder b : families.values()) {
      if (!b.samples.isEmpty()) {
        out.put(
            b.name,
            new Family(
                b.name,
                b.type == null ? Type.UNTYPED : b.type,
                b.help,
                Collections.unmodifiableList(b.samples)));
      }
    }
    return Collections.unmodifiableMap(out);
  }

  /** A syntax error within one line. */
  private static final class LineException extends Exception {
    private static final long serialVersionUID = 1L;

    LineException(final String message) {
      super(message);
    }
  }

  private static final class Line {
    private final String s;
    private final int end;
    private int pos;

    Line(final String s, final int start, final int end) {
      this.s = s;
      this.pos = start;
      this.end = end;
    }

    private boolean atEnd() {
      return pos >= end;
    }

    private char peek() {
      return s.charAt(pos);
    }

    private boolean skipBlanks() {
      final int from = pos;
      while (pos < end && (s.charAt(pos) == ' ' || s.charAt(pos) == '\t')) {
        pos++;
      }
      return pos > from;
    }

    private String token() {
      final int from = pos;
      while (pos < end && s.charAt(pos) != ' ' && s.charAt(pos) != '\t') {
        pos++;
      }
      return s.substring(from, pos);
    }

    void parseInto(final Map<String, FamilyBuilder> families) throws LineException {
      skipBlanks();
      if (atEnd()) {
        return;
      }
      if (peek() == '#') {
        pos++;
        comment(families);
      } else {
        sample(families);
      }
    }

    private void comment(final Map<String, FamilyBuilder> families) throws LineException {
      skipBlanks();
      final String keyword = token();
      if (!keyword.equals("HELP") && !keyword.equals("TYPE")) {
        return;
      }
      if (!skipBlanks() || atEnd()) {
        return; // "# HELP" alone is just a comment
      }
      final String name = metricName();
      if (!atEnd() && !skipBlanks()) {
        throw new LineException("invalid metric name in " + keyword + " line");
      }
      final FamilyBuilder family = families.computeIfAbsent(name, FamilyBuilder::new);
      if (keyword.equals("HELP")) {
        if (family.help != null) {
          throw new LineException("second HELP line for metric name \"" + name + "\"");
        }
        family.help = docstring();
        return;
      }
      if (family.type != null) {
        throw new LineException("second TYPE line for metric name \"" + name + "\"");
      }
      if (!family.samples.isEmpty()) {
        throw new LineException("TYPE line for \"" + name + "\" after its samples");
      }
      final String type = token();
      skipBlanks();
      if (!atEnd()) {
        throw new LineException("unexpected text after TYPE " + name + " " + type);
      }
      family.type = type(type);
    }

    private static Type type(final String type) throws LineException {
      switch (type) {
        case "counter":
          return Type.COUNTER;
        case "gauge":
          return Type.GAUGE;
        case "histogram":
          return Type.HISTOGRAM;
        case "summary":
          return Type.SUMMARY;
        case "untyped":
        case "unknown":
          return Type.UNTYPED;
        default:
          throw new LineException("unknown metric type \"" + type + "\"");
      }
    }

    private String docstring() throws LineException {
      final StringBuilder out = new StringBuilder();
      while (!atEnd()) {
        final char c = s.charAt(pos++);
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (atEnd()) {
          throw new LineException("unterminated escape sequence in HELP");
        }
        final char e = s.charAt(pos++);
        if (e == '\\') {
          out.append('\\');
        } else if (e == 'n') {
          out.append('\n');
        } else {
          throw new LineException("invalid escape sequence \"\\" + e + "\" in HELP");
        }
      }
      return out.toString();
    }

    private String metricName() throws LineException {
      final int from = pos;
      if (atEnd() || !isNameStart(peek(), true)) {
        throw new LineException("invalid metric name");
      }
      pos++;
      while (!atEnd() && isNamePart(peek(), true)) {
        pos++;
      }
      return s.substring(from, pos);
    }

    private String labelName() throws LineException {
      final int from = pos;
      if (atEnd() || !isNameStart(peek(), false)) {
        throw new LineException("invalid label name");
      }
      pos++;
      while (!atEnd() && isNamePart(peek(), false)) {
        pos++;
      }
      return s.substring(from, pos);
    }

    private static boolean isNameStart(final char c, final boolean colon) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
    }

    private static boolean isNamePart(final char c, final boolean colon) {
      return isNameStart(c, colon) || (c >= '0' && c <= '9');
    }

    private void sample(final Map<String, FamilyBuilder> families) throws LineException {
      final String name = metricName();
      boolean blank = skipBlanks();
      Map<String, String> labels = Map.of();
      if (!atEnd() && peek() == '{') {
        pos++;
        labels = labels();
        skipBlanks();
        blank = true; // whitespace between '}' and the value is optional
      }
      if (atEnd()) {
        throw new LineException("missing value for \"" + name + "\"");
      }
      if (!blank) {
        throw new LineException("invalid metric name \"" + name + token() + "\"");
      }
      final String valueToken = token();
      final double value = value(valueToken);
      skipBlanks();
      OptionalLong timestamp = OptionalLong.empty();
      if (!atEnd()) {
        timestamp = OptionalLong.of(timestamp(token()));
        skipBlanks();
        if (!atEnd()) {
          throw new LineException("unexpected text after the timestamp of \"" + name + "\"");
        }
      }
      familyFor(families, name).samples.add(new Sample(name, labels, value, timestamp));
    }

    private Map<String, String> labels() throws LineException {
      final Map<String, String> labels = new LinkedHashMap<>();
      while (true) {
        skipBlanks();
        if (atEnd()) {
          throw new LineException("unterminated label set");
        }
        if (peek() == '}') {
          pos++;
          return Collections.unmodifiableMap(labels);
        }
        final String label = labelName();
        skipBlanks();
        if (atEnd() || peek() != '=') {
          throw new LineException("expected '=' after label name \"" + label + "\"");
        }
        pos++;
        skipBlanks();
        if (atEnd() || peek() != '"') {
          throw new LineException("expected '\"' to open the value of label \"" + label + "\"");
        }
        pos++;
        final String value = labelValue(label);
        if (labels.put(label, value) != null) {
          throw new LineException("duplicate label \"" + label + "\"");
        }
        skipBlanks();
        if (atEnd()) {
          throw new LineException("unterminated label set");
        }
        final char c = s.charAt(pos++);
        if (c == '}') {
          return Collections.unmodifiableMap(labels);
        }
        if (c != ',') {
          throw new LineException("expected ',' or '}' after label \"" + label + "\"");
        }
      }
    }

    private String labelValue(final String label) throws LineException {
      final StringBuilder out = new StringBuilder();
      while (true) {
        if (atEnd()) {
          throw new LineException("unterminated value of label \"" + label + "\"");
        }
        final char c = s.charAt(pos++);
        if (c == '"') {
          return out.toString();
        }
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (atEnd()) {
          throw new LineException("unterminated value of label \"" + label + "\"");
        }
        final char e = s.charAt(pos++);
        if (e == '\\' || e == '"') {
          out.append(e);
        } else if (e == 'n') {
          out.append('\n');
        } else {
          throw new LineException(
              "invalid escape sequence \"\\" + e + "\" in label \"" + label + "\"");
        }
      }
    }

    private static double value(final String token) throws LineException {
      if (DECIMAL.matcher(token).matches()) {
        return Double.parseDouble(token);
      }
      String t = token.toLowerCase(Locale.ROOT);
      if (t.equals("nan")) {
        return Double.NaN;
      }
      boolean negative = false;
      if (t.startsWith("+") || t.startsWith("-")) {
        negative = t.charAt(0) == '-';
        t = t.substring(1);
      }
      if (t.equals("inf") || t.equals("infinity")) {
        return negative ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
      }
      throw new LineException("invalid value \"" + token + "\"");
    }

    private static long timestamp(final String token) throws LineException {
      if (INTEGER.matcher(token).matches()) {
        try {
          return Long.parseLong(token);
        } catch (final NumberFormatException e) {
          // out of range: reported below
        }
      }
      throw new LineException("invalid timestamp \"" + token + "\"");
    }

    private static FamilyBuilder familyFor(
        final Map<String, FamilyBuilder> families, final String name) {
      final FamilyBuilder own = families.get(name);
      if (own != null) {
        return own;
      }
      final FamilyBuilder histogram = base(families, name, "_bucket", Type.HISTOGRAM);
      if (histogram != null) {
        return histogram;
      }
      for (final String suffix : new String[] {"_sum", "_count"}) {
        final FamilyBuilder h = base(families, name, suffix, Type.HISTOGRAM);
        if (h != null) {
          return h;
        }
        final FamilyBuilder summary = base(families, name, suffix, Type.SUMMARY);
        if (summary != null) {
          return summary;
        }
      }
      for (final String suffix : new String[] {"_total", "_created"}) {
        final FamilyBuilder counter = base(families, name, suffix, Type.COUNTER);
        if (counter != null) {
          return counter;
        }
      }
      return families.computeIfAbsent(name, FamilyBuilder::new);
    }

    private static FamilyBuilder base(
        final Map<String, FamilyBuilder> families,
        final String name,
        final String suffix,
        final Type type) {
      if (!name.endsWith(suffix)) {
        return null;
      }
      final FamilyBuilder b = families.get(name.substring(0, name.length() - suffix.length()));
      return b != null && b.type == type ? b : null;
    }
  }
}
