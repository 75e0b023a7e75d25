package io.inferencecache.engine;

import io.inferencecache.engine.internal.CounterArena;

/**
 * Measurement access to the engines' storage (perf scope, same package as the indexes): the
 * off-heap bytes the stored entries actually use, as opposed to {@code offHeapBytes()}, which is
 * what the sizing hints allocated.
 */
public final class StorageProbe {
  private StorageProbe() {}

  /** Main map's used chunks and hash-lookup slots, plus one LFU counter per storage entry. */
  public static long usedBytes(final CacheIndex index) {
    return index.mainStore().usedBytes() + index.totalEntries() * CounterArena.SLOT_BYTES;
  }

  /** The same for the v1 layout. */
  public static long usedBytes(final CacheIndexV1 index) {
    return index.mainStore().usedBytes() + index.totalEntries() * CounterArena.SLOT_BYTES;
  }
}
