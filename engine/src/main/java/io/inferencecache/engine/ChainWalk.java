package io.inferencecache.engine;

import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.RunCursor;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.RunVisitor;

/**
 * The chain walk of a lookup (docs/behaviour.md#lookup-walk; engine/docs/design.md §4): which
 * replicas hold the longest leading run of the request's chain, with the oldest timestamp, the
 * worst tier and the matched tokens of each, and (when asked) the LFU entries the match touched.
 * Scores are the caller's ({@link Lookups}).
 *
 * <p>One probe per stored run the chain passes through, each a {@link RunCursor#visit} that runs
 * {@link #visit} on the run in place under Chronicle's segment read lock; inside a run the chain is
 * followed in stretches of up to {@link #STRETCH} rows: the request's next hashes are compared with
 * the run's next rows first (that does not depend on the holders), then each surviving replica's
 * column is read down the stretch: by its segments when the run has them ({@link
 * RunCursor#hasSegments()}: one read per segment crossed), otherwise cell by cell in a tight loop
 * while the cells name the palette entry already checked. Only a change of palette entry is looked
 * at (absent: the replica's run ends; stale: it ends; otherwise its oldest timestamp and worst tier
 * move). The answer is the same as walking block after block with every replica: each replica's run
 * ends at the first block it does not hold fresh, whatever the others do. Allocation-free; all
 * state lives in the thread's {@link LookupResult}.
 */
final class ChainWalk implements RunVisitor {
  /**
   * Most rows followed before the surviving columns are read: bounds the hash comparisons wasted
   * when every replica's run ends early in a long run.
   */
  static final int STRETCH = 64;

  // The walk in progress (one per thread: it lives in the thread's LookupResult).
  private LookupRequest q;
  private LookupResult r;
  private long now;
  private long ttl;
  private boolean credit;
  private int b; // the chain's next block to follow
  private int alive; // replica runs still alive

  /**
   * Walks {@code q}'s chain in partition {@code partition} of {@code store}, leaving one run per
   * replica that held block 0 fresh in {@code r} ({@code runs}, {@code runReplica}, {@code
   * runMatched}, {@code runOldest}, {@code runTier}). Records LFU credits only when {@code credit}.
   */
  void walk(
      final LookupRequest q,
      final LookupResult r,
      final RunStore store,
      final int partition,
      final long now,
      final long ttl,
      final boolean credit) {
    this.q = q;
    this.r = r;
    this.now = now;
    this.ttl = ttl;
    this.credit = credit;
    b = 0;
    alive = 0;
    final int blocks = q.hashCount;
    final KeyBuffer k = r.key;
    try {
      while (b < blocks && (b == 0 || alive > 0)) {
        if (!k.set(partition, q.chainBytes, q.hashOffset[b], q.hashLength[b])
            || !r.cursor.visit(store, k, this)) {
          return;
        }
      }
    } finally {
      this.q = null;
      this.r = null;
    }
  }

  /** One stored run, open at the probed block {@link #b}: follows the chain down it. */
  @Override
  public void visit(final RunCursor cur) {
    final LookupRequest q = this.q;
    final LookupResult r = this.r;
    final int blocks = q.hashCount;
    final byte[] chain = q.chainBytes;
    final int[] offs = q.hashOffset;
    final int[] lens = q.hashLength;
    final int[] counts = q.counts;
    int b = this.b;
    int alive;
    int row = cur.row();
    final int rows = cur.rows();
    // Rows known to follow the chain without comparing hashes: the probed key's own row.
    int known;
    if (b == 0) {
      alive = seed(r, cur, row, counts[0], now, ttl, credit);
      b = 1;
      row++;
      known = 0;
    } else {
      alive = mapColumns(r, cur, cur.cols());
      known = 1;
    }
    while (alive > 0 && b < blocks && row < rows) {
      final int limit = Math.min(Math.min(rows - row, blocks - b), STRETCH);
      final int n =
          known + cur.matchingRows(row + known, limit - known, chain, offs, lens, b + known);
      if (n == 0) {
        break; // the chain leaves the run here: probe its next block
      }
      alive = follow(r, cur, row, n, b, counts, now, ttl, credit, alive);
      b += n;
      row += n;
      known = 0;
      if (n < limit) {
        break;
      }
    }
    this.b = b;
    this.alive = alive;
  }

  /** Block 0: one run per replica holding it fresh (columns are in replica order, so runs are). */
  private static int seed(
      final LookupResult r,
      final RunCursor cur,
      final int row,
      final int tokens,
      final long now,
      final long ttl,
      final boolean credit) {
    final int cols = cur.cols();
    r.ensureRuns(cols);
    for (int c = 0; c < cols; c++) {
      final long cell = cur.cellWord(row, c);
      final int ref = RunCursor.paletteRefOf(cell);
      if (ref == 0) {
        continue;
      }
      final long seen = cur.seen(ref);
      if (now - seen >= ttl) {
        continue; // freshness 0
      }
      final int run = r.runs++;
      r.runReplica[run] = cur.holder(c);
      r.runMatched[run] = tokens;
      r.runOldest[run] = seen;
      r.runTier[run] = cur.tier(ref);
      r.runAlive[run] = true;
      r.runDelivered[run] = false;
      r.runScratch[run] = c;
      r.runRef[run] = ref;
      if (credit) {
        r.addCreditCell(run, RunCursor.creditWordOf(cell));
      }
    }
    return r.runs;
  }

  /**
   * Maps each live run to its replica's column in the newly opened run (runs and columns are both
   * in replica order: one merge); a replica without a column dies. Returns the runs still alive.
   */
  private static int mapColumns(final LookupResult r, final RunCursor cur, final int cols) {
    int c = 0;
    int alive = 0;
    for (int run = 0; run < r.runs; run++) {
      if (!r.runAlive[run]) {
        continue;
      }
      final int replica = r.runReplica[run];
      while (c < cols && cur.holder(c) < replica) {
        c++;
      }
      if (c < cols && cur.holder(c) == replica) {
        r.runScratch[run] = c;
        r.runRef[run] = 0;
        alive++;
      } else {
        r.runAlive[run] = false;
      }
    }
    return alive;
  }

  /**
   * Extends every live run down rows {@code row .. row + n - 1} of the open run, which are the
   * chain's blocks {@code b .. b + n - 1}. Returns the runs still alive (those that held all n).
   */
  private static int follow(
      final LookupResult r,
      final RunCursor cur,
      final int row,
      final int n,
      final int b,
      final int[] counts,
      final long now,
      final long ttl,
      final boolean credit,
      final int aliveBefore) {
    // tokens[i]: the request's tokens of blocks b .. b + i - 1.
    final int[] tokens = r.stretchTokens;
    int sum = 0;
    tokens[0] = 0;
    for (int i = 0; i < n; i++) {
      sum += counts[b + i];
      tokens[i + 1] = sum;
    }
    if (credit) {
      r.reserveCredits(aliveBefore * n);
    }
    int alive = aliveBefore;
    final int runs = r.runs;
    final boolean segments = cur.hasSegments();
    for (int run = 0; run < runs; run++) {
      if (!r.runAlive[run]) {
        continue;
      }
      final int col = r.runScratch[run];
      final int held =
          segments
              ? heldBySegments(r, cur, run, col, row, n, now, ttl)
              : heldByCells(r, cur, run, col, row, n, now, ttl);
      r.runMatched[run] += tokens[held];
      if (credit) {
        for (int i = 0; i < held; i++) {
          r.addCreditCellReserved(run, RunCursor.creditWordOf(cur.cellWord(row + i, col)));
        }
      }
      if (held < n) {
        r.runAlive[run] = false;
        alive--;
      }
    }
    return alive;
  }

  /**
   * How many of rows {@code row .. row + n - 1} replica run {@code run} (column {@code col}) holds
   * fresh, read cell by cell; moves the run's oldest timestamp, worst tier and checked palette
   * entry.
   */
  private static int heldByCells(
      final LookupResult r,
      final RunCursor cur,
      final int run,
      final int col,
      final int row,
      final int n,
      final long now,
      final long ttl) {
    int ref = r.runRef[run];
    int held = 0;
    while (held < n) {
      if (ref != 0) { // 0: no entry checked yet in this run (just mapped)
        // The common case: the cell names the palette entry already checked.
        while (held < n && RunCursor.paletteRefOf(cur.cellWord(row + held, col)) == ref) {
          held++;
        }
        if (held == n) {
          break;
        }
      }
      final int next = RunCursor.paletteRefOf(cur.cellWord(row + held, col));
      if (next == 0 || !check(r, cur, run, next, now, ttl)) {
        break; // not held, or stale
      }
      ref = next;
      held++;
    }
    r.runRef[run] = ref;
    return held;
  }

  /**
   * {@link #heldByCells} read from the column's segments ({@link RunCursor#hasSegments()}): one
   * read per segment the rows cross instead of one per cell.
   */
  private static int heldBySegments(
      final LookupResult r,
      final RunCursor cur,
      final int run,
      final int col,
      final int row,
      final int n,
      final long now,
      final long ttl) {
    final int end = cur.endSegment(col);
    int s = cur.firstSegment(col);
    while (s + 1 < end && cur.segmentRow(s + 1) <= row) {
      s++;
    }
    int ref = r.runRef[run];
    int held = 0;
    for (; held < n && s < end; s++) {
      final int next = cur.segmentRef(s);
      if (next == 0 || next != ref && !check(r, cur, run, next, now, ttl)) {
        break; // not held, or stale
      }
      ref = next;
      held = Math.min(n, (s + 1 < end ? cur.segmentRow(s + 1) : cur.rows()) - row);
    }
    r.runRef[run] = ref;
    return held;
  }

  /**
   * Whether palette entry {@code ref}, newly met by run {@code run}, is fresh; if so the run's
   * oldest timestamp and worst tier take it in.
   */
  private static boolean check(
      final LookupResult r,
      final RunCursor cur,
      final int run,
      final int ref,
      final long now,
      final long ttl) {
    final long seen = cur.seen(ref);
    if (now - seen >= ttl) {
      return false;
    }
    if (seen < r.runOldest[run]) {
      r.runOldest[run] = seen;
    }
    r.runTier[run] = HolderLayout.worstTier(r.runTier[run], cur.tier(ref));
    return true;
  }
}
