package io.inferencecache.engine.internal;

import java.util.List;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;

/**
 * The writer's side of a {@link RunStore}: upserts and removals applied to a decoded {@link
 * RunImage} of the run they change (engine/docs/design.md §3). Changes to the same run (a whole
 * chain's upserts, several evictions) are applied to the image and stored once, when the writer
 * moves to another run or calls {@link #flush()}. A store writes a split-off tail, then points its
 * blocks' directory entries at it, and truncates the original last, so a concurrent reader always
 * finds every block that exists before and after the change (possibly in both places, with
 * identical content). A new block costs directory work only; a run costs one Chronicle operation
 * when it starts and one when it is stored. One thread at a time (the index's writer).
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
   * The query context (update lock held) in which a new run's first key is inserted once its first
   * cell is set, so that a key that starts a run costs one Chronicle operation.
   */
  private ExternalMapQueryContext<byte[], byte[], ?> headInsert;

  // Run ids taken for the split-off tails of the image being stored (given back if it is refused).
  private int[] pieceIds = new int[8];
  private int pieceCount;

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
    if (!open && !refresh.hasEnded() && entries.headCandidate(key)) {
      // Most often a chain reported again from its first block, a run's key: the refresh's read of
      // the entry confirms the directory's candidate (no probe of its own), and a declined refresh
      // leaves the run open for the upserts that follow. Nothing is open, so nothing to store.
      final int n = refresh.refresh(key, 0, hashes, from, tokens, replica, lastSeen, tier);
      if (refresh.foundRun()) {
        openDeclined(n, key);
        return n;
      }
      // a fingerprint's candidate, not this key's run: the directory's other candidates below
    }
    if (!entries.readLocation(key)) {
      if (!open && refresh.reopenEnded(m, tokens, replica, lastSeen, tier)) {
        entries.bindRun(m);
        open = true;
        clean = false;
      }
      refresh.forget();
      return 0;
    }
    flush();
    final KeyBuffer at = entries.location();
    final int n =
        refresh.refresh(at, entries.locationRow(), hashes, from, tokens, replica, lastSeen, tier);
    openDeclined(n, at);
    return n;
  }

  /**
   * After a refresh of the run under {@code head} that returned {@code n}: if it declined, the
   * upsert of the block that follows changes that run, so the run it read is opened, as stored,
   * without a second read of the entry (a new holder of a stored chain, most often).
   */
  private void openDeclined(final int n, final KeyBuffer head) {
    if (n == 0 && refresh.decodeDeclined(head, img)) {
      entries.bindRun(img);
      open = true;
      clean = true;
    }
  }

  /**
   * Whether the open image has rows for blocks {@code hashes[from]} and {@code hashes[to - 1]} of
   * partition {@code partition}: a chain reported again over the run being changed (a holder added
   * to it, most often), whose upserts find their rows in the image, so reading their directory
   * slots ahead ({@link RunStore#prefetch}) would only cost the misses it is meant to hide.
   */
  boolean imageHolds(final int partition, final List<byte[]> hashes, final int from, final int to) {
    if (!open || img.partition != partition) {
      return false;
    }
    final byte[] first = hashes.get(from);
    final byte[] last = hashes.get(to - 1);
    return first != null
        && last != null
        && img.findRow(first, 0, first.length) >= 0
        && img.findRow(last, 0, last.length) >= 0;
  }

  /** See {@link RunStore#upsert}. */
  int upsert(
      final KeyBuffer key,
      final int replica,
      final int tokens,
      final long lastSeen,
      final int tier,
      final CounterArena arena,
      final boolean counter) {
    refresh.forget();
    final int row = locateForWrite(key, true);
    try {
      final RunImage m = img;
      final int col = m.column(replica);
      m.lastRow = row;
      if (m.present(row, col)) {
        m.setPal(row, col, m.intern(lastSeen, tokens - m.tokens[row], tier));
        return RunStore.REFRESHED;
      }
      final boolean newKey = m.rowCount[row] == 0;
      if (newKey) {
        m.tokens[row] = tokens;
      }
      final long sg = arena.allocate(counter);
      m.setCell(
          row,
          col,
          (int) (sg >>> 16),
          (int) sg & 0xFFFF,
          m.intern(lastSeen, tokens - m.tokens[row], tier));
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
      entries.setDir(m, 0, BlockLocations.HEAD);
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
    try {
      writeImage(m);
    } catch (IllegalStateException full) {
      rollback.refused(m);
      for (int i = 0; i < pieceCount; i++) {
        entries.directory.release(pieceIds[i]);
      }
    } finally {
      pieceCount = 0;
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

  /**
   * Stores the image: its split-off tails first (each tail's run, then its rows' directory entries:
   * its first key a {@link BlockLocations#HEAD}, the others its new run id), the first piece last,
   * so a concurrent reader finds every block before and after; then no entries for rows trimmed
   * away. A piece the map refuses (its segment is full) is stored as two halves, each under its own
   * first key and so in its own segment, down to single rows; only a refused single row throws (the
   * caller then rolls back).
   */
  private void writeImage(final RunImage m) {
    final int live = m.liveRows();
    if (live == 0) {
      if (m.stored) {
        entries.removeRow(m, 0);
        m.stored = false;
      }
      for (int r = 0; r < m.rows; r++) {
        entries.setDir(m, r, BlockLocations.NO_ENTRY);
      }
      entries.releaseRunId(m);
      return;
    }
    final int per = pieceRows(m, live, maxRunBytes);
    // With no run id left, the run keeps its first row and the rest go as one-row runs (no id).
    final int first = Math.min(live, per) > 1 && !entries.ensureRunId(m) ? 1 : Math.min(live, per);
    int lastStart = first;
    while (lastStart + per < live) {
      lastStart += per;
    }
    for (int s = lastStart; s >= first && s < live; s -= per) {
      storeTail(m, s, Math.min(live, s + per));
    }
    final int headEnd = storeHead(m, first);
    for (int r = live; r < m.rows; r++) {
      entries.setDir(m, r, BlockLocations.NO_ENTRY);
    }
    if (headEnd == 1) {
      entries.releaseRunId(m);
    }
  }

  /**
   * The rows of each piece when rows {@code [0, live)} of {@code m} are stored as runs of at most
   * {@code maxBytes}: all of them when they fit in one run; otherwise the fewest pieces of equal
   * length (the last may be shorter) whose encodings each fit, measured, not bounded. Equal pieces
   * keep a run that outgrows the limit as columns are added (hundreds of replicas reporting one
   * chain) in a few long runs, read with a probe and a segment per column each, where cutting off
   * the most rows that fit left a tail that the next growth cut again, down to runs too short for
   * segments.
   */
  static int pieceRows(final RunImage m, final int live, final int maxBytes) {
    final int worst = m.worstRowsPerPiece(maxBytes);
    final int whole = Math.min(live, RunLayout.MAX_ROWS);
    if (worst >= whole) {
      return whole;
    }
    final long total = m.measure(0, live);
    int pieces =
        (int)
            Math.max(
                (live + RunLayout.MAX_ROWS - 1) / RunLayout.MAX_ROWS,
                (total + maxBytes - 1) / maxBytes);
    while (true) {
      final int per = (live + pieces - 1) / pieces;
      if (per <= worst) {
        return per; // fits whatever the cells name
      }
      boolean fits = true;
      for (int s = 0; s < live && fits; s += per) {
        fits = m.measure(s, Math.min(live, s + per)) <= maxBytes;
      }
      if (fits) {
        return per;
      }
      pieces++;
    }
  }

  /**
   * Stores rows {@code [s, end)} as a run of their own (a new run id), halving it if the map
   * refuses it, and as one-row runs (which need no id) if no run id is left.
   */
  private void storeTail(final RunImage m, final int s, final int end) {
    int id = BlockLocations.NO_RUN;
    if (end - s > 1) {
      id = entries.registerRun(m, s);
      if (id == BlockLocations.NO_RUN) {
        for (int r = end - 1; r >= s; r--) {
          storeTail(m, r, r + 1);
        }
        return;
      }
    }
    try {
      entries.putRun(m, s, end);
    } catch (IllegalStateException full) {
      entries.directory.release(id);
      if (end - s == 1) {
        throw full;
      }
      final int mid = s + (end - s) / 2;
      storeTail(m, mid, end);
      storeTail(m, s, mid);
      return;
    }
    if (id != BlockLocations.NO_RUN) {
      if (pieceCount == pieceIds.length) {
        pieceIds = java.util.Arrays.copyOf(pieceIds, pieceCount * 2);
      }
      pieceIds[pieceCount++] = id;
    }
    entries.setDir(m, s, BlockLocations.HEAD);
    for (int r = s + 1; r < end; r++) {
      entries.setDir(m, r, BlockLocations.value(id, r - s));
    }
  }

  /**
   * Stores rows {@code [0, end)} under the run's own key, the later half as a tail first if the map
   * refuses them; returns how many rows the run's own entry kept.
   */
  private int storeHead(final RunImage m, final int end) {
    try {
      entries.putRun(m, 0, end);
    } catch (IllegalStateException full) {
      if (end == 1) {
        throw full;
      }
      final int mid = end / 2;
      storeTail(m, mid, end);
      return storeHead(m, mid);
    }
    m.stored = true;
    entries.setDir(m, 0, BlockLocations.HEAD);
    for (int r = 1; r < end; r++) {
      entries.setDir(m, r, BlockLocations.value(m.runId, r));
    }
    return end;
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
      // Not reached: the location was checked against its run just before.
      return create ? startRun(key, p, len) : -1;
    }
    if (!create) {
      return -1;
    }
    if (where == RunEntries.CLAIMED) {
      final int r = m.appendRow(key.bytes, HolderLayout.KEY_PARTITION_BYTES, 0);
      m.dirVal[r] = BlockLocations.value(m.runId, r);
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
   * For a key that cannot extend the open run: stores the open run, then looks the key up (in the
   * directory: no Chronicle probe for a new key); {@link RunEntries#FOUND} (its location read), or
   * {@link #STARTED}: the image is a new run of this one key and {@link #headInsert} keeps the
   * context (update lock held, the key absent) for its insert.
   */
  private int probeOrStartRun(final KeyBuffer key, final int p, final int len) {
    flush();
    if (entries.readLocation(key)) {
      return RunEntries.FOUND;
    }
    final ExternalMapQueryContext<byte[], byte[], ?> c =
        entries.map.queryContext(key.store, 0, key.length);
    boolean keep = false;
    try {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e != null) {
        // Not reached while the directory holds every run key. A run it lacks is entered (and
        // found); anything else under a block key is no run and is removed.
        if (RunEntries.isRun(e.value())) {
          entries.repairHead(key);
          return RunEntries.FOUND;
        }
        e.doRemove();
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
