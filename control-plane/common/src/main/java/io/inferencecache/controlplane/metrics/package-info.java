/**
 * The metric catalogue ({@link io.inferencecache.controlplane.metrics.MetricFamily}, used by the
 * server and the operator alike) and its Prometheus exposition: registry names that carry labels,
 * the collector for our own series, the bridge for Dropwizard's.
 */
package io.inferencecache.controlplane.metrics;
