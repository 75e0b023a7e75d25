package io.inferencecache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The partial selection and the sorts behind a lookup's order, against plain sorts. */
class RankSelectionTest {
  @Test
  void keepsTheSmallestKInOrderWithTheirPositions() {
    final SplittableRandom rnd = new SplittableRandom(41);
    for (int n : new int[] {0, 1, 2, 5, 31, 32, 33, 64, 255, 256, 257, 600}) {
      for (int k : new int[] {0, 1, 3, 10, 32, n - 1, n, n + 5}) {
        final long[] key = new long[n];
        final int[] o = new int[n];
        for (int i = 0; i < n; i++) {
          key[i] = rnd.nextLong(); // distinct with overwhelming odds; checked below
          o[i] = i;
        }
        final long[] original = key.clone();
        final long[] sorted = key.clone();
        Arrays.sort(sorted);
        assertThat(Arrays.stream(sorted).distinct().count()).isEqualTo(n);

        RankSelection.smallestSorted(key, o, n, k);

        final int m = Math.max(0, Math.min(k, n));
        assertThat(Arrays.copyOf(key, m)).as("n=%d k=%d", n, k).isEqualTo(Arrays.copyOf(sorted, m));
        for (int i = 0; i < n; i++) {
          assertThat(original[o[i]])
              .as("position carried along, n=%d k=%d", n, k)
              .isEqualTo(key[i]);
        }
        final int[] perm = o.clone();
        Arrays.sort(perm);
        for (int i = 0; i < n; i++) {
          assertThat(perm[i]).as("a permutation").isEqualTo(i);
        }
      }
    }
  }

  @Test
  void sortsCountsAscendingAndCountsThoseAtLeastAValue() {
    final SplittableRandom rnd = new SplittableRandom(7);
    for (int n : new int[] {0, 1, 2, 32, 33, 100, 513}) {
      final int[] v = new int[n];
      for (int i = 0; i < n; i++) {
        v[i] = rnd.nextInt(6) * 16; // many ties, as matched-token counts have
      }
      final int[] want = v.clone();
      Arrays.sort(want);
      RankSelection.sortAscending(v, n);
      assertThat(v).isEqualTo(want);
      for (int x = -1; x <= 96; x += 8) {
        final int fx = x;
        assertThat(RankSelection.countAtLeast(v, n, x))
            .isEqualTo((int) Arrays.stream(want).filter(y -> y >= fx).count());
      }
    }
  }
}
