/**
 * The server-streaming feeds behind StreamCacheEvents and StreamMetrics (beyond upstream, which
 * closes both streams at once): {@link io.inferencecache.service.streams.IndexChangeFeed} (its two
 * halves, events and metrics, share one sender thread) turns every index change the engine reports
 * ({@link io.inferencecache.engine.IndexListener}) into {@code CacheEvent}s for each subscriber
 * through a bounded per-subscriber buffer, and samples a {@link
 * io.inferencecache.service.streams.MetricSource} at a fixed cadence for metric subscribers; {@link
 * io.inferencecache.service.streams.IndexMetricSource} is the default source, built from the
 * index's own numbers.
 */
package io.inferencecache.service.streams;
