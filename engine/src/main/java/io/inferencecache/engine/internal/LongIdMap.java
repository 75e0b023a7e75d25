package io.inferencecache.engine.internal;

import org.agrona.collections.Long2LongHashMap;

/**
 * Maps packed {@code long} tuples (for example {@code tenantId << 32 | modelId}) to dense int ids.
 *
 * <p>Copy-on-write: readers do a lock-free, allocation-free {@link #get} on an immutable map
 * published through a volatile field; {@link #getOrAssign} is serialized by the monitor. New tuples
 * are rare (a new tenant/model/scheme/adapter combination), so the copy is amortized away.
 */
public final class LongIdMap {
  /** Returned by {@link #get} for an unknown tuple. */
  public static final int MISSING = -1;

  private volatile Long2LongHashMap map = new Long2LongHashMap(MISSING);
  private int next;

  /** The id of {@code key}, or {@link #MISSING}. */
  public int get(final long key) {
    return (int) map.get(key);
  }

  /** The id of {@code key}, assigning the next id when it is new. */
  public synchronized int getOrAssign(final long key) {
    final long existing = map.get(key);
    if (existing != MISSING) {
      return (int) existing;
    }
    final int id = next++;
    put(key, id);
    return id;
  }

  /** Binds {@code key} to {@code id} (used when reopening a persisted index). */
  public synchronized void restore(final long key, final int id) {
    put(key, id);
    next = Math.max(next, id + 1);
  }

  private void put(final long key, final int id) {
    final Long2LongHashMap copy = new Long2LongHashMap(MISSING);
    copy.putAll(map);
    copy.put(key, id);
    map = copy;
  }

  /** Number of ids assigned so far (ids are {@code 0..size-1}). */
  public synchronized int size() {
    return next;
  }

  /** Packs two non-negative ints. */
  public static long pack(final int high, final int low) {
    return ((long) high << 32) | (low & 0xFFFFFFFFL);
  }
}
