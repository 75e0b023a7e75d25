package io.inferencecache.engine.internal;

import org.agrona.collections.Int2ObjectHashMap;

/**
 * The stats rows of one (tenant, model), immutable once published: a map by replica id for point
 * reads and an array for scans. The writer builds a new table per change.
 */
public final class StatsTable {
  public static final StatsTable EMPTY = new StatsTable(new StatsRow[0]);

  private final Int2ObjectHashMap<StatsRow> byReplica;
  private final StatsRow[] rows;

  public StatsTable(final StatsRow[] rows) {
    this.rows = rows;
    this.byReplica = new Int2ObjectHashMap<>(Math.max(8, rows.length * 2), 0.65f);
    for (StatsRow r : rows) {
      byReplica.put(r.replica(), r);
    }
  }

  public StatsRow get(final int replica) {
    return byReplica.get(replica);
  }

  public int size() {
    return rows.length;
  }

  public StatsRow row(final int i) {
    return rows[i];
  }

  /** A copy with {@code row} added or replacing the row of the same replica. */
  public StatsTable with(final StatsRow row) {
    for (int i = 0; i < rows.length; i++) {
      if (rows[i].replica() == row.replica()) {
        final StatsRow[] copy = rows.clone();
        copy[i] = row;
        return new StatsTable(copy);
      }
    }
    final StatsRow[] copy = java.util.Arrays.copyOf(rows, rows.length + 1);
    copy[rows.length] = row;
    return new StatsTable(copy);
  }

  /** A copy without the row of {@code replica} (this table if absent). */
  public StatsTable without(final int replica) {
    for (int i = 0; i < rows.length; i++) {
      if (rows[i].replica() == replica) {
        final StatsRow[] copy = new StatsRow[rows.length - 1];
        System.arraycopy(rows, 0, copy, 0, i);
        System.arraycopy(rows, i + 1, copy, i, rows.length - i - 1);
        return copy.length == 0 ? EMPTY : new StatsTable(copy);
      }
    }
    return this;
  }
}
