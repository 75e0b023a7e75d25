package io.inferencecache.perf;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * A bare Chronicle map of the engine's key shape (partition id 4 B + 8 B hash) and sizing hints,
 * with the Chronicle operations an engine lookup or upsert cannot do without: the floor under the
 * engine's own cost, for the Chronicle floor benchmarks and the perf gate. No engine code runs: the
 * value sizes follow the run layout of engine/docs/design.md §2 (8 B header, 2 B holder ids, 9 B
 * palette entries, 8 B cells, 4 B row tokens, the later rows' hashes), not its bytes. One instance
 * per thread (the key and value buffers are reused).
 */
public class BareChronicleMap implements AutoCloseable {
  /** Key bytes: partition id and an 8-byte block hash, as the engine's block keys. */
  public static final int KEY_BYTES = 4 + 8;

  /** The partition id written into every key. */
  public static final int PARTITION = 7;

  /** A locator's value (tag, row, the run head's 8-byte hash), as a block inside a run stores. */
  public static final int LOCATOR_BYTES = 1 + 1 + 8;

  /** A one-block, one-holder run (short header, one cell, one palette entry, one row token). */
  public static final int UNIT_RUN_BYTES = 2 + 8 + 9 + 4;

  /** First byte of a run value. */
  public static final byte RUN_TAG = 1;

  /** First byte of a locator value. */
  public static final byte LOCATOR_TAG = 2;

  /** Value bytes of a run of {@code rows} blocks held by {@code cols} replicas. */
  public static int runBytes(final int rows, final int cols, final int palette) {
    return 8 + 2 * cols + 9 * palette + rows * (8 * cols + 4) + (rows - 1) * 8;
  }

  /** Offset of the first palette entry's {@code lastSeen} in a run of {@code cols} holders. */
  public static int firstPaletteSeenOffset(final int cols) {
    return 8 + 2 * cols;
  }

  /**
   * A map sized as the engine sizes its prefix map for {@code entries} holder-blocks: one key per
   * {@code holdersPerKey} holder-blocks (at least 1,024), 8 B chunks, the value hint of runs of
   * about four rows.
   */
  public static ChronicleMap<byte[], byte[]> engineSized(
      final long entries, final int hashBytes, final double holdersPerKey) {
    final double holders = Math.max(1.0, holdersPerKey);
    final long keys = Math.max((long) Math.ceil(entries / holders), 1024);
    final double rows = 4;
    final double perRun = 8 + 9 + 2 * holders;
    return ChronicleMapBuilder.of(byte[].class, byte[].class)
        .name("inference-cache-floor")
        .entries(keys)
        .averageKeySize(4 + hashBytes)
        .averageValueSize(8 * holders + 4 + (rows - 1) / rows * hashBytes + perRun / rows)
        .actualChunkSize(8)
        .maxBloatFactor(4.0)
        .create();
  }

  protected ChronicleMap<byte[], byte[]> map;
  public final byte[] key = new byte[KEY_BYTES];
  public final BytesStore<?, byte[]> keyStore = BytesStore.wrap(key);
  public final byte[] locator = new byte[LOCATOR_BYTES];
  public final BytesStore<?, byte[]> locatorStore = BytesStore.wrap(locator);
  public final byte[] unitRun = new byte[UNIT_RUN_BYTES];
  public final BytesStore<?, byte[]> unitRunStore = BytesStore.wrap(unitRun);
  private final UnsafeBuffer view = new UnsafeBuffer(0, 0);
  private byte[] run;
  private BytesStore<?, byte[]> runStore;
  private byte[] prev;

  /** Buffers for runs up to {@code maxRunBytes}; the map is set by {@link #use}. */
  public BareChronicleMap(final int maxRunBytes) {
    run = new byte[maxRunBytes];
    runStore = BytesStore.wrap(run);
    prev = new byte[maxRunBytes];
    locator[0] = LOCATOR_TAG;
    unitRun[0] = RUN_TAG;
    run[0] = RUN_TAG;
  }

  /** Operates on {@code m} from now on (closed by {@link #close}). */
  public final void use(final ChronicleMap<byte[], byte[]> m) {
    this.map = m;
  }

  /** The map. */
  public final ChronicleMap<byte[], byte[]> map() {
    return map;
  }

  /** Sets the key to block number {@code block}'s (its hash a bijection of it). */
  public final void fillKey(final long block) {
    Workload.putEngineKey(key, PARTITION, SyntheticChains.mix64(~block));
  }

  /** Sets the key to the one of block hash {@code hash}. */
  public final void fillKeyOfHash(final long hash) {
    Workload.putEngineKey(key, PARTITION, hash);
  }

  /** Points the locator at row {@code row} of the run headed by block number {@code head}. */
  public final void locatorFor(final long head, final int row) {
    locator[1] = (byte) row;
    final long hash = SyntheticChains.mix64(~head);
    for (int i = 0; i < 8; i++) {
      locator[2 + i] = (byte) (hash >>> (56 - 8 * i));
    }
  }

  /** Inserts {@code value[0..len)} under the current key, which must be absent; false if held. */
  public final boolean insert(final BytesStore<?, byte[]> value, final int len) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(keyStore, 0, KEY_BYTES)) {
      c.updateLock().lock();
      if (c.entry() != null) {
        return false;
      }
      c.absentEntry().doInsert(c.wrapValueBytesAsData(value, 0, len));
      return true;
    }
  }

  /** Inserts a run of {@code len} bytes (the run buffer) under the current key. */
  public final boolean insertRun(final int len) {
    return insert(runStore, len);
  }

  /** Removes the current key's entry; false if there was none. */
  public final boolean removeKey() {
    try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(keyStore, 0, KEY_BYTES)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        return false;
      }
      e.doRemove();
      return true;
    }
  }

  /**
   * Stores a larger run of {@code len} bytes over the current key's entry: the old value copied
   * aside, the entry removed and the new one inserted in the same context.
   */
  public final void grow(final int len) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(keyStore, 0, KEY_BYTES)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      final Data<byte[]> data = c.wrapValueBytesAsData(runStore, 0, len);
      if (e == null) {
        c.absentEntry().doInsert(data);
        return;
      }
      final Data<byte[]> stored = e.value();
      stored.bytes().read(stored.offset(), prev, 0, (int) stored.size());
      e.doRemove();
      c.absentEntry().doInsert(data);
    }
  }

  /**
   * One probe as a lookup makes it: a read context on the current key, {@code entry()} (the segment
   * read lock and the hash-lookup search), the value's address wrapped and two fields read in
   * place; {@link Long#MIN_VALUE} if the key is absent.
   */
  public final long probeInPlace() {
    try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(keyStore, 0, KEY_BYTES)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        return Long.MIN_VALUE;
      }
      final Data<byte[]> d = e.value();
      view.wrap(d.bytes().addressForRead(d.offset()), (int) d.size());
      return view.getByte(0) + view.getLong(2);
    }
  }

  /** The current key's value tag plus size (a read context), or -1 if absent. */
  public final long readLocation() {
    try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(keyStore, 0, KEY_BYTES)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        return -1;
      }
      final Data<byte[]> v = e.value();
      return v.bytes().readByte(v.offset()) + v.size();
    }
  }

  /**
   * Copies the current key's run out, patches a {@code lastSeen} at {@code seenOffset} and replaces
   * the value in place with the same size (as a refresh does once per refreshed run); returns the
   * size, or -1 if the key is absent.
   */
  public final int replaceInPlace(final int seenOffset, final long seen) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c = map.queryContext(keyStore, 0, KEY_BYTES)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        return -1;
      }
      final Data<byte[]> v = e.value();
      final int size = (int) v.size();
      v.bytes().read(v.offset(), run, 0, size);
      for (int i = 0; i < 8; i++) {
        run[seenOffset + i] = (byte) (seen >>> (8 * i));
      }
      e.doReplaceValue(c.wrapValueBytesAsData(runStore, 0, size));
      return size;
    }
  }

  @Override
  public void close() {
    if (map != null) {
      map.close();
      map = null;
    }
  }
}
