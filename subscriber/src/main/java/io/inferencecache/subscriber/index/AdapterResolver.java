package io.inferencecache.subscriber.index;

import io.inferencecache.subscriber.config.SubscriberConfig;
import java.util.HashSet;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resolves an engine's internal LoRA id (a replica-local load-order integer) to the stable adapter
 * identity that partitions the index, from {@code --lora-adapter-names}:
 *
 * <ul>
 *   <li>no id (nil / absent) → {@code ""}, the base-model partition;
 *   <li>a mapped id → its configured name;
 *   <li>an unmapped id → {@code null}: fail closed, the caller drops the event (indexing it under a
 *       replica-local id could alias different adapters across replicas). Warned once per id.
 * </ul>
 *
 * <p>The set of ids already warned about is capped at {@value #MAX_WARNED_IDS}; past it one more
 * line says further ids are not logged. Not thread-safe: owned by the {@code Reporter}'s thread
 * ({@link #dropped()} may be read from any thread).
 */
public final class AdapterResolver {
  /** Cap on remembered warned-about ids. */
  public static final int MAX_WARNED_IDS = 1024;

  private static final Logger LOG = LoggerFactory.getLogger(AdapterResolver.class);

  private final Map<Long, String> names;
  private final Set<Long> warned = new HashSet<>();
  private boolean warnedOverflow;
  private final AtomicLong dropped = new AtomicLong();

  /**
   * @param names engine LoRA id → adapter name, e.g. from {@link
   *     SubscriberConfig#loraAdapterNames()}
   */
  public AdapterResolver(final Map<Long, String> names) {
    this.names = Map.copyOf(names);
  }

  /**
   * @return the adapter partition, or {@code null} when the event must be dropped
   */
  public String resolve(final OptionalLong loraId) {
    if (loraId.isEmpty()) {
      return "";
    }
    final long id = loraId.getAsLong();
    final String name = names.get(id);
    if (name != null && !name.isEmpty()) {
      return name;
    }
    dropped.incrementAndGet();
    if (warned.size() < MAX_WARNED_IDS) {
      if (warned.add(id)) {
        LOG.warn(
            "dropping BlockStored for an unmapped LoRA id (fail-closed; add it to"
                + " --lora-adapter-names to cache this adapter): lora_id={}",
            id);
      }
    } else if (!warned.contains(id) && !warnedOverflow) {
      warnedOverflow = true;
      LOG.warn(
          "more than {} unmapped LoRA ids seen; further ids are dropped without a warning",
          MAX_WARNED_IDS);
    }
    return null;
  }

  /** Events dropped for an unmapped id. */
  public long dropped() {
    return dropped.get();
  }
}
