package io.inferencecache.engine.internal;

import java.util.Arrays;

/**
 * A copy-on-grow array of per-id state objects: readers index a volatile array without locks; the
 * single writer publishes a grown copy when an id exceeds the capacity.
 */
public final class IdArray<T> {
  private volatile Object[] items = new Object[16];

  /** The item of {@code id}, or null. */
  @SuppressWarnings("unchecked")
  public T get(final int id) {
    final Object[] a = items;
    return id >= 0 && id < a.length ? (T) a[id] : null;
  }

  /** Sets the item of {@code id}. Writer only. */
  public void set(final int id, final T item) {
    Object[] a = items;
    if (id >= a.length) {
      a = Arrays.copyOf(a, Math.max(a.length * 2, id + 1));
      a[id] = item;
      items = a;
    } else {
      a[id] = item;
      items = a; // volatile write publishes the element too
    }
  }

  /** Current capacity (ids below it may be null). */
  public int capacity() {
    return items.length;
  }
}
