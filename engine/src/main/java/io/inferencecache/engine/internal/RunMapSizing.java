package io.inferencecache.engine.internal;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import net.openhft.chronicle.hash.impl.VanillaChronicleHash;
import net.openhft.chronicle.hash.serialization.impl.ByteArrayDataAccess;
import net.openhft.chronicle.hash.serialization.impl.ByteArraySizedReader;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;

/**
 * How a {@link RunStore}'s Chronicle map is sized and opened (engine/docs/design.md §2, "Chronicle
 * sizing"): the builder's hints from the expected holder-blocks, the largest run one entry may
 * hold, and the header check of a persisted file.
 */
final class RunMapSizing {
  private RunMapSizing() {}

  /**
   * Rows of an average run, for sizing only: a chain ingested at once is one run, branch points and
   * short reports (one-block keys, Mooncake's unique tails) make shorter ones.
   */
  static final int SIZING_RUN_ROWS = 4;

  /**
   * Chronicle's allocation unit. Entries are a key and a run (or a metadata record); 8 B chunks
   * waste at most 7 B an entry.
   */
  static final int CHUNK_BYTES = 8;

  static ChronicleMapBuilder<byte[], byte[]> builder(
      final String name,
      final long entries,
      final int averageHashBytes,
      final double averageHoldersPerKey,
      final boolean checksums) {
    final double holders = Math.max(1.0, averageHoldersPerKey);
    final long keys = expectedKeys(entries, averageHoldersPerKey);
    return ChronicleMapBuilder.of(byte[].class, byte[].class)
        .name(name)
        .entries(keys)
        .averageKeySize(HolderLayout.KEY_PARTITION_BYTES + averageHashBytes)
        .averageValueSize(averageValueBytes(holders, averageHashBytes))
        .actualChunkSize(CHUNK_BYTES)
        .maxBloatFactor(4.0)
        .checksumEntries(checksums)
        .keyReaderAndDataAccess(ByteArraySizedReader.INSTANCE, new KeyBytesAccess())
        .valueReaderAndDataAccess(RunValueReader.INSTANCE, new ByteArrayDataAccess());
  }

  /** Block keys expected for {@code entries} holder-blocks: the map's and the directory's hint. */
  static long expectedKeys(final long entries, final double averageHoldersPerKey) {
    return Math.max((long) Math.ceil(entries / Math.max(1.0, averageHoldersPerKey)), 1024);
  }

  /**
   * Value bytes per stored block key, averaged over the runs' rows: the block's cells, row tokens
   * and hash (rows 1..), plus its share of a run's header, palette entry and holder ids, for runs
   * of {@link #SIZING_RUN_ROWS} rows. (The map holds one entry per run, not per key, so this hint
   * with one entry per key leaves room for runs as short as one block.)
   */
  static double averageValueBytes(final double holders, final int hashBytes) {
    final double r = SIZING_RUN_ROWS;
    final double perRun =
        RunLayout.HEADER_BYTES + RunLayout.PALETTE_BYTES + 2 * holders; // u16 holder ids
    final double laterRows = (r - 1) / r * hashBytes;
    return RunLayout.CELL_BYTES * holders + 4 + laterRows + perRun / r;
  }

  /**
   * The bytes one stored run may take: {@link RunStore#MAX_RUN_BYTES_PROP_NAME} (default {@link
   * RunLayout#MAX_RUN_BYTES}), never more than Chronicle's largest entry less room for the key and
   * size prefixes, never less than 512.
   */
  static int maxRunBytes(final ChronicleMap<byte[], byte[]> map) {
    final VanillaChronicleHash<?, ?, ?, ?> h = (VanillaChronicleHash<?, ?, ?, ?>) map;
    final long maxEntry = h.chunkSize * (long) h.maxChunksPerEntry;
    final int limit = Integer.getInteger(RunStore.MAX_RUN_BYTES_PROP_NAME, RunLayout.MAX_RUN_BYTES);
    return (int) Math.max(512, Math.min(limit, maxEntry - 2 * 300 - 64));
  }

  /**
   * Fails at once on a file whose Chronicle header is not marked ready (Chronicle would wait about
   * a minute for another process to finish writing it; this file has a single owner).
   */
  static void requireReadyHeader(final File file) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file, "r")) {
      if (raf.length() < 12) {
        throw new IOException("index file " + file + " is too short for a header");
      }
      raf.seek(8);
      if (Integer.reverseBytes(raf.readInt()) <= 0) {
        throw new IOException("index file " + file + " has no completed header");
      }
    }
  }
}
