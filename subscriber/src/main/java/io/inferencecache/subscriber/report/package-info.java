/**
 * Stage 4, batching: the windowed event-path reporter ({@link
 * io.inferencecache.subscriber.report.Reporter}: adds batched per window, removals and clears in
 * order, L2 downgrades) and the stats path on its own cadence ({@link
 * io.inferencecache.subscriber.report.StatsReporter}); both hand {@link
 * io.inferencecache.subscriber.sink.SubscriberUpdate}s to a sink.
 */
package io.inferencecache.subscriber.report;
