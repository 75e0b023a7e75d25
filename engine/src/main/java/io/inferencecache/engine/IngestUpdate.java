package io.inferencecache.engine;

import java.util.List;

/**
 * A {@code CacheStateUpdate}: an additive delta from one replica. {@code timestampMicros == 0}
 * means "now"; other values are taken literally. An empty {@code hashScheme} indexes no prefix
 * (stats are still stored). {@code stats} may be null.
 */
public record IngestUpdate(
    String replicaId,
    String modelId,
    String tenantId,
    String hashScheme,
    long timestampMicros,
    String adapterId,
    List<IngestPrefix> prefixes,
    IngestStats stats) {

  public IngestUpdate {
    replicaId = replicaId == null ? "" : replicaId;
    modelId = modelId == null ? "" : modelId;
    tenantId = tenantId == null ? "" : tenantId;
    hashScheme = hashScheme == null ? "" : hashScheme;
    adapterId = adapterId == null ? "" : adapterId;
    prefixes = prefixes == null ? List.of() : prefixes;
  }
}
