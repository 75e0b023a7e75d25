package io.inferencecache.perf.replay;

import java.util.Arrays;

/** PREFIX_EVICTED events queued until the next sync: (replica, block key) pairs, in order. */
final class EvictionQueue {
  private long[] keys = new long[1024];
  private int[] replicas = new int[1024];
  private int size;

  void add(final int replica, final long key) {
    if (size == keys.length) {
      keys = Arrays.copyOf(keys, size * 2);
      replicas = Arrays.copyOf(replicas, size * 2);
    }
    keys[size] = key;
    replicas[size] = replica;
    size++;
  }

  int size() {
    return size;
  }

  long key(final int i) {
    return keys[i];
  }

  int replica(final int i) {
    return replicas[i];
  }

  void clear() {
    size = 0;
  }
}
