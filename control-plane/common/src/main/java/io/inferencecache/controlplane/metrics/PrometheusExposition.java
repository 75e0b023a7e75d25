package io.inferencecache.controlplane.metrics;

import com.codahale.metrics.MetricRegistry;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.dropwizard.DropwizardExports;
import io.prometheus.client.exporter.common.TextFormat;
import io.prometheus.client.hotspot.DefaultExports;
import java.io.IOException;
import java.io.Writer;
import java.util.List;

/**
 * What {@code /metrics} serves: one simpleclient {@link CollectorRegistry} (per application, not
 * the global default) holding {@link InferenceCacheCollector} for the server's own {@code
 * inferencecache_*} series, the standard Dropwizard bridge ({@link DropwizardExports}, names in
 * snake_case by {@link SnakeCaseSampleBuilder}) for every other Dropwizard metric (Jetty, health
 * checks, logback, …) and the standard JVM/process collectors ({@code jvm_*}, {@code process_*}).
 * {@link #ownSeries()} is what StreamMetrics streams ({@link PrometheusMetricSource}): the very
 * samples the text format is written from.
 */
public final class PrometheusExposition {
  /** The text format 0.0.4 content type. */
  public static final String CONTENT_TYPE = TextFormat.CONTENT_TYPE_004;

  private final CollectorRegistry prometheus = new CollectorRegistry();
  private final InferenceCacheCollector own;

  public PrometheusExposition(final MetricRegistry registry) {
    own = new InferenceCacheCollector(registry);
    prometheus.register(own);
    prometheus.register(
        new DropwizardExports(
            registry,
            (name, metric) -> !InferenceCacheCollector.owns(name),
            new SnakeCaseSampleBuilder()));
    DefaultExports.register(prometheus);
  }

  /** Writes every series in the text format 0.0.4. */
  public void write(final Writer out) throws IOException {
    TextFormat.write004(out, prometheus.metricFamilySamples());
  }

  /** The {@code inferencecache_*} families as {@link #write} exports them, collected now. */
  public List<Collector.MetricFamilySamples> ownSeries() {
    return own.collect();
  }
}
