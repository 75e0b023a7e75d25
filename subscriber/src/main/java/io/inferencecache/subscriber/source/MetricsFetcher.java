package io.inferencecache.subscriber.source;

import io.inferencecache.subscriber.decode.ScrapeException;

/** Fetches the engine's Prometheus text exposition. Implementations must be thread-safe. */
@FunctionalInterface
public interface MetricsFetcher {
  /**
   * @return the exposition body
   * @throws ScrapeException when it cannot be fetched (transport error, non-200, too large)
   */
  String fetch() throws ScrapeException;
}
