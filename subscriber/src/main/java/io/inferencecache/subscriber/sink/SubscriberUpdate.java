package io.inferencecache.subscriber.sink;

import io.inferencecache.subscriber.index.PrefixRecord;
import java.util.List;
import java.util.Objects;

/**
 * One batch of prefix additions for one replica: maps 1:1 to a {@code CacheStateUpdate} with
 * replica/model/tenant/hash_scheme/timestamp_us stamped, no update-level adapter and no stats.
 *
 * <p>Immutable and thread-safe.
 *
 * @param replicaId the engine replica the prefixes live on
 * @param modelId the served model
 * @param tenantId the tenant ({@code ""} = shared/default)
 * @param hashScheme the engine's hash-domain tag ({@code vllm}, {@code sglang})
 * @param timestampMicros Unix microseconds of the newest engine batch in the window; {@code 0}
 *     means "server now"
 * @param prefixes the prefixes, in engine order
 */
public record SubscriberUpdate(
    String replicaId,
    String modelId,
    String tenantId,
    String hashScheme,
    long timestampMicros,
    List<PrefixRecord> prefixes) {
  /**
   * Most prefixes one update carries: the reporter flushes at this many pending records, and a
   * resync re-sends the positional index in updates of at most this many.
   */
  public static final int MAX_PREFIXES = 4096;

  /** Copies {@code prefixes} into an unmodifiable list. */
  public SubscriberUpdate {
    Objects.requireNonNull(replicaId, "replicaId");
    Objects.requireNonNull(modelId, "modelId");
    Objects.requireNonNull(tenantId, "tenantId");
    Objects.requireNonNull(hashScheme, "hashScheme");
    prefixes = List.copyOf(prefixes);
  }
}
