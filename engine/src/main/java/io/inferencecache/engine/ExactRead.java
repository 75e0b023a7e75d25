package io.inferencecache.engine;

import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.RunCursor;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.RunVisitor;

/**
 * The read of an exact-hash lookup (docs/behaviour.md#lookup-walk, a request without a chain):
 * every replica holding the key fresh, as one run each in the thread's {@link LookupResult} ({@code
 * runReplica}, {@code runMatched} = its stored tokens, {@code runOldest} = its last report, {@code
 * runTier}), in column order, with its LFU entry when asked. Scores are the caller's ({@link
 * Lookups}). One per thread (it lives in the thread's {@link LookupResult}).
 */
final class ExactRead implements RunVisitor {
  private LookupResult r;
  private long now;
  private long ttl;
  private boolean credit;

  /** Reads key {@code k} of {@code store} into {@code r}; false if the key is not stored. */
  boolean read(
      final LookupResult r,
      final RunStore store,
      final KeyBuffer k,
      final long now,
      final long ttl,
      final boolean credit) {
    this.r = r;
    this.now = now;
    this.ttl = ttl;
    this.credit = credit;
    try {
      return r.cursor.visit(store, k, this);
    } finally {
      this.r = null;
    }
  }

  @Override
  public void visit(final RunCursor cur) {
    final LookupResult r = this.r;
    final int row = cur.row();
    final int cols = cur.cols();
    r.ensureRuns(cols);
    for (int c = 0; c < cols; c++) {
      final long cell = cur.cellWord(row, c);
      final int ref = RunCursor.paletteRefOf(cell);
      if (ref == 0) {
        continue;
      }
      final long seen = cur.seen(ref);
      if (ScoreMath.freshness(now - seen, ttl) <= 0f) {
        continue;
      }
      final int tokens = cur.tokens(row, ref);
      final int run = r.runs++;
      r.runReplica[run] = cur.holder(c);
      r.runMatched[run] = tokens;
      r.runOldest[run] = seen;
      r.runTier[run] = cur.tier(ref);
      if (credit && tokens > 0) {
        r.addCreditCell(run, RunCursor.creditWordOf(cell));
      }
    }
  }
}
