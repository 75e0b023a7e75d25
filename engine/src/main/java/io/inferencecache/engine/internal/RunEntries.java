package io.inferencecache.engine.internal;

import java.util.function.IntFunction;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The writer's operations on a {@link RunStore}'s map and {@link BlockLocations}, one entry at a
 * time: a run image's pieces written as entries ({@link RunLayout}), entries removed, a key's
 * location read from the directory (checked against the run it names), a run read back as an image
 * with its run id bound, and each row's directory entry set. Owns the encode and decode buffers.
 * Writer thread only; a write that finds the map full throws {@link IllegalStateException} and
 * leaves the entry as it was.
 */
final class RunEntries {
  /** {@link #locateOrClaim} outcome: the key is not stored. */
  static final int ABSENT = 0;

  /** {@link #locateOrClaim} outcome: the key is stored; its location is read. */
  static final int FOUND = 1;

  /** {@link #locateOrClaim} outcome: the key was absent and now has its directory entry. */
  static final int CLAIMED = 2;

  final ChronicleMap<byte[], byte[]> map;

  // Where the last readLocation() found its key: the run's key and the key's row in it.
  private final KeyBuffer loc = new KeyBuffer();
  private int locRow;

  private final KeyBuffer wk = new KeyBuffer();

  // Where a run is encoded before it is stored: native memory, because Chronicle copies a value
  // from native memory in one memory copy but from a heap array eight bytes at a time through an
  // interface call (a quarter of the time it took to store a run of hundreds of columns). Released
  // by close().
  private BytesStore<?, ?> stage = BytesStore.nativeStoreWithFixedCapacity(4096);
  private final UnsafeBuffer target = new UnsafeBuffer(0L, 0);
  private final IntFunction<UnsafeBuffer> reserve = this::reserve;
  private byte[] in = new byte[4096];
  final BlockLocations directory;
  private final BlockDirectory.Probe probe = new BlockDirectory.Probe();
  private final RunCursor check = new RunCursor();
  private int lastFp; // the fingerprint readLocation() last computed

  // The value put() replaces while it inserts a larger one (restored if the insert is refused).
  private byte[] prev = new byte[4096];
  private BytesStore<?, byte[]> prevStore = BytesStore.wrap(prev);

  RunEntries(final ChronicleMap<byte[], byte[]> map, final BlockLocations directory) {
    this.map = map;
    this.directory = directory;
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

  /**
   * Reads where {@code key} is: sets {@link #location()} and {@link #locationRow()}. Asks the
   * directory first, so a key that is not stored costs no Chronicle probe (unless its fingerprint
   * has a candidate, which is then checked against the run it names).
   */
  boolean readLocation(final KeyBuffer key) {
    final int p = KeyBuffer.partitionOf(key.bytes);
    lastFp = directory.fingerprint(key);
    final BlockDirectory.Probe pr = probe.start(directory.table(), lastFp);
    boolean headChecked = false;
    while (pr.next()) {
      final int v = pr.value();
      if (v == BlockLocations.HEAD) {
        if (!headChecked && isRun(key)) {
          loc.setRaw(key.bytes, key.length);
          locRow = 0;
          return true;
        }
        headChecked = true;
        continue;
      }
      final int row = BlockLocations.rowOf(v);
      if (directory.headKey(BlockLocations.runOf(v), p, key.length, loc)
          && check.openAt(map, loc, row, key)) {
        check.close();
        locRow = row;
        return true;
      }
    }
    return false;
  }

  /**
   * Whether the directory has a {@link BlockLocations#HEAD} candidate for {@code key}: it is, most
   * likely, a run's key (unconfirmed: fingerprints collide). No Chronicle probe.
   */
  boolean headCandidate(final KeyBuffer key) {
    final BlockDirectory.Probe pr = probe.start(directory.table(), directory.fingerprint(key));
    while (pr.next()) {
      if (pr.value() == BlockLocations.HEAD) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code key} is the key of a run in the map. */
  private boolean isRun(final KeyBuffer key) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(key.store, 0, key.length)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      return e != null && isRun(e.value());
    }
  }

  static boolean isRun(final Data<byte[]> v) {
    return v.size() >= RunLayout.UNIT_HEADER_BYTES
        && v.bytes().readByte(v.offset()) == RunLayout.RUN_TAG;
  }

  /**
   * Sets {@code m}'s run id and the directory values of its later rows from the directory (after a
   * decode): the id is the one whose entry for row 1's key names row 1 and this run's first key.
   */
  void bindRun(final RunImage m) {
    m.runId = BlockLocations.NO_RUN;
    if (m.rows <= 1) {
      return;
    }
    m.rowKey(1, wk);
    final int keyLength = wk.length;
    final BlockDirectory.Probe pr = probe.start(directory.table(), directory.fingerprint(wk));
    while (pr.next()) {
      final int v = pr.value();
      if (v == BlockLocations.HEAD || BlockLocations.rowOf(v) != 1) {
        continue;
      }
      if (directory.headKey(BlockLocations.runOf(v), m.partition, keyLength, wk)
          && m.findRow(wk.bytes, HolderLayout.KEY_PARTITION_BYTES, m.hashLen) == 0) {
        m.runId = BlockLocations.runOf(v);
        for (int r = 1; r < m.rows; r++) {
          m.dirVal[r] = BlockLocations.value(m.runId, r);
        }
        return;
      }
    }
  }

  /**
   * Decodes the run stored under {@code head} into {@code into}, its run id and directory values
   * bound; false if there is none.
   */
  boolean load(final KeyBuffer head, final RunImage into) {
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(head.store, 0, head.length)) {
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null || !decode(e.value(), head, into)) {
        return false;
      }
    }
    bindRun(into);
    return true;
  }

  /**
   * Decodes {@code v}, the value stored under {@code head}, into {@code into} if it is a run (its
   * run id not bound: scans that only read).
   */
  boolean decode(final Data<byte[]> v, final KeyBuffer head, final RunImage into) {
    final int size = (int) v.size();
    if (size < RunLayout.UNIT_HEADER_BYTES || v.bytes().readByte(v.offset()) != RunLayout.RUN_TAG) {
      return false;
    }
    if (in.length < size) {
      in = new byte[Math.max(size, in.length * 2)];
    }
    v.bytes().read(v.offset(), in, 0, size);
    into.decode(head, in, size);
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Writes

  /**
   * Finds a key the writer is about to change: {@link #FOUND} (its location read), or {@link
   * #ABSENT}; with {@code claim}, an absent key gets a directory entry as the next row of {@code m}
   * and the answer is {@link #CLAIMED} (the caller appends the row). Until the run itself is
   * stored, readers following that entry find no such row: the key is absent. A key that is not
   * stored costs directory work only. {@link #ABSENT} with {@code claim} when every run id is taken
   * (the key then starts a run of its own).
   */
  int locateOrClaim(final KeyBuffer key, final boolean claim, final RunImage m) {
    if (readLocation(key)) {
      return FOUND;
    }
    if (!claim || !ensureRunId(m)) {
      return ABSENT;
    }
    directory.change(lastFp, BlockLocations.NO_ENTRY, BlockLocations.value(m.runId, m.rows));
    return CLAIMED;
  }

  /**
   * Enters {@code key}, a run key of the map the directory lacks, as a {@link BlockLocations#HEAD}.
   */
  void repairHead(final KeyBuffer key) {
    directory.change(directory.fingerprint(key), BlockLocations.NO_ENTRY, BlockLocations.HEAD);
    loc.setRaw(key.bytes, key.length);
    locRow = 0;
  }

  /** Gives {@code m} a run id if it has none; false when every id is taken. */
  boolean ensureRunId(final RunImage m) {
    if (m.runId != BlockLocations.NO_RUN) {
      return true;
    }
    m.rowKey(0, wk);
    m.runId = directory.register(wk);
    return m.runId != BlockLocations.NO_RUN;
  }

  /**
   * A new run id for the run that row {@code row} of {@code m} starts, or {@link
   * BlockLocations#NO_RUN}.
   */
  int registerRun(final RunImage m, final int row) {
    m.rowKey(row, wk);
    return directory.register(wk);
  }

  /** Makes the directory hold {@code value} for row {@code row}'s key ({@code NO_ENTRY}: none). */
  void setDir(final RunImage m, final int row, final int value) {
    final int was = m.dirVal[row];
    if (was == value) {
      return;
    }
    m.rowKey(row, wk);
    directory.change(directory.fingerprint(wk), was, value);
    m.dirVal[row] = value;
  }

  /** Gives {@code m}'s run id back (no entry names it any more). */
  void releaseRunId(final RunImage m) {
    directory.release(m.runId);
    m.runId = BlockLocations.NO_RUN;
  }

  /** Inserts all of {@code m} as one run in {@code c}, a context whose key was found absent. */
  void insertRun(final ExternalMapQueryContext<byte[], byte[], ?> c, final RunImage m) {
    final int len = m.encode(0, m.rows, reserve);
    c.absentEntry().doInsert(c.wrapValueBytesAsData(stage, 0, len));
  }

  /** Stores rows {@code from..to-1} of {@code m} as one run under row {@code from}'s key. */
  void putRun(final RunImage m, final int from, final int to) {
    final int len = m.encode(from, to, reserve);
    m.rowKey(from, wk);
    if (from == 0) {
      put(wk, stage, len, m.storedRun(), m.storedRunLength());
      m.storedRunReplaced();
    } else {
      put(wk, stage, len, null, 0);
    }
  }

  /** {@link #target} over the first {@code len} bytes of {@link #stage}, grown as needed. */
  private UnsafeBuffer reserve(final int len) {
    if (stage.capacity() < len) {
      // the new store first: if it cannot be allocated, the old one is still there, not freed
      final BytesStore<?, ?> grown =
          BytesStore.nativeStoreWithFixedCapacity(Math.max(len, stage.capacity() * 2));
      stage.releaseLast();
      stage = grown;
    }
    target.wrap(stage.addressForWrite(0), len);
    return target;
  }

  /** Frees the native memory {@link #stage} holds (once; a second close does nothing). */
  void close() {
    if (stage.refCount() > 0) {
      stage.releaseLast();
    }
  }

  /** Removes the map entry of row {@code row}'s key (a run's), if any. */
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
   * removal freed. {@code known}, if not null, is what the caller read from the entry, {@code
   * knownLen} bytes: then the entry is not copied again (unless its length says otherwise).
   */
  private void put(
      final KeyBuffer key,
      final BytesStore<?, ?> value,
      final int len,
      final byte[] known,
      final int knownLen) {
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
      final boolean copy = known == null || knownLen != storedLen;
      if (copy) {
        if (prev.length < storedLen) {
          prev = new byte[Math.max(storedLen, prev.length * 2)];
          prevStore = BytesStore.wrap(prev);
        }
        stored.bytes().read(stored.offset(), prev, 0, storedLen);
      }
      e.doRemove();
      try {
        c.absentEntry().doInsert(data);
      } catch (IllegalStateException full) {
        final BytesStore<?, byte[]> old = copy ? prevStore : BytesStore.wrap(known);
        c.absentEntry().doInsert(c.wrapValueBytesAsData(old, 0, storedLen));
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
