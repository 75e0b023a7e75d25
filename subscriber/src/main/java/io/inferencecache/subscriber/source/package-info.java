/**
 * Stage 1, in: the engine's ZMQ KV-event stream ({@link
 * io.inferencecache.subscriber.source.ZmqEventSource}: SUB socket, reconnect backoff, sequence gap
 * and restart detection by {@link io.inferencecache.subscriber.source.SequenceTracker}) and the
 * engine's Prometheus endpoint ({@link io.inferencecache.subscriber.source.StatsScraper}: fetch
 * through a {@link io.inferencecache.subscriber.source.MetricsFetcher}, parse, and derive one stats
 * sample with the engine's {@link io.inferencecache.subscriber.source.MetricsProfile}).
 */
package io.inferencecache.subscriber.source;
