package io.inferencecache.controlplane.support;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * A strict parser of the Prometheus text format 0.0.4, enough to assert on a scrape: {@code # HELP}
 * and {@code # TYPE} lines, and samples {@code name{labels} value [timestamp]} with escaped label
 * values. Any malformed line fails the parse.
 */
public final class PromText {
  /** One sample. */
  public record Sample(String name, Map<String, String> labels, double value) {}

  public final Map<String, String> types = new LinkedHashMap<>();
  public final List<Sample> samples = new ArrayList<>();

  public static PromText parse(final String text) {
    final PromText out = new PromText();
    if (!text.isEmpty() && !text.endsWith("\n")) {
      throw new IllegalArgumentException("exposition must end with a newline");
    }
    for (final String line : text.split("\n")) {
      if (line.isEmpty()) {
        continue;
      }
      if (line.startsWith("# TYPE ")) {
        final String[] p = line.substring(7).split(" ");
        if (p.length != 2 || !validName(p[0])) {
          throw new IllegalArgumentException("bad TYPE line: " + line);
        }
        if (!List.of("counter", "gauge", "histogram", "summary", "untyped").contains(p[1])) {
          throw new IllegalArgumentException("bad type: " + line);
        }
        if (out.types.put(p[0], p[1]) != null) {
          throw new IllegalArgumentException("duplicate TYPE: " + line);
        }
        continue;
      }
      if (line.startsWith("#")) {
        continue;
      }
      out.samples.add(sample(line));
    }
    return out;
  }

  private static boolean validName(final String n) {
    return n.matches("[a-zA-Z_:][a-zA-Z0-9_:]*");
  }

  private static Sample sample(final String line) {
    int i = 0;
    while (i < line.length() && line.charAt(i) != '{' && line.charAt(i) != ' ') {
      i++;
    }
    final String name = line.substring(0, i);
    if (!validName(name)) {
      throw new IllegalArgumentException("bad metric name: " + line);
    }
    final Map<String, String> labels = new TreeMap<>();
    if (i < line.length() && line.charAt(i) == '{') {
      i++;
      while (line.charAt(i) != '}') {
        final int eq = line.indexOf('=', i);
        final String label = line.substring(i, eq);
        if (!label.matches("[a-zA-Z_][a-zA-Z0-9_]*") || line.charAt(eq + 1) != '"') {
          throw new IllegalArgumentException("bad label: " + line);
        }
        final StringBuilder v = new StringBuilder();
        int j = eq + 2;
        for (; line.charAt(j) != '"'; j++) {
          char c = line.charAt(j);
          if (c == '\\') {
            c = line.charAt(++j);
            v.append(c == 'n' ? '\n' : c);
          } else {
            v.append(c);
          }
        }
        if (labels.put(label, v.toString()) != null) {
          throw new IllegalArgumentException("duplicate label: " + line);
        }
        i = j + 1;
        if (line.charAt(i) == ',') {
          i++;
        } else if (line.charAt(i) != '}') {
          throw new IllegalArgumentException("bad label separator: " + line);
        }
      }
      i++;
    }
    if (line.charAt(i) != ' ') {
      throw new IllegalArgumentException("missing value: " + line);
    }
    final String[] rest = line.substring(i + 1).split(" ");
    if (rest.length < 1 || rest.length > 2) {
      throw new IllegalArgumentException("bad value: " + line);
    }
    final double value =
        switch (rest[0]) {
          case "+Inf" -> Double.POSITIVE_INFINITY;
          case "-Inf" -> Double.NEGATIVE_INFINITY;
          case "NaN" -> Double.NaN;
          default -> Double.parseDouble(rest[0]);
        };
    return new Sample(name, labels, value);
  }

  /** The value of the one sample with this name and exactly these labels, or null. */
  public Double value(final String name, final Map<String, String> labels) {
    Double found = null;
    for (final Sample s : samples) {
      if (s.name().equals(name) && s.labels().equals(labels)) {
        if (found != null) {
          throw new IllegalStateException("duplicate series " + name + labels);
        }
        found = s.value();
      }
    }
    return found;
  }

  /** Samples of {@code name}. */
  public List<Sample> named(final String name) {
    return samples.stream().filter(s -> s.name().equals(name)).toList();
  }
}
