package io.inferencecache.controlplane.metrics;

import java.util.ArrayList;
import java.util.List;

/**
 * How a labelled series is named in the Dropwizard {@code MetricRegistry}: the Prometheus series
 * itself, {@code base{label="value",...}}, label values escaped as in the Prometheus text format
 * ({@code \\}, {@code \"}, {@code \n}). The encoding is total and reversible for any label value
 * (model names carry dots, slashes and anything else), so no Dropwizard-name glob mapping on dots
 * is involved; {@link InferenceCacheCollector} decodes it back into name and labels. Stateless.
 */
public final class MetricNames {
  private MetricNames() {}

  /** A decoded registry name. */
  public record Decoded(String base, List<String> labelNames, List<String> labelValues) {}

  /** {@code base{n0="v0",n1="v1"}}, or {@code base} without labels. */
  public static String encode(final String base, final String[] names, final String... values) {
    if (names.length != values.length) {
      throw new IllegalArgumentException("label names and values differ in count");
    }
    if (names.length == 0) {
      return base;
    }
    final StringBuilder sb = new StringBuilder(base.length() + 32).append(base).append('{');
    for (int i = 0; i < names.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(names[i]).append("=\"");
      final String v = values[i];
      for (int j = 0; j < v.length(); j++) {
        final char c = v.charAt(j);
        switch (c) {
          case '\\' -> sb.append("\\\\");
          case '"' -> sb.append("\\\"");
          case '\n' -> sb.append("\\n");
          default -> sb.append(c);
        }
      }
      sb.append('"');
    }
    return sb.append('}').toString();
  }

  /**
   * Decodes a name written by {@link #encode}; a name without {@code {} has no labels.
   *
   * @throws IllegalArgumentException for a malformed name
   */
  public static Decoded decode(final String name) {
    final int brace = name.indexOf('{');
    if (brace < 0) {
      return new Decoded(name, List.of(), List.of());
    }
    if (!name.endsWith("}")) {
      throw new IllegalArgumentException("malformed metric name: " + name);
    }
    final List<String> names = new ArrayList<>(3);
    final List<String> values = new ArrayList<>(3);
    int i = brace + 1;
    final int end = name.length() - 1;
    while (i < end) {
      final int eq = name.indexOf("=\"", i);
      if (eq < 0) {
        throw new IllegalArgumentException("malformed metric name: " + name);
      }
      names.add(name.substring(i, eq));
      final StringBuilder v = new StringBuilder();
      int j = eq + 2;
      for (; j < end; j++) {
        final char c = name.charAt(j);
        if (c == '\\' && j + 1 < end) {
          final char n = name.charAt(++j);
          v.append(n == 'n' ? '\n' : n);
        } else if (c == '"') {
          break;
        } else {
          v.append(c);
        }
      }
      if (j >= end) {
        throw new IllegalArgumentException("malformed metric name: " + name);
      }
      values.add(v.toString());
      i = j + 1;
      if (i < end && name.charAt(i) == ',') {
        i++;
      }
    }
    return new Decoded(name.substring(0, brace), List.copyOf(names), List.copyOf(values));
  }
}
