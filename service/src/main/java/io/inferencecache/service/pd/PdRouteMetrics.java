package io.inferencecache.service.pd;

/** Where the LookupPDRoute handler reports each call (one record per call). */
public interface PdRouteMetrics {
  /**
   * Records one LookupPDRoute outcome.
   *
   * @param reasonCode the response's reason code
   * @param latencyNanos handler time (0 for a shed call)
   */
  void record(String reasonCode, long latencyNanos);

  /** Counts a fault caught by the fail-open guard (answered NO_HINT). */
  default void internalError() {}

  PdRouteMetrics NOOP = (reasonCode, latencyNanos) -> {};
}
