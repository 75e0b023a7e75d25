package io.inferencecache.engine;

/**
 * A {@code CacheEvent} applied to the index. {@code timestampMicros == 0} means now. {@code
 * adapterId} narrows {@link Type#PREFIX_EVICTED} only (empty = every adapter partition).
 */
public record IndexEvent(
    Type type,
    String replicaId,
    String modelId,
    String tenantId,
    byte[] prefixHash,
    long timestampMicros,
    String adapterId) {

  /** Event types; numbers as on the wire. */
  public enum Type {
    UNSPECIFIED,
    PREFIX_ADDED,
    PREFIX_EVICTED,
    REPLICA_UPDATED,
    ALL_CLEARED;

    /** The type for a wire number; unknown numbers are {@link #UNSPECIFIED} (ignored). */
    public static Type fromWire(final int n) {
      return switch (n) {
        case 1 -> PREFIX_ADDED;
        case 2 -> PREFIX_EVICTED;
        case 3 -> REPLICA_UPDATED;
        case 4 -> ALL_CLEARED;
        default -> UNSPECIFIED;
      };
    }
  }

  public IndexEvent {
    replicaId = replicaId == null ? "" : replicaId;
    modelId = modelId == null ? "" : modelId;
    tenantId = tenantId == null ? "" : tenantId;
    prefixHash = prefixHash == null ? new byte[0] : prefixHash;
    adapterId = adapterId == null ? "" : adapterId;
  }
}
