package io.inferencecache.perf.workload;

import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import java.util.List;
import java.util.function.Consumer;

/**
 * A benchmark data shape: the updates that build an index and the chains to look up in it. Every
 * workload lives in one (tenant, model, hash scheme) scope with no adapter, 8-byte big-endian block
 * hashes.
 */
public interface Workload {
  String TENANT = "tenant-perf";
  String MODEL = "model-perf";
  String SCHEME = "vllm";

  /** Short name, as in the benchmark tables. */
  String name();

  /** Storage entries (holder-blocks: one per (block key, replica)) once every update is in. */
  long holderBlocks();

  /** Distinct block keys once every update is in. */
  long distinctKeys();

  /** Average holders per key, the engine's sizing hint. */
  default double holdersPerKey() {
    return (double) holderBlocks() / Math.max(1, distinctKeys());
  }

  /**
   * Streams the updates that build the index, generated on the fly (nothing is retained, so the
   * heap the index uses can be measured).
   */
  void forEachUpdate(Consumer<IngestUpdate> sink);

  /** Number of distinct lookup chains {@link #fillLookup} can produce. */
  int lookups();

  /** Fills {@code q} (reset first) with lookup chain {@code i} ({@code 0 <= i < lookups()}). */
  void fillLookup(int i, LookupRequest q);

  /**
   * An update in this scope, timestamp 0 and no adapter, reporting one chain of {@code hashes} with
   * {@code counts} tokens a block (tier 0) held by {@code replica}.
   */
  static IngestUpdate chainUpdate(
      final String replica, final List<byte[]> hashes, final int[] counts) {
    return new IngestUpdate(
        replica,
        MODEL,
        TENANT,
        SCHEME,
        0,
        "",
        List.of(IngestPrefix.chain(hashes, counts, 0)),
        null);
  }

  /** Writes {@code v} as 8 big-endian bytes into {@code dst[0..8)}. */
  static void putLongBe(final byte[] dst, final long v) {
    for (int i = 0; i < 8; i++) {
      dst[i] = (byte) (v >>> (56 - 8 * i));
    }
  }

  /**
   * Writes an index key as the engine stores it into {@code key[0..12)}: the partition id, then the
   * 8-byte hash, both big-endian (the bare-map floors and the directory benchmark build keys so).
   */
  static void putEngineKey(final byte[] key, final int partition, final long hash) {
    key[0] = (byte) (partition >>> 24);
    key[1] = (byte) (partition >>> 16);
    key[2] = (byte) (partition >>> 8);
    key[3] = (byte) partition;
    for (int i = 0; i < 8; i++) {
      key[4 + i] = (byte) (hash >>> (56 - 8 * i));
    }
  }

  /** An 8-byte big-endian hash of {@code v}. */
  static byte[] hashOf(final long v) {
    final byte[] b = new byte[8];
    putLongBe(b, v);
    return b;
  }
}
