package io.inferencecache.engine.pd;

import java.util.Objects;

/**
 * One replica of a pool: its {@code replicaId} as the engine reports it ({@code CacheStateUpdate}'s
 * {@code replica_id}, the pod name) and the node it runs on (two members on the same non-empty node
 * move KV over the same-node link class).
 *
 * @param replicaId non-empty
 * @param node the node name; {@code null} → empty (unknown)
 */
public record PdMember(String replicaId, String node) {
  public PdMember {
    Objects.requireNonNull(replicaId, "replicaId");
    if (replicaId.isEmpty()) {
      throw new IllegalArgumentException("replicaId must not be empty");
    }
    node = node == null ? "" : node;
  }
}
