package io.inferencecache.engine;

/**
 * The orderings a lookup's answer needs, allocation-free and O(n log n) at worst: the best {@code
 * k} of {@code n} scored entries in order (a bounded heap: partial selection, then a heapsort of
 * the {@code k} kept; no sort of the rest), and the sort of the matched-token counts behind the
 * distinguishing power. Below {@link #SMALL} entries an insertion sort is used, which is what a
 * handful of holders (the common case) costs least with; hundreds of holders of one shared prefix
 * (a system prompt on every replica) are what the heap is for.
 */
final class RankSelection {
  /** Entries up to which an insertion sort is used instead of the heap. */
  static final int SMALL = 32;

  private RankSelection() {}

  /**
   * Moves the {@code k} smallest of {@code key[0, n)} into {@code [0, k)}, ascending, each carrying
   * its {@code o} value along; what is left in {@code [k, n)} is in no order. {@code k} is clamped
   * to {@code [0, n]}. Keys are expected to be distinct (a tie keeps no particular order).
   */
  static void smallestSorted(final long[] key, final int[] o, final int n, final int k) {
    final int m = Math.min(k, n);
    if (m <= 0) {
      return;
    }
    if (m == n && n <= SMALL) {
      insertionSort(key, o, n);
      return;
    }
    // A max-heap of the best m so far: its root is the worst kept.
    for (int i = m / 2 - 1; i >= 0; i--) {
      siftDown(key, o, i, m);
    }
    for (int i = m; i < n; i++) {
      if (key[i] < key[0]) {
        swap(key, o, 0, i);
        siftDown(key, o, 0, m);
      }
    }
    for (int end = m - 1; end > 0; end--) {
      swap(key, o, 0, end);
      siftDown(key, o, 0, end);
    }
  }

  /** Sorts {@code v[0, n)} ascending. */
  static void sortAscending(final int[] v, final int n) {
    if (n <= SMALL) {
      for (int i = 1; i < n; i++) {
        final int x = v[i];
        int j = i;
        for (; j > 0 && v[j - 1] > x; j--) {
          v[j] = v[j - 1];
        }
        v[j] = x;
      }
      return;
    }
    for (int i = n / 2 - 1; i >= 0; i--) {
      siftDown(v, i, n);
    }
    for (int end = n - 1; end > 0; end--) {
      final int t = v[0];
      v[0] = v[end];
      v[end] = t;
      siftDown(v, 0, end);
    }
  }

  /** In {@code v[0, n)} sorted ascending: how many values are at least {@code x}. */
  static int countAtLeast(final int[] v, final int n, final int x) {
    int lo = 0;
    int hi = n;
    while (lo < hi) {
      final int mid = (lo + hi) >>> 1;
      if (v[mid] < x) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return n - lo;
  }

  private static void insertionSort(final long[] key, final int[] o, final int n) {
    for (int i = 1; i < n; i++) {
      final long kx = key[i];
      final int x = o[i];
      int j = i;
      for (; j > 0 && kx < key[j - 1]; j--) {
        key[j] = key[j - 1];
        o[j] = o[j - 1];
      }
      key[j] = kx;
      o[j] = x;
    }
  }

  private static void siftDown(final long[] key, final int[] o, final int from, final int size) {
    int i = from;
    while (true) {
      final int l = 2 * i + 1;
      if (l >= size) {
        return;
      }
      final int c = l + 1 < size && key[l + 1] > key[l] ? l + 1 : l;
      if (key[c] <= key[i]) {
        return;
      }
      swap(key, o, i, c);
      i = c;
    }
  }

  private static void siftDown(final int[] v, final int from, final int size) {
    int i = from;
    while (true) {
      final int l = 2 * i + 1;
      if (l >= size) {
        return;
      }
      final int c = l + 1 < size && v[l + 1] > v[l] ? l + 1 : l;
      if (v[c] <= v[i]) {
        return;
      }
      final int t = v[i];
      v[i] = v[c];
      v[c] = t;
      i = c;
    }
  }

  private static void swap(final long[] key, final int[] o, final int a, final int b) {
    final long k = key[a];
    key[a] = key[b];
    key[b] = k;
    final int x = o[a];
    o[a] = o[b];
    o[b] = x;
  }
}
