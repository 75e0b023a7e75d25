package io.inferencecache.engine.internal;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.RandomDataInput;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

/**
 * The writer's Chronicle operations on a {@link RunStore}'s map, one entry at a time: a run image's
 * pieces and locators written as entries ({@link RunLayout}), entries removed, and an entry read
 * back as the location of a key or as a run image. Owns the encode and decode buffers. Writer
 * thread only; a write that finds the map full throws {@link IllegalStateException} and leaves the
 * entry as it was.
 */
final class RunEntries {
  /** {@link #locateOrClaim} outcome: the key is not stored. */
  static final int ABSENT = 0;

  /** {@link #locateOrClaim} outcome: the key is stored; its location is read. */
  static final int FOUND = 1;

  /** {@link #locateOrClaim} outcome: the key was absent and now has its locator. */
  static final int CLAIMED = 2;

  final ChronicleMap<byte[], byte[]> map;

  // Where the last readLocation() found its key: the run's key and the key's row in it.
  private final KeyBuffer loc = new KeyBuffer();
  private int locRow;

  private final KeyBuffer wk = new KeyBuffer();
  private byte[] out = new byte[4096];
  private BytesStore<?, byte[]> outStore = BytesStore.wrap(out);
  private byte[] in = new byte[4096];
  private final byte[] locValue =
      new byte[RunLayout.LOCATOR_HASH_OFFSET + HolderLayout.MAX_HASH_BYTES];
  private final BytesStore<?, byte[]> locStore = BytesStore.wrap(locValue);

  // The value put() replaces while it inserts a larger one (restored if the insert is refused).
  private byte[] prev = new byte[4096];
  private BytesStore<?, byte[]> prevStore = BytesStore.wrap(prev);

  RunEntries(final ChronicleMap<byte[], byte[]> map) {
    this.map = map;
  }

  /** The run key the last successful {@link #readLocation} found. */
  KeyBuffer location() {
    return loc;
  }

  /** The row, in {@link #location()}'s run, of the key the last {@link #readLocation} found. */
  int locationRow() {
    return locRow;
  }

  // ---------------------------------------------------------------------------------------------
  // Reads

  /** Reads where {@code key} is: sets {@link #location()} and {@link #locationRow()}. */
  boolean readLocation(final KeyBuffer key) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      return e != null && readLocation(e, key);
    }
  }

  /** {@link #readLocation(KeyBuffer)} of the entry {@code e} stored under {@code key}. */
  boolean readLocation(final MapEntry<byte[], byte[]> e, final KeyBuffer key) {
    final Data<byte[]> v = e.value();
    final RandomDataInput b = v.bytes();
    final long o = v.offset();
    if (v.size() < RunLayout.LOCATOR_HASH_OFFSET) {
      return false;
    }
    final byte tag = b.readByte(o);
    if (tag == RunLayout.RUN_TAG) {
      loc.setRaw(key.bytes, key.length);
      locRow = 0;
      return true;
    }
    if (tag != RunLayout.LOCATOR_TAG || v.size() < RunLayout.LOCATOR_HASH_OFFSET) {
      return false;
    }
    locRow = b.readByte(o + RunLayout.LOCATOR_ROW_OFFSET) & 0xFF;
    final int hl = (int) v.size() - RunLayout.LOCATOR_HASH_OFFSET;
    if (hl > HolderLayout.MAX_HASH_BYTES) {
      return false;
    }
    System.arraycopy(key.bytes, 0, loc.bytes, 0, HolderLayout.KEY_PARTITION_BYTES);
    b.read(o + RunLayout.LOCATOR_HASH_OFFSET, loc.bytes, HolderLayout.KEY_PARTITION_BYTES, hl);
    loc.length = HolderLayout.KEY_PARTITION_BYTES + hl;
    return true;
  }

  /** Decodes the run stored under {@code head} into {@code into}; false if there is none. */
  boolean load(final KeyBuffer head, final RunImage into) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(head.store, 0, head.length)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      return e != null && decode(e.value(), head, into);
    }
  }

  /** Decodes {@code v}, the value stored under {@code head}, into {@code into} if it is a run. */
  boolean decode(final Data<byte[]> v, final KeyBuffer head, final RunImage into) {
    final int size = (int) v.size();
    if (size < RunLayout.UNIT_HEADER_BYTES || v.bytes().readByte(v.offset()) != RunLayout.RUN_TAG) {
      return false;
    }
    if (in.length < size) {
      in = new byte[Math.max(size, in.length * 2)];
    }
    v.bytes().read(v.offset(), in, 0, size);
    into.decode(
        KeyBuffer.partitionOf(head.bytes),
        head.bytes,
        HolderLayout.KEY_PARTITION_BYTES,
        head.length - HolderLayout.KEY_PARTITION_BYTES,
        in,
        size);
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  /**
   * One probe for a key the writer is about to change: {@link #FOUND} (its location read), or
   * {@link #ABSENT}; with {@code claim}, an absent key gets its locator (the next row of {@code m})
   * in the same probe and the answer is {@link #CLAIMED}. Until the run itself is stored, readers
   * following that locator find no such row: the key is absent.
   */
  int locateOrClaim(final KeyBuffer key, final boolean claim, final RunImage m) {
    if (!claim) {
      return readLocation(key) ? FOUND : ABSENT;
    }
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      c.updateLock().lock();
      if (c.entry() != null) {
        return readLocation(c.entry(), key) ? FOUND : ABSENT;
      }
      locValue[RunLayout.TAG_OFFSET] = RunLayout.LOCATOR_TAG;
      locValue[RunLayout.LOCATOR_ROW_OFFSET] = (byte) m.rows;
      System.arraycopy(m.hashes, 0, locValue, RunLayout.LOCATOR_HASH_OFFSET, m.hashLen);
      c.absentEntry()
          .doInsert(c.wrapValueBytesAsData(locStore, 0, RunLayout.LOCATOR_HASH_OFFSET + m.hashLen));
      return CLAIMED;
    }
  }

  /** Inserts all of {@code m} as one run in {@code c}, a context whose key was found absent. */
  void insertRun(final ExternalMapQueryContext<byte[], byte[], ?> c, final RunImage m) {
    encode(m, 0, m.rows);
    c.absentEntry().doInsert(c.wrapValueBytesAsData(outStore, 0, m.encodedLength));
  }

  /** Stores rows {@code from..to-1} of {@code m} as one run under row {@code from}'s key. */
  void putRun(final RunImage m, final int from, final int to) {
    encode(m, from, to);
    m.rowKey(from, wk);
    put(wk, outStore, m.encodedLength);
  }

  private void encode(final RunImage m, final int from, final int to) {
    final byte[] o = m.encode(from, to, out);
    if (o != out) {
      out = o;
      outStore = BytesStore.wrap(o);
    }
  }

  /** Stores row {@code row}'s key as a locator into the run whose first row is {@code headRow}. */
  void putLocator(final RunImage m, final int row, final int headRow) {
    locValue[RunLayout.TAG_OFFSET] = RunLayout.LOCATOR_TAG;
    locValue[RunLayout.LOCATOR_ROW_OFFSET] = (byte) (row - headRow);
    System.arraycopy(
        m.hashes, headRow * m.hashLen, locValue, RunLayout.LOCATOR_HASH_OFFSET, m.hashLen);
    m.rowKey(row, wk);
    put(wk, locStore, RunLayout.LOCATOR_HASH_OFFSET + m.hashLen);
  }

  /** Removes the entry of row {@code row}'s key, if any. */
  void removeRow(final RunImage m, final int row) {
    m.rowKey(row, wk);
    remove(wk);
  }

  /**
   * Stores {@code value} under {@code key}; throws {@link IllegalStateException} if the map has no
   * room, the entry then holding what it held before. A value no larger than the stored one is
   * replaced in place. A larger one is never passed to {@code doReplaceValue}: when Chronicle has
   * to move a growing entry and finds no room, it throws after freeing the entry's chunks, while
   * its hash-lookup slot still names them (the entry reads as before until a later insert in the
   * segment reuses the chunks: the key is then gone, or names the other key's bytes, and the
   * segment's size is one short). So the entry is removed and the new value inserted, in the same
   * context (the segment's write lock held throughout: readers see the old value or the new one);
   * if the insert is refused, the old value, copied first, is inserted back into the space its
   * removal freed.
   */
  private void put(final KeyBuffer key, final BytesStore<?, byte[]> value, final int len) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      final Data<byte[]> data = c.wrapValueBytesAsData(value, 0, len);
      if (e == null) {
        c.absentEntry().doInsert(data);
        return;
      }
      final Data<byte[]> stored = e.value();
      final int storedLen = (int) stored.size();
      if (len <= storedLen) {
        e.doReplaceValue(data);
        return;
      }
      if (prev.length < storedLen) {
        prev = new byte[Math.max(storedLen, prev.length * 2)];
        prevStore = BytesStore.wrap(prev);
      }
      stored.bytes().read(stored.offset(), prev, 0, storedLen);
      e.doRemove();
      try {
        c.absentEntry().doInsert(data);
      } catch (IllegalStateException full) {
        c.absentEntry().doInsert(c.wrapValueBytesAsData(prevStore, 0, storedLen));
        throw full;
      }
    }
  }

  /** Removes the entry of {@code key}, if any. */
  void remove(final KeyBuffer key) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e != null) {
        e.doRemove();
      }
    }
  }
}
