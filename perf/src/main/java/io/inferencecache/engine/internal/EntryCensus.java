/*
 * Perf scope: measurement access to the engine's stored entries, for MemoryFootprint and the
 * trace replay. Not part of the product.
 */
package io.inferencecache.engine.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;

/**
 * Where a {@link RunStore}'s used bytes go, by structure: every Chronicle entry's key, size
 * prefixes and chunk rounding (the per-entry overhead), the hash-lookup slots, the values by
 * section ({@link RunLayout}: a run's header, cells, palette, row tokens, holder ids and hashes;
 * locators in a layout-2 file not yet migrated), and the block directory on the heap (a slot per
 * block key, a first key per run id). Walks every entry; for measurements only.
 */
public final class EntryCensus {
  public long runs;
  public long locators;
  public long otherEntries;

  /** Per-entry overhead: the keys, their and the values' size prefixes, the last chunk's slack. */
  public long keyBytes;

  public long sizePrefixBytes;
  public long chunkSlackBytes;

  /** One hash-lookup slot per entry. */
  public long slotBytes;

  /** Locator values (tag, row, head hash). */
  public long locatorBytes;

  public long headerBytes;
  public long cellBytes;
  public long paletteBytes;
  public long tokenBytes;
  public long holderBytes;
  public long hashBytes;

  /** The runs' segment indexes and segments ({@link RunLayout#FLAG_SEGMENTS}). */
  public long segmentBytes;

  /**
   * Block directory: one 8-byte slot per stored block key (the heap table, {@code RunDirectory}).
   */
  public long directorySlotBytes;

  /** Block directory: each run id's first key. */
  public long runIdBytes;

  /** Values that are neither runs nor locators (metadata records). */
  public long otherValueBytes;

  /** Cells naming a holder (the holder-blocks the runs store). */
  public long presentCells;

  private EntryCensus() {}

  /** The census of {@code store}'s map (entries of the reserved map are not counted). */
  public static EntryCensus of(final RunStore store) {
    final EntryCensus c = new EntryCensus();
    final VanillaChronicleHash<?, ?, ?, ?> h = (VanillaChronicleHash<?, ?, ?, ?>) store.map;
    final long chunk = h.chunkSize;
    store.map.forEachEntry(
        e -> {
          final Data<byte[]> k = e.key();
          final Data<byte[]> v = e.value();
          final long ks = k.size();
          final long vs = v.size();
          final long raw = stopBitBytes(ks) + ks + stopBitBytes(vs) + vs;
          c.keyBytes += ks;
          c.sizePrefixBytes += stopBitBytes(ks) + stopBitBytes(vs);
          c.chunkSlackBytes += (raw + chunk - 1) / chunk * chunk - raw;
          c.count(v.bytes(), v.offset(), (int) vs, (int) ks - HolderLayout.KEY_PARTITION_BYTES);
        });
    c.slotBytes = store.map.longSize() * h.tierHashLookupSlotSize;
    c.directorySlotBytes = store.blockKeys() * Long.BYTES;
    c.runIdBytes = store.directoryUsedBytes() - c.directorySlotBytes;
    return c;
  }

  private void count(final RandomDataInput b, final long o, final int size, final int hashLen) {
    final byte tag = size > 0 ? b.readByte(o) : 0;
    if (tag == RunLayout.LOCATOR_TAG) {
      locators++;
      locatorBytes += size;
      return;
    }
    if (tag != RunLayout.RUN_TAG || size < RunLayout.UNIT_HEADER_BYTES) {
      otherEntries++;
      otherValueBytes += size;
      return;
    }
    runs++;
    final int flags = b.readByte(o + RunLayout.FLAGS_OFFSET) & 0xFF;
    final boolean unit = (flags & RunLayout.FLAG_UNIT) != 0;
    final int rows = unit ? 1 : b.readShort(o + RunLayout.ROWS_OFFSET) & 0xFFFF;
    final int cols = unit ? 1 : b.readShort(o + RunLayout.COLS_OFFSET) & 0xFFFF;
    final int palette = unit ? 1 : b.readShort(o + RunLayout.PALETTE_OFFSET) & 0xFFFF;
    final int cells = RunLayout.cellsOffset(flags);
    headerBytes += cells;
    cellBytes += (long) rows * cols * RunLayout.CELL_BYTES;
    paletteBytes += (long) palette * RunLayout.paletteStride(flags);
    tokenBytes += rows * 4L;
    holderBytes += (long) cols * RunLayout.holderBytes(flags);
    hashBytes += (long) (rows - 1) * hashLen;
    if ((flags & RunLayout.FLAG_SEGMENTS) != 0) {
      segmentBytes += size - RunLayout.runBytes(rows, cols, palette, flags, hashLen);
    }
    for (int i = 0; i < rows * cols; i++) {
      final long at = o + cells + (long) i * RunLayout.CELL_BYTES + RunLayout.CELL_PALETTE_OFFSET;
      if (b.readShort(at) != 0) {
        presentCells++;
      }
    }
  }

  private static int stopBitBytes(final long n) {
    int bytes = 1;
    for (long v = n >>> 7; v != 0; v >>>= 7) {
      bytes++;
    }
    return bytes;
  }

  /**
   * The entries' bytes: chunks (key, prefixes, value, slack) and their hash-lookup slots, and the
   * block directory's used slots and run ids.
   */
  public long usedBytes() {
    return keyBytes
        + sizePrefixBytes
        + chunkSlackBytes
        + slotBytes
        + locatorBytes
        + headerBytes
        + cellBytes
        + paletteBytes
        + tokenBytes
        + holderBytes
        + hashBytes
        + segmentBytes
        + otherValueBytes
        + directorySlotBytes
        + runIdBytes;
  }

  /**
   * Bytes per holder-block by structure: {@code holderBlocks} divides each part; {@code
   * counterBytes} (the LFU counters) and {@code allocatedBytes} (what the map, the arena and the
   * block directory allocated: the rest is reported as unused) complete the picture.
   */
  public Map<String, Double> perHolderBlock(
      final long holderBlocks, final long counterBytes, final long allocatedBytes) {
    final Map<String, Double> m = new LinkedHashMap<>();
    final double d = Math.max(1, holderBlocks);
    m.put("keys", keyBytes / d);
    m.put("sizePrefixes", sizePrefixBytes / d);
    m.put("chunkSlack", chunkSlackBytes / d);
    m.put("hashLookupSlots", slotBytes / d);
    m.put("locators", locatorBytes / d);
    m.put("runHeaders", headerBytes / d);
    m.put("cells", cellBytes / d);
    m.put("palette", paletteBytes / d);
    m.put("rowTokens", tokenBytes / d);
    m.put("holderIds", holderBytes / d);
    m.put("rowHashes", hashBytes / d);
    m.put("segments", segmentBytes / d);
    m.put("otherValues", otherValueBytes / d);
    m.put("directorySlots", directorySlotBytes / d);
    m.put("runIds", runIdBytes / d);
    m.put("lfuCounters", counterBytes / d);
    m.put("used", (usedBytes() + counterBytes) / d);
    m.put("allocatedUnused", (allocatedBytes - usedBytes() - counterBytes) / d);
    return m;
  }
}
