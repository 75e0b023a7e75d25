package io.inferencecache.perf.replay;

import org.agrona.collections.LongHashSet;

/**
 * Evictions {@link ReplayRunner} reported in the current epoch (since the last sync), per replica:
 * a chain that stores one of them again on the same replica must sync first.
 */
final class PendingEvictions {
  private final LongHashSet[] keys;
  private final int[] dirty;
  private int dirtyCount;

  PendingEvictions(final int replicas) {
    keys = new LongHashSet[replicas];
    dirty = new int[replicas];
  }

  void add(final int r, final long key) {
    if (keys[r] == null) {
      keys[r] = new LongHashSet();
    }
    if (keys[r].isEmpty()) {
      dirty[dirtyCount++] = r;
    }
    keys[r].add(key);
  }

  boolean intersects(final int r, final long[] chain) {
    final LongHashSet k = keys[r];
    if (k == null || k.isEmpty()) {
      return false;
    }
    for (long key : chain) {
      if (k.contains(key)) {
        return true;
      }
    }
    return false;
  }

  void clear() {
    for (int i = 0; i < dirtyCount; i++) {
      keys[dirty[i]].clear();
    }
    dirtyCount = 0;
  }
}
