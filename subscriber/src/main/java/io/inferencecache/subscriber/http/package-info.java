/**
 * The sidecar's own HTTP endpoint ({@code --http-address}): {@code /metrics} (its counters in
 * Prometheus text format, {@link io.inferencecache.subscriber.http.SubscriberMetrics}), {@code
 * /healthz} and {@code /readyz} ({@link io.inferencecache.subscriber.http.SubscriberHttpServer}).
 */
package io.inferencecache.subscriber.http;
