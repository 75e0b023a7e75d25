package io.inferencecache.service.concurrent;

import org.agrona.collections.ArrayUtil;

/**
 * A copy-on-write array of listeners or tracked objects: readers take {@link #snapshot()} (one
 * volatile read, no lock, no garbage) and iterate it; {@link #add} and {@link #remove} copy the
 * array under this object's lock (Agrona's {@link ArrayUtil}). For sets that change rarely and are
 * scanned often (subscribers of a feed, the calls a deadline watchdog scans). Identity semantics.
 *
 * @param <T> the element type
 */
public final class CopyOnWriteArray<T> {
  private volatile T[] elements;

  /** An empty array; {@code empty} is the zero-length array of the element type to start from. */
  public CopyOnWriteArray(final T[] empty) {
    if (empty.length != 0) {
      throw new IllegalArgumentException("start from an empty array");
    }
    this.elements = empty;
  }

  /** The current elements; never modify the array returned. */
  public T[] snapshot() {
    return elements;
  }

  /** Number of elements now. */
  public int size() {
    return elements.length;
  }

  /** Appends {@code e} (a second add of the same object adds it twice). */
  public synchronized void add(final T e) {
    elements = ArrayUtil.add(elements, e);
  }

  /** Removes one occurrence of {@code e} (by identity); returns whether it was present. */
  public synchronized boolean remove(final T e) {
    final T[] cur = elements;
    final T[] next = ArrayUtil.remove(cur, e);
    elements = next;
    return next != cur;
  }
}
