package io.inferencecache.engine.internal;

import java.util.List;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

/**
 * The writer's side of a {@link RunStore}: upserts and removals applied to a decoded {@link
 * RunImage} of the run they change (engine/docs/design.md §3). Changes to the same run (a whole
 * chain's upserts, several evictions) are applied to the image and stored once, when the writer
 * moves to another run or calls {@link #flush()}. A store writes a split-off tail before its
 * locators and truncates the original last, so a concurrent reader always finds every block that
 * exists before and after the change (possibly in both places, with identical content). One thread
 * at a time (the index's writer).
 */
final class RunWriter {
  private static final int STARTED = 3; // probeOrStartRun: the image is a new run of the key

  private final RunEntries entries;
  private final RefusedRunRollback rollback;
  private final int maxRunBytes;
  private final RunImage img = new RunImage();
  private final RunRefresh refresh;

  /** The image holds a run the writer is changing (stored by the next {@link #flush()}). */
  private boolean open;

  /** The open image equals what is stored (nothing changed since it was inserted). */
  private boolean clean;

  /**
   * The query context (update lock held) in which the probe found a new run's first key absent: the
   * run is inserted in that same context once its first cell is set, so a key that starts a run
   * costs one Chronicle operation, like a key appended to a run (its locator's claim).
   */
  private ExternalMapQueryContext<byte[], byte[], ?> headInsert;

  RunWriter(final RunEntries entries, final RefusedRunRollback rollback, final int maxRunBytes) {
    this.entries = entries;
    this.rollback = rollback;
    this.maxRunBytes = maxRunBytes;
    this.refresh = new RunRefresh(entries.map);
  }

  /** The image of the run being changed (valid after a {@link #load}). */
  RunImage image() {
    return img;
  }

  /** The next upsert starts a new chain: a new block is not appended to the last one's run. */
  void chainStart() {
    refresh.forget();
    img.lastRow = -1;
  }

  /**
   * See {@link RunStore#refreshChain}. The general path's state after those upserts is kept where
   * it matters: a run the refresh ended on, with the chain going on past it, is rebuilt as the open
   * image when the next block turns out to be absent (it is appended to that run).
   */
  int refreshChain(
      final KeyBuffer key,
      final List<byte[]> hashes,
      final int from,
      final int[] tokens,
      final int replica,
      final long lastSeen,
      final int tier) {
    final RunImage m = img;
    final int p = KeyBuffer.partitionOf(key.bytes);
    if (open
        && m.partition == p
        && m.findRow(
                key.bytes,
                HolderLayout.KEY_PARTITION_BYTES,
                key.length - HolderLayout.KEY_PARTITION_BYTES)
            >= 0) {
      refresh.forget();
      return 0; // a block of the run being changed: the general path changes the image
    }
    if (!entries.readLocation(key)) {
      if (!open && refresh.reopenEnded(m, tokens, replica, lastSeen, tier)) {
        open = true;
        clean = false;
      }
      refresh.forget();
      return 0;
    }
    flush();
    return refresh.refresh(
        entries.location(), entries.locationRow(), hashes, from, tokens, replica, lastSeen, tier);
  }

  /** See {@link RunStore#upsert}. */
  int upsert(
      final KeyBuffer key,
      final int replica,
      final int tokens,
      final long lastSeen,
      final int tier,
      final CounterArena arena) {
    refresh.forget();
    final int row = locateForWrite(key, true);
    try {
      final RunImage m = img;
      final int col = m.column(replica);
      m.lastRow = row;
      final int i = row * m.cols + col;
      if (m.pal[i] >= 0) {
        m.pal[i] = m.intern(lastSeen, tokens - m.tokens[row], tier);
        return RunStore.REFRESHED;
      }
      final boolean newKey = m.rowCount[row] == 0;
      if (newKey) {
        m.tokens[row] = tokens;
      }
      final long sg = arena.allocate();
      m.slot[i] = (int) (sg >>> 16);
      m.gen[i] = (int) sg & 0xFFFF;
      m.pal[i] = m.intern(lastSeen, tokens - m.tokens[row], tier);
      m.rowCount[row]++;
      return newKey ? RunStore.NEW_KEY : RunStore.NEW_HOLDER;
    } finally {
      if (headInsert != null) {
        finishHeadInsert();
      }
    }
  }

  private void finishHeadInsert() {
    final ExternalMapQueryContext<byte[], byte[], ?> c = headInsert;
    headInsert = null;
    try {
      final RunImage m = img;
      entries.insertRun(c, m);
      m.stored = true;
      m.locatedRows = m.rows;
      clean = true;
    } catch (IllegalStateException full) {
      // The map refused to grow: the run stays unstored; flush() retries and reports the drop.
    } finally {
      c.close();
    }
  }

  /** See {@link RunStore#removeHolder}. */
  int removeHolder(final KeyBuffer key, final int replica, final HolderBuffer removed) {
    refresh.forget();
    final int row = locateForWrite(key, false);
    if (row < 0) {
      return -1;
    }
    final RunImage m = img;
    final int col = m.findColumn(replica);
    if (col < 0 || !m.present(row, col)) {
      return -1;
    }
    removed.ensureBytes(HolderLayout.RECORD_BYTES);
    m.copyCell(removed, 0, row, col);
    removed.count = 1;
    m.clear(row, col);
    m.lastRow = row;
    return m.rowCount[row] == 0 ? 0 : 1;
  }

  /** See {@link RunStore#removeKey}. */
  int removeKey(final KeyBuffer key, final HolderBuffer removed) {
    refresh.forget();
    removed.count = 0;
    final int row = locateForWrite(key, false);
    if (row < 0) {
      return 0;
    }
    final RunImage m = img;
    int n = 0;
    removed.ensureBytes(m.rowCount[row] * HolderLayout.RECORD_BYTES);
    for (int c = 0; c < m.cols; c++) {
      if (m.present(row, c)) {
        m.copyCell(removed, n++, row, c);
        m.clear(row, c);
      }
    }
    removed.count = n;
    m.lastRow = row;
    return n;
  }

  /** Stores the run the writer has been changing, if any. Never throws when full. */
  void flush() {
    refresh.forget();
    if (!open) {
      return;
    }
    open = false;
    if (clean) {
      clean = false;
      return;
    }
    final RunImage m = img;
    final int located = m.locatedRows;
    try {
      writeImage(m);
    } catch (IllegalStateException full) {
      rollback.refused(m, located);
    }
  }

  /** Loads the run stored under {@code head} into the image, to change it; false if none. */
  boolean load(final KeyBuffer head) {
    refresh.forget();
    if (!entries.load(head, img)) {
      return false;
    }
    clean = false;
    open = true;
    return true;
  }

  private void writeImage(final RunImage m) {
    final int live = m.liveRows();
    if (live == 0) {
      if (m.stored) {
        entries.removeRow(m, 0);
        for (int r = 1; r < m.locatedRows; r++) {
          entries.removeRow(m, r);
        }
      }
      return;
    }
    final int per = m.rowsPerPiece(maxRunBytes);
    final int first = Math.min(live, per);
    int lastStart = first;
    while (lastStart + per < live) {
      lastStart += per;
    }
    // Split-off tails first (their run entries, then their locators), the first piece last.
    for (int s = lastStart; s >= first && s < live; s -= per) {
      final int end = Math.min(live, s + per);
      entries.putRun(m, s, end);
      for (int r = s + 1; r < end; r++) {
        entries.putLocator(m, r, s);
      }
      if (s == first) {
        break;
      }
    }
    entries.putRun(m, 0, first);
    for (int r = Math.max(1, m.locatedRows); r < first; r++) {
      entries.putLocator(m, r, 0);
    }
    for (int r = Math.max(live, 1); r < m.locatedRows; r++) {
      entries.removeRow(m, r);
    }
  }

  /**
   * Positions the image on the run holding {@code key} and returns its row; with {@code create},
   * adds an absent key (appended to the run of the chain's previous block when that block ends its
   * run, else as a new run); without, returns -1 for an absent key.
   */
  private int locateForWrite(final KeyBuffer key, final boolean create) {
    final int p = KeyBuffer.partitionOf(key.bytes);
    final int len = key.length - HolderLayout.KEY_PARTITION_BYTES;
    final RunImage m = img;
    if (open && m.partition == p) {
      final int r = m.findRow(key.bytes, HolderLayout.KEY_PARTITION_BYTES, len);
      if (r >= 0) {
        clean = false;
        return r;
      }
    }
    final boolean canAppend =
        create
            && open
            && m.partition == p
            && m.hashLen == len
            && m.lastRow >= 0
            && m.lastRow == m.rows - 1
            && m.rows < RunLayout.MAX_ROWS;
    final int where =
        create && !canAppend
            ? probeOrStartRun(key, p, len)
            : entries.locateOrClaim(key, canAppend, m);
    if (where == STARTED) {
      return 0;
    }
    if (where == RunEntries.FOUND) {
      final int lastRow = open ? m.lastRow : -1;
      flush();
      if (load(entries.location())) {
        final int locRow = entries.locationRow();
        if (locRow < m.rows
            && m.findRow(key.bytes, HolderLayout.KEY_PARTITION_BYTES, len) == locRow) {
          clean = false;
          return locRow;
        }
        m.lastRow = lastRow;
      }
      // A locator that does not lead to its block: drop it and treat the key as absent.
      entries.remove(key);
      return create ? startRun(key, p, len) : -1;
    }
    if (!create) {
      return -1;
    }
    if (where == RunEntries.CLAIMED) {
      final int r = m.appendRow(key.bytes, HolderLayout.KEY_PARTITION_BYTES, 0);
      m.locatedRows = m.rows;
      clean = false;
      return r;
    }
    return startRun(key, p, len);
  }

  private int startRun(final KeyBuffer key, final int p, final int len) {
    flush();
    img.reset(p, len);
    open = true;
    clean = false;
    return img.appendRow(key.bytes, HolderLayout.KEY_PARTITION_BYTES, 0);
  }

  /**
   * For a key that cannot extend the open run: stores the open run, then probes the key with the
   * update lock; {@link RunEntries#FOUND} (its location read, the lock released), or {@link
   * #STARTED}: the image is a new run of this one key and {@link #headInsert} keeps the context for
   * its insert.
   */
  private int probeOrStartRun(final KeyBuffer key, final int p, final int len) {
    flush();
    final ExternalMapQueryContext<byte[], byte[], ?> c =
        entries.map.queryContext(key.store, 0, key.length);
    boolean keep = false;
    try {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e != null) {
        return entries.readLocation(e, key) ? RunEntries.FOUND : RunEntries.ABSENT;
      }
      startRun(key, p, len);
      headInsert = c;
      keep = true;
      return STARTED;
    } finally {
      if (!keep) {
        c.close();
      }
    }
  }
}
