package io.inferencecache.controlplane.metrics;

import io.prometheus.client.Collector;
import io.prometheus.client.dropwizard.samplebuilder.DefaultSampleBuilder;
import io.prometheus.client.dropwizard.samplebuilder.SampleBuilder;
import java.util.List;

/**
 * The Dropwizard bridge's sample builder: the bridge's own naming ({@link DefaultSampleBuilder}:
 * dots and other invalid characters become {@code _}), then Java's camelCase parts in snake_case,
 * as Prometheus' naming rules and {@code promtool check metrics} ask. {@code
 * io.dropwizard.jetty.MutableServletContextHandler.active-requests} becomes {@code
 * io_dropwizard_jetty_mutable_servlet_context_handler_active_requests}. Stateless.
 */
public final class SnakeCaseSampleBuilder implements SampleBuilder {
  private final DefaultSampleBuilder names = new DefaultSampleBuilder();

  @Override
  public Collector.MetricFamilySamples.Sample createSample(
      final String dropwizardName,
      final String nameSuffix,
      final List<String> additionalLabelNames,
      final List<String> additionalLabelValues,
      final double value) {
    final Collector.MetricFamilySamples.Sample s =
        names.createSample(
            dropwizardName, nameSuffix, additionalLabelNames, additionalLabelValues, value);
    return new Collector.MetricFamilySamples.Sample(
        snakeCase(s.name), s.labelNames, s.labelValues, s.value);
  }

  /**
   * {@code camelCase} and {@code PascalCase} parts of a valid metric name in snake_case: an
   * underscore before an upper-case letter that follows a lower-case letter or digit, or that
   * starts a word after an acronym ({@code HTTPServer} → {@code http_server}); all lower case; runs
   * of underscores collapsed.
   */
  static String snakeCase(final String name) {
    final StringBuilder out = new StringBuilder(name.length() + 8);
    final int n = name.length();
    for (int i = 0; i < n; i++) {
      final char c = name.charAt(i);
      if (Character.isUpperCase(c) && i > 0) {
        final char prev = name.charAt(i - 1);
        final boolean afterLower = Character.isLowerCase(prev) || Character.isDigit(prev);
        final boolean endsAcronym =
            Character.isUpperCase(prev) && i + 1 < n && Character.isLowerCase(name.charAt(i + 1));
        if (afterLower || endsAcronym) {
          appendUnderscore(out);
        }
      }
      if (c == '_') {
        appendUnderscore(out);
      } else {
        out.append(Character.toLowerCase(c));
      }
    }
    return out.toString();
  }

  private static void appendUnderscore(final StringBuilder out) {
    if (out.length() == 0 || out.charAt(out.length() - 1) != '_') {
      out.append('_');
    }
  }
}
