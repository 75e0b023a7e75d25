package io.inferencecache.engine;

/**
 * Receives the numbers the index produces for metrics. Called on the writer thread, serialized,
 * after the change is visible; implementations must be quick and must not call back into the
 * index's write methods. The engine knows nothing of any metrics library.
 */
public interface IndexListener {
  /** Distinct prefix keys of {@code model} (reserved tenant excluded); 0 once a model drains. */
  default void onIndexEntries(String model, long distinctKeys) {}

  /** Storage entries evicted by the global cap ({@code reason="cap"}) or TTL ({@code "ttl"}). */
  default void onEvictions(String algorithm, String reason, long count) {}

  /** Whole prefix keys evicted by a tenant's entry quota ({@code reason="over_entries"}). */
  default void onTenantEvictions(String tenant, String reason, long count) {}

  /** A listener that ignores everything. */
  IndexListener NOOP = new IndexListener() {};
}
