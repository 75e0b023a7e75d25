package io.inferencecache.engine.pd;

import java.util.List;
import java.util.Objects;

/**
 * A pool of replicas with one role (prefill or decode, by the list that holds it in {@link
 * PdTopology}).
 *
 * @param name non-empty; answered as {@code prefill_pool} / {@code decode_pool}
 * @param acceleratorType the name of one of the topology's {@link AcceleratorType}s, or empty
 * @param members the replicas, in order; {@code null} → empty; an empty pool is allowed (it answers
 *     {@code PD_POOL_EMPTY} until the controller finds replicas)
 */
public record PdPool(String name, String acceleratorType, List<PdMember> members) {
  public PdPool {
    Objects.requireNonNull(name, "name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("name must not be empty");
    }
    acceleratorType = acceleratorType == null ? "" : acceleratorType;
    members = members == null ? List.of() : List.copyOf(members);
  }
}
