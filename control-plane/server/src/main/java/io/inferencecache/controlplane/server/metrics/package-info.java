/**
 * The server's metrics: Dropwizard metric objects named with {@link
 * io.inferencecache.controlplane.metrics.MetricNames}, exported to Prometheus by {@link
 * io.inferencecache.controlplane.metrics.InferenceCacheCollector} (own series) and the standard
 * Dropwizard bridge (everything else).
 */
package io.inferencecache.controlplane.server.metrics;
