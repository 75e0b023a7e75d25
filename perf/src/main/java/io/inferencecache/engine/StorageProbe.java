package io.inferencecache.engine;

import io.inferencecache.engine.internal.CounterArena;
import io.inferencecache.engine.internal.EntryCensus;
import java.util.Map;

/**
 * Measurement access to the engines' storage (perf scope, same package as the indexes): the bytes
 * the stored entries actually use, as opposed to {@code footprintBytes()} ({@code offHeapBytes()}
 * for v1), which is what the sizing hints allocated.
 */
public final class StorageProbe {
  private StorageProbe() {}

  /**
   * Main map's used chunks and hash-lookup slots, its block directory's used slots and run ids,
   * plus the LFU counters in use (one per storage entry of an LFU tenant).
   */
  public static long usedBytes(final CacheIndex index) {
    return index.mainStore().usedBytes()
        + index.mainStore().directoryUsedBytes()
        + counterBytes(index);
  }

  /** The LFU counters in use. */
  private static long counterBytes(final CacheIndex index) {
    return (long) index.arena().counters() * CounterArena.SLOT_BYTES;
  }

  /**
   * The engine's bytes per holder-block by structure ({@link EntryCensus#perHolderBlock}): entry
   * overhead, hash-lookup slots, value sections, the block directory, LFU counters, and allocated
   * but unused. Walks every entry.
   */
  public static Map<String, Double> breakdown(final CacheIndex index) {
    final long entries = index.totalEntries();
    return census(index).perHolderBlock(entries, counterBytes(index), index.footprintBytes());
  }

  /** The census of the engine's main map. */
  public static EntryCensus census(final CacheIndex index) {
    return EntryCensus.of(index.mainStore());
  }

  /** Off-heap bytes Chronicle allocated for the engine's main map (its sizing, no LFU arena). */
  public static long mainMapBytes(final CacheIndex index) {
    return index.mainStore().offHeapBytes();
  }

  /** The same for the v1 layout. */
  public static long usedBytes(final CacheIndexV1 index) {
    return index.mainStore().usedBytes() + index.totalEntries() * CounterArena.SLOT_BYTES;
  }
}
