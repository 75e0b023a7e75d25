/*
 * Perf scope: measurement access to the engine's map configuration, for the Chronicle floor
 * benchmark. Not part of the product.
 */
package io.inferencecache.engine.internal;

import net.openhft.chronicle.map.ChronicleMap;

/**
 * A bare Chronicle map configured exactly as the engine configures its prefix map ({@link
 * RunMapSizing#builder}), in memory, so a benchmark can measure Chronicle's own read cost beside
 * the engine's lookup.
 */
public final class FloorMaps {
  /** Value bytes of a one-block, one-holder run ({@link RunLayout#FLAG_UNIT}). */
  public static final int UNIT_RUN_BYTES =
      RunLayout.runBytes(1, 1, 1, RunLayout.FLAG_UNIT, HolderLayout.KEY_PARTITION_BYTES);

  private FloorMaps() {}

  /** The engine's prefix map for {@code entries} holder-blocks of the given key shape. */
  public static ChronicleMap<byte[], byte[]> engineMap(
      final long entries, final int averageHashBytes, final double averageHoldersPerKey) {
    return RunMapSizing.builder(
            "inference-cache-floor", entries, averageHashBytes, averageHoldersPerKey, false)
        .create();
  }
}
