package io.inferencecache.engine.internal;

import java.util.Arrays;

/**
 * What the writer does when the map refuses a piece of a run it stores (engine/docs/design.md §5):
 * the run goes back to what the map held at its load, the map is made to hold exactly that, and
 * only then is each refused change named to the {@link RunStore.DropSink}, once. Writer only.
 */
final class RefusedRunRollback {
  private static final RunStore.DropSink NO_SINK =
      new RunStore.DropSink() {
        @Override
        public void dropped(
            final byte[] key,
            final int keyLength,
            final int replica,
            final int slot,
            final boolean keyGone) {}

        @Override
        public void refreshLost(final byte[] key, final int keyLength, final int replica) {}
      };

  private final RunEntries entries;
  private RunStore.DropSink sink = NO_SINK;
  private final KeyBuffer wk = new KeyBuffer();
  private final int[] tailHeads = new int[RunLayout.MAX_ROWS];

  // Cells a refused store reverted, packed row << 32 | col << 2 | outcome (RunImage.ADDED, ...).
  private long[] reverted = new long[64];

  RefusedRunRollback(final RunEntries entries) {
    this.entries = entries;
  }

  /** Where the refused changes are reported. */
  void sink(final RunStore.DropSink sink) {
    this.sink = sink;
  }

  /**
   * The map refused a piece of run {@code m} (possibly after a split-off tail was stored): every
   * cell changed since the load goes back to what the map held before, the map and the directory
   * are made to hold exactly that (the run key's entry, which shrinks or keeps its size, every
   * other row's directory entry naming it again, a split-off tail's run removed), and only then is
   * each reverted change reported, once. Removals since the load are kept (they were reported). Run
   * ids taken for tails are the writer's to give back.
   */
  void refused(final RunImage m) {
    m.materialize();
    int n = 0;
    for (int r = 0; r < m.rows; r++) {
      for (int c = 0; c < m.cols; c++) {
        final int outcome = m.revert(r, c);
        if (outcome != RunImage.KEPT) {
          if (n == reverted.length) {
            reverted = Arrays.copyOf(reverted, n * 2);
          }
          reverted[n++] = ((long) r << 32) | ((long) c << 2) | outcome;
        }
      }
    }
    try {
      restoreStored(m);
    } catch (IllegalStateException unexpected) {
      // Not reached: every write above replaces an existing entry with one no larger.
    }
    int keyGoneRow = -1;
    for (int k = 0; k < n; k++) {
      final int row = (int) (reverted[k] >>> 32);
      final int col = (int) (reverted[k] & 0xFFFFFFFFL) >>> 2;
      m.rowKey(row, wk);
      if ((reverted[k] & 3) == RunImage.ADDED) {
        final boolean keyGone = m.rowCount[row] == 0 && row != keyGoneRow;
        if (keyGone) {
          keyGoneRow = row;
        }
        sink.dropped(wk.bytes, wk.length, m.holders[col], m.slot(row, col), keyGone);
      } else {
        sink.refreshLost(wk.bytes, wk.length, m.holders[col]);
      }
    }
  }

  /**
   * Writes a reverted image back as one run (the content the map held at the load, less the
   * removals since, without segments: never larger than the stored entry, so replaced in place),
   * points every later row's directory entry at it (a refused split may have moved some to a tail),
   * removes a stored tail's run once no entry leads to it, and drops the entries of rows that no
   * longer exist.
   */
  private void restoreStored(final RunImage m) {
    final int live = m.liveRows();
    if (live > 0) {
      m.plain = true; // segments could make it larger than the stored entry: a removal adds some
      try {
        entries.putRun(m, 0, live);
      } finally {
        m.plain = false;
      }
    } else if (m.stored) {
      entries.removeRow(m, 0);
    }
    m.stored = live > 0;
    if (live > 1 && !entries.ensureRunId(m)) {
      // Not reached: a stored run of several rows has an id, and a new one has no live row.
      throw new IllegalStateException("no run id for a stored run");
    }
    // Every row's entry first, then the tails' runs: a reader finds each block before and after.
    int tails = 0;
    for (int r = 0; r < m.rows; r++) {
      if (r > 0 && m.dirVal[r] == BlockLocations.HEAD) {
        tailHeads[tails++] = r;
      }
      final int target =
          r >= live
              ? BlockLocations.NO_ENTRY
              : r == 0 ? BlockLocations.HEAD : BlockLocations.value(m.runId, r);
      entries.setDir(m, r, target);
    }
    for (int i = 0; i < tails; i++) {
      entries.removeRow(m, tailHeads[i]);
    }
    if (live <= 1) {
      entries.releaseRunId(m);
    }
  }
}
