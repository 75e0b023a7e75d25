package io.inferencecache.service.lookup;

/** Where the LookupRoute handler reports each call (one record per call). */
public interface LookupMetrics {
  /**
   * Records one LookupRoute outcome.
   *
   * @param model the request's model_id
   * @param reasonCode the response's reason code
   * @param hintUsed whether the response carried at least one replica score
   * @param latencyNanos total handler time (0 for the probe-tenant short-circuit)
   */
  void record(String model, String reasonCode, boolean hintUsed, long latencyNanos);

  /** Counts a fault caught by the fail-open guard (answered as NO_HINT). */
  default void internalError() {}

  LookupMetrics NOOP = (model, reasonCode, hintUsed, latencyNanos) -> {};
}
