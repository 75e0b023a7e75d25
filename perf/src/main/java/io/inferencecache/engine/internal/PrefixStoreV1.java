/*
 * Perf-scope copy of the engine's v1 layout (one Chronicle entry per block, 24-byte holder records),
 * kept only as the oracle of the v1/v2 differential test and the v1 column of the side-by-side
 * benchmarks. Not part of the product; delete once v2's figures are published.
 */
package io.inferencecache.engine.internal;

import static io.inferencecache.engine.internal.HolderLayout.RECORD_BYTES;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;

/**
 * The prefix index proper: a Chronicle Map from key ({@link HolderLayout}) to the key's holder
 * records, off-heap (in memory, or in a persisted file).
 *
 * <p>Reads ({@link #readHolders}) take the key's segment read lock just long enough to copy the
 * holder records into the caller's {@link HolderBuffer}; they never wait for more than one
 * segment-local write. All mutations come from the single index writer.
 */
public final class PrefixStoreV1 implements Closeable {
  /** {@link #upsert} outcome: the key was new (so was the holder). */
  public static final int NEW_KEY = 2;

  /** {@link #upsert} outcome: the key existed, the holder is new. */
  public static final int NEW_HOLDER = 1;

  /** {@link #upsert} outcome: the holder existed and was refreshed. */
  public static final int REFRESHED = 0;

  private final ChronicleMap<byte[], byte[]> map;
  private final HolderBuffer writerScratch = new HolderBuffer(64);
  private final HolderBuffer writerOut = new HolderBuffer(64);

  private PrefixStoreV1(final ChronicleMap<byte[], byte[]> map) {
    this.map = map;
  }

  /**
   * Builder shared by the in-memory and persisted forms; {@code entries} is the storage-entry
   * capacity (keys × holders).
   */
  static ChronicleMapBuilder<byte[], byte[]> builder(
      final String name,
      final long entries,
      final int averageHashBytes,
      final double averageHoldersPerKey,
      final boolean checksums) {
    return ChronicleMapBuilder.of(byte[].class, byte[].class)
        .name(name)
        // Chronicle sizes by keys; a key holds averageHoldersPerKey storage entries on average.
        .entries(Math.max((long) Math.ceil(entries / Math.max(1.0, averageHoldersPerKey)), 1024))
        .averageKeySize(HolderLayout.KEY_PARTITION_BYTES + averageHashBytes)
        .averageValueSize(Math.max(1.0, averageHoldersPerKey) * RECORD_BYTES)
        .maxBloatFactor(4.0)
        .checksumEntries(checksums);
  }

  /** An in-memory (off-heap, no file) store. */
  public static PrefixStoreV1 inMemory(
      final String name,
      final long entries,
      final int averageHashBytes,
      final double averageHoldersPerKey) {
    return new PrefixStoreV1(
        builder(name, entries, averageHashBytes, averageHoldersPerKey, false).create());
  }

  /**
   * A store persisted to {@code file}. With {@code recover}, the file is opened in recovery mode
   * (for a file whose last writer did not close it cleanly): Chronicle checks every segment and
   * entry checksum and drops what it cannot trust.
   */
  public static PrefixStoreV1 persisted(
      final File file,
      final long entries,
      final int averageHashBytes,
      final double averageHoldersPerKey,
      final boolean recover)
      throws IOException {
    if (file.length() > 0) {
      requireReadyHeader(file);
    }
    final ChronicleMapBuilder<byte[], byte[]> b =
        builder("inference-cache-prefixes", entries, averageHashBytes, averageHoldersPerKey, true);
    return new PrefixStoreV1(
        recover ? b.recoverPersistedTo(file, true) : b.createPersistedTo(file));
  }

  /**
   * Fails at once on a file whose Chronicle header is not marked ready (the little-endian size word
   * at offset 8 must be positive). Chronicle would wait about a minute for another process to
   * finish writing it; this file has a single owner, so an unready header is garbage or a crash
   * during creation, and the caller sets it aside.
   */
  private static void requireReadyHeader(final File file) throws IOException {
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

  /** Number of keys (distinct prefix keys, plus metadata records for a persisted store). */
  public long keys() {
    return map.longSize();
  }

  /** Off-heap bytes the map occupies. */
  public long offHeapBytes() {
    return map.offHeapMemoryUsed();
  }

  /** Off-heap bytes the stored entries use (their chunks plus a hash-lookup slot each). */
  public long usedBytes() {
    long used = 0;
    for (ChronicleMap.SegmentStats st : map.segmentStats()) {
      used += st.usedBytes();
    }
    return used
        + map.longSize()
            * ((net.openhft.chronicle.hash.impl.VanillaChronicleHash<?, ?, ?, ?>) map)
                .tierHashLookupSlotSize;
  }

  /** Number of segments, for segment-at-a-time scans. */
  public int segments() {
    return map.segments();
  }

  /**
   * Copies the holders of {@code key} into {@code dst}; returns their number (0 when absent).
   * Allocation-free unless {@code dst} must grow. Thread-safe.
   */
  public int readHolders(final KeyBuffer key, final HolderBuffer dst) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        dst.count = 0;
        return 0;
      }
      final Data<byte[]> v = e.value();
      final int size = (int) v.size();
      dst.ensureBytes(size);
      v.bytes().read(v.offset(), dst.bytes, 0, size);
      dst.count = size / RECORD_BYTES;
      return dst.count;
    }
  }

  /**
   * Inserts or refreshes the holder {@code replica} of {@code key}. A refresh keeps the LFU slot; a
   * new holder takes a slot from {@code arena}, which the caller has made sure has one free (so no
   * eviction ever runs while a segment lock is held). Writer only.
   *
   * @return {@link #NEW_KEY}, {@link #NEW_HOLDER} or {@link #REFRESHED}.
   */
  public int upsert(
      final KeyBuffer key,
      final int replica,
      final int tokens,
      final long lastSeen,
      final int tier,
      final CounterArena arena) {
    long allocated = -1;
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      final HolderBuffer out = writerOut;
      if (e == null) {
        final long sg = arena.allocate();
        allocated = sg;
        out.ensureBytes(RECORD_BYTES);
        out.count = 1;
        out.put(0, lastSeen, tokens, replica, (int) (sg >>> 16), (int) sg & 0xFFFF, tier);
        c.absentEntry().doInsert(c.wrapValueBytesAsData(out.store, 0, RECORD_BYTES));
        return NEW_KEY;
      }
      final HolderBuffer in = writerScratch;
      copyValue(e, in);
      final int idx = in.find(replica);
      if (idx >= 0) {
        out.ensureBytes(in.count * RECORD_BYTES);
        System.arraycopy(in.bytes, 0, out.bytes, 0, in.count * RECORD_BYTES);
        out.count = in.count;
        out.put(idx, lastSeen, tokens, replica, in.slot(idx), in.gen(idx), tier);
        e.doReplaceValue(c.wrapValueBytesAsData(out.store, 0, (long) out.count * RECORD_BYTES));
        return REFRESHED;
      }
      final int at = -idx - 1;
      final int n = in.count + 1;
      final long sg = arena.allocate();
      allocated = sg;
      out.ensureBytes(n * RECORD_BYTES);
      System.arraycopy(in.bytes, 0, out.bytes, 0, at * RECORD_BYTES);
      out.put(at, lastSeen, tokens, replica, (int) (sg >>> 16), (int) sg & 0xFFFF, tier);
      System.arraycopy(
          in.bytes,
          at * RECORD_BYTES,
          out.bytes,
          (at + 1) * RECORD_BYTES,
          (in.count - at) * RECORD_BYTES);
      out.count = n;
      e.doReplaceValue(c.wrapValueBytesAsData(out.store, 0, (long) n * RECORD_BYTES));
      return NEW_HOLDER;
    } catch (RuntimeException ex) {
      if (allocated >= 0) {
        arena.release((int) (allocated >>> 16)); // the map never took it
      }
      throw ex;
    }
  }

  /**
   * Removes holder {@code replica} from {@code key}; copies the removed record into record 0 of
   * {@code removed}. Writer only.
   *
   * @return -1 if there was no such holder, 1 if the key still has holders, 0 if the key is gone.
   */
  public int removeHolder(final KeyBuffer key, final int replica, final HolderBuffer removed) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        return -1;
      }
      final HolderBuffer in = writerScratch;
      copyValue(e, in);
      final int idx = in.find(replica);
      if (idx < 0) {
        return -1;
      }
      removed.ensureBytes(RECORD_BYTES);
      removed.copyRecord(in, idx, 0);
      removed.count = 1;
      if (in.count == 1) {
        e.doRemove();
        return 0;
      }
      final HolderBuffer out = writerOut;
      out.ensureBytes((in.count - 1) * RECORD_BYTES);
      System.arraycopy(in.bytes, 0, out.bytes, 0, idx * RECORD_BYTES);
      System.arraycopy(
          in.bytes,
          (idx + 1) * RECORD_BYTES,
          out.bytes,
          idx * RECORD_BYTES,
          (in.count - idx - 1) * RECORD_BYTES);
      out.count = in.count - 1;
      e.doReplaceValue(c.wrapValueBytesAsData(out.store, 0, (long) out.count * RECORD_BYTES));
      return 1;
    }
  }

  /** Removes {@code key} and all its holders, copying them into {@code removed}. Writer only. */
  public int removeKey(final KeyBuffer key, final HolderBuffer removed) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        removed.count = 0;
        return 0;
      }
      copyValue(e, removed);
      e.doRemove();
      return removed.count;
    }
  }

  /** Raw put of a metadata record (persisted stores). Writer only. */
  public void putRaw(final byte[] key, final byte[] value) {
    map.put(key, value);
  }

  /** Raw get of a metadata record, or null. */
  public byte[] getRaw(final byte[] key) {
    return map.get(key);
  }

  /** Visitor of {@link #scanSegment}. */
  public interface EntryVisitor {
    /**
     * Visits one key. {@code key[0..keyLength)} is the raw key; {@code holders} its records. To
     * change the entry, fill {@code out} with the holders to keep and return {@link #REWRITE};
     * return {@link #KEEP} to leave it, {@link #REMOVE} to delete the key.
     */
    int visit(byte[] key, int keyLength, HolderBuffer holders, HolderBuffer out);

    int KEEP = 0;
    int REWRITE = 1;
    int REMOVE = 2;
  }

  private final byte[] scanKey = new byte[HolderLayout.KEY_PARTITION_BYTES + 4096];
  private final HolderBuffer scanHolders = new HolderBuffer(64);
  private final HolderBuffer scanOut = new HolderBuffer(64);

  /**
   * Visits every entry of segment {@code segment} under the segment's update lock (readers of other
   * segments are unaffected; readers of this one wait only if the visitor changes something).
   * Metadata records (partition -1) are skipped. Writer only.
   */
  public void scanSegment(final int segment, final EntryVisitor visitor) {
    try (MapSegmentContext<byte[], byte[], ?> c = map.segmentContext(segment)) {
      c.forEachSegmentEntry(
          e -> {
            final Data<byte[]> k = e.key();
            final int klen = (int) k.size();
            if (klen < HolderLayout.KEY_PARTITION_BYTES || klen > scanKey.length) {
              e.doRemove(); // not a key this index writes: unusable, drop it
              return;
            }
            k.bytes().read(k.offset(), scanKey, 0, klen);
            if (KeyBuffer.partitionOf(scanKey) == HolderLayout.META_PARTITION) {
              return;
            }
            copyValue(e, scanHolders);
            scanOut.count = 0;
            final int action = visitor.visit(scanKey, klen, scanHolders, scanOut);
            if (action == EntryVisitor.REMOVE
                || (action == EntryVisitor.REWRITE && scanOut.count == 0)) {
              e.doRemove();
            } else if (action == EntryVisitor.REWRITE) {
              e.doReplaceValue(
                  c.wrapValueBytesAsData(scanOut.store, 0, (long) scanOut.count * RECORD_BYTES));
            }
          });
    }
  }

  /** Visits every entry of the store, one segment at a time. Writer only. */
  public void scanAll(final EntryVisitor visitor) {
    final int n = map.segments();
    for (int s = 0; s < n; s++) {
      scanSegment(s, visitor);
    }
  }

  private static void copyValue(final MapEntry<byte[], byte[]> e, final HolderBuffer dst) {
    final Data<byte[]> v = e.value();
    final int size = (int) v.size();
    dst.ensureBytes(size);
    final RandomDataInput in = v.bytes();
    in.read(v.offset(), dst.bytes, 0, size);
    dst.count = size / RECORD_BYTES;
  }

  /** Wraps a byte array as a Chronicle byte store (for metadata records). */
  static BytesStore<?, byte[]> wrap(final byte[] b) {
    return BytesStore.wrap(b);
  }

  @Override
  public void close() {
    map.close();
  }
}
