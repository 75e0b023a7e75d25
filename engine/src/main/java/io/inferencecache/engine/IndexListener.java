package io.inferencecache.engine;

/**
 * Receives what the index does: the numbers it produces for metrics and, on request, every change
 * to its content. Called on the writer thread, serialized, while or right after the change is
 * applied; implementations must be quick, must not block and must not call back into the index. The
 * engine knows nothing of any metrics library or transport.
 *
 * <h2>Change hooks</h2>
 *
 * The hooks {@link #onPrefixStored}, {@link #onPrefixRemoved}, {@link #onReplicaUpdated} and {@link
 * #onAllCleared} report every change of the index's content, whatever caused it (an ingest, an
 * event, the TTL sweep, the global cap, a tenant quota), the reserved probe tenant included. Before
 * each change the index asks {@link #wantsChanges()}; when it answers false the index materialises
 * no name and copies no hash, so a listener with nobody to tell costs one call per change. Names
 * are the dictionary's own strings; {@code hash} arrays are fresh copies the listener may keep but
 * must not modify (a composite listener hands the same array to each delegate). Timestamps are
 * epoch nanoseconds of the index clock.
 */
public interface IndexListener {
  /** {@link #onPrefixRemoved} reason: a {@code PREFIX_EVICTED} event. */
  String REMOVED_BY_EVENT = "event";

  /** {@link #onPrefixRemoved} reason: the TTL sweep. */
  String REMOVED_BY_TTL = "ttl";

  /** {@link #onPrefixRemoved} reason: the global cap (or making room in a full map). */
  String REMOVED_BY_CAP = "cap";

  /** {@link #onPrefixRemoved} reason: the tenant's entry quota. */
  String REMOVED_BY_QUOTA = "quota";

  /** Distinct prefix keys of {@code model} (reserved tenant excluded); 0 once a model drains. */
  default void onIndexEntries(String model, long distinctKeys) {}

  /** Storage entries evicted by the global cap ({@code reason="cap"}) or TTL ({@code "ttl"}). */
  default void onEvictions(String algorithm, String reason, long count) {}

  /** Whole prefix keys evicted by a tenant's entry quota ({@code reason="over_entries"}). */
  default void onTenantEvictions(String tenant, String reason, long count) {}

  /**
   * Whether the change hooks should be called for the change about to happen. Asked before every
   * change, so the answer may vary (e.g. true only while someone subscribes). Default false.
   */
  default boolean wantsChanges() {
    return false;
  }

  /**
   * A storage entry (one prefix key × one replica) was created or refreshed by an ingest.
   *
   * @param tokenCount the entry's token count as stored
   * @param timestampNanos the entry's new last-seen time
   */
  default void onPrefixStored(
      String tenant,
      String model,
      String replica,
      String scheme,
      String adapter,
      byte[] hash,
      int tokenCount,
      long timestampNanos) {}

  /**
   * A storage entry was removed: by a {@code PREFIX_EVICTED} event ({@link #REMOVED_BY_EVENT}), the
   * TTL sweep ({@link #REMOVED_BY_TTL}), the global cap ({@link #REMOVED_BY_CAP}) or a tenant quota
   * ({@link #REMOVED_BY_QUOTA}, once per holder of each dropped key). Removals by {@code
   * ALL_CLEARED} are reported as one {@link #onAllCleared} instead.
   *
   * @param timestampNanos the event's time for {@link #REMOVED_BY_EVENT}, else the time of the pass
   */
  default void onPrefixRemoved(
      String tenant,
      String model,
      String replica,
      String scheme,
      String adapter,
      byte[] hash,
      String reason,
      long timestampNanos) {}

  /**
   * The stats row of {@code replica} under (tenant, model) was stored by an ingest carrying stats,
   * or its liveness refreshed by a {@code REPLICA_UPDATED} event.
   */
  default void onReplicaUpdated(String tenant, String model, String replica, long timestampNanos) {}

  /**
   * An {@code ALL_CLEARED} event removed {@code replica} from every key of (tenant, model), across
   * schemes and adapters, and deleted its stats row. Reported once the removal is complete, for any
   * replica and (tenant, model) the index had seen, even when nothing was left to remove.
   */
  default void onAllCleared(String tenant, String model, String replica, long timestampNanos) {}

  /** A listener that ignores everything. */
  IndexListener NOOP = new IndexListener() {};
}
