package io.inferencecache.engine.policy;

/**
 * The cap-eviction algorithm of a namespace (docs/behaviour.md#eviction-lru-lfu). Resolved from the
 * policy at sweep or lookup time, never stored on an index entry.
 */
public enum EvictionAlgorithm {
  /** Least recently used: victims ordered by {@code lastSeen} alone. The default. */
  LRU("lru"),
  /** Least frequently used: victims ordered by delivered-hit count, then {@code lastSeen}. */
  LFU("lfu");

  private final String label;

  EvictionAlgorithm(final String label) {
    this.label = label;
  }

  /**
   * The algorithm a policy's {@code eviction} string names: only {@code "lfu"}, in any case, means
   * {@link #LFU}; anything else, including {@code null}, the empty string and unknown names, means
   * {@link #LRU}. Never throws; allocation-free.
   */
  public static EvictionAlgorithm parse(final String eviction) {
    return eviction != null && eviction.equalsIgnoreCase("lfu") ? LFU : LRU;
  }

  /**
   * The lower-case canonical name, {@code "lru"} or {@code "lfu"}: the {@code algorithm} metric
   * label.
   */
  public String label() {
    return label;
  }
}
