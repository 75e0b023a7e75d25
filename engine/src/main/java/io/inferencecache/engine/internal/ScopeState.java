package io.inferencecache.engine.internal;

import java.util.Arrays;
import org.agrona.collections.Int2IntHashMap;

/**
 * A (tenant, model, hash scheme) scope: how many storage entries each replica has in it. The writer
 * keeps the counts; readers see the set of serving replicas as two immutable sorted arrays (by id
 * for membership, by name byte-wise for the affinity candidate order), republished only when a
 * replica enters or leaves the scope.
 */
public final class ScopeState {
  public final int id;
  public final int tm;
  public final int scheme;
  private final Int2IntHashMap counts = new Int2IntHashMap(0);
  private volatile int[] byId = new int[0];
  private volatile int[] byName = new int[0];

  public ScopeState(final int id, final int tm, final int scheme) {
    this.id = id;
    this.tm = tm;
    this.scheme = scheme;
  }

  /** Writer: one more storage entry of {@code replica}. */
  public void increment(final int replica, final StringDictionary dict) {
    final int n = counts.get(replica) + 1;
    counts.put(replica, n);
    if (n == 1) {
      republish(dict);
    }
  }

  /** Writer: one storage entry of {@code replica} fewer. */
  public void decrement(final int replica, final StringDictionary dict) {
    final int n = counts.get(replica) - 1;
    if (n <= 0) {
      counts.remove(replica);
      republish(dict);
    } else {
      counts.put(replica, n);
    }
  }

  /** Writer: storage entries of {@code replica}. */
  public int count(final int replica) {
    return counts.get(replica);
  }

  private void republish(final StringDictionary dict) {
    final int[] ids = new int[counts.size()];
    final Int2IntHashMap.KeyIterator it = counts.keySet().iterator();
    int i = 0;
    while (it.hasNext()) {
      ids[i++] = it.nextValue();
    }
    Arrays.sort(ids);
    final Integer[] boxed = new Integer[ids.length];
    for (int j = 0; j < ids.length; j++) {
      boxed[j] = ids[j];
    }
    Arrays.sort(boxed, (a, b) -> dict.compare(a, b));
    final int[] names = new int[ids.length];
    for (int j = 0; j < ids.length; j++) {
      names[j] = boxed[j];
    }
    byName = names;
    byId = ids;
  }

  /** Number of replicas serving in the scope. Lock-free. */
  public int servingCount() {
    return byId.length;
  }

  /** Whether {@code replica} has at least one storage entry in the scope. Lock-free. */
  public boolean serves(final int replica) {
    return Arrays.binarySearch(byId, replica) >= 0;
  }

  /** Serving replicas sorted by name (unsigned UTF-8 bytes). Immutable; do not modify. */
  public int[] servingByName() {
    return byName;
  }
}
