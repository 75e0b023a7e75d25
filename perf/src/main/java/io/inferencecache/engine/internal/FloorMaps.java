/*
 * Perf scope: measurement access to the engine's map configuration, for the Chronicle floor
 * benchmark. Not part of the product.
 */
package io.inferencecache.engine.internal;

import net.openhft.chronicle.map.ChronicleMap;

/**
 * A bare Chronicle map configured exactly as the engine configures its prefix map ({@link
 * RunMapSizing#builder}), in memory, so a benchmark can measure Chronicle's own read and write cost
 * beside the engine's lookup and ingest; and the sizes of the values the engine stores in it.
 */
public final class FloorMaps {
  /** Value bytes of a one-block, one-holder run ({@link RunLayout#FLAG_UNIT}). */
  public static final int UNIT_RUN_BYTES =
      RunLayout.runBytes(1, 1, 1, RunLayout.FLAG_UNIT, HolderLayout.KEY_PARTITION_BYTES);

  /** Value bytes of a locator of an 8-byte hash ({@code tag ‖ row ‖ head hash}). */
  public static final int LOCATOR_BYTES_8 = RunLayout.LOCATOR_HASH_OFFSET + 8;

  /** First byte of a run value. */
  public static final byte RUN_TAG = RunLayout.RUN_TAG;

  /** First byte of a locator value. */
  public static final byte LOCATOR_TAG = RunLayout.LOCATOR_TAG;

  /** Offset of the first palette entry's {@code lastSeen} in a run of {@code rows × cols}. */
  public static int firstPaletteSeenOffset(final int rows, final int cols) {
    return RunLayout.paletteOffset(rows, cols, 0) + RunLayout.PALETTE_SEEN_OFFSET;
  }

  private FloorMaps() {}

  /**
   * Value bytes of a run of {@code rows} blocks of 8-byte hashes held by {@code cols} replicas,
   * with {@code palette} distinct attribute entries and no token deltas: what the engine stores for
   * such a run.
   */
  public static int runBytes(final int rows, final int cols, final int palette) {
    return RunLayout.runBytes(rows, cols, palette, 0, 8);
  }

  /**
   * A one-block, one-holder run's value as the engine stores it ({@link RunLayout#FLAG_UNIT}), with
   * {@code marker} in its LFU slot (so a read can tell values apart).
   */
  public static byte[] unitRun(final int marker) {
    final byte[] v = new byte[UNIT_RUN_BYTES];
    v[RunLayout.TAG_OFFSET] = RunLayout.RUN_TAG;
    v[RunLayout.FLAGS_OFFSET] = (byte) RunLayout.FLAG_UNIT;
    final int at = RunLayout.cellsOffset(RunLayout.FLAG_UNIT) + RunLayout.CELL_SLOT_OFFSET;
    for (int i = 0; i < 4; i++) {
      v[at + i] = (byte) (marker >>> (8 * i)); // little endian, as the engine writes
    }
    return v;
  }

  /**
   * The engine's read of {@code map} as a lookup does it: {@link RunCursor#visit} (Chronicle's
   * {@code getUsing} with the engine's value reader, the run parsed in place under the lock), one
   * per thread.
   */
  public static final class InPlaceRead implements RunVisitor {
    private final RunStore store;
    private final KeyBuffer key = new KeyBuffer();
    private final RunCursor cursor = new RunCursor();
    private long read;

    public InPlaceRead(final ChronicleMap<byte[], byte[]> map) {
      this.store = RunStore.over(map);
    }

    /** The first cell's LFU slot of the run stored under raw key {@code k}, or -1 if absent. */
    public long slotOf(final byte[] k, final int length) {
      key.setRaw(k, length);
      return cursor.visit(store, key, this) ? read : -1;
    }

    @Override
    public void visit(final RunCursor run) {
      read = run.slot(run.row(), 0);
    }
  }

  /** The engine's prefix map for {@code entries} holder-blocks of the given key shape. */
  public static ChronicleMap<byte[], byte[]> engineMap(
      final long entries, final int averageHashBytes, final double averageHoldersPerKey) {
    return RunMapSizing.builder(
            "inference-cache-floor", entries, averageHashBytes, averageHoldersPerKey, false)
        .create();
  }
}
