package io.inferencecache.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Interning, lookups and the name order ({@link StringDictionary#compare}). */
class StringDictionaryTest {

  @Test
  void internReturnsOneStableIdPerString() {
    final StringDictionary d = new StringDictionary();
    final int a = d.intern("replica-a");
    final int b = d.intern("replica-b");
    assertThat(d.intern("replica-a")).isEqualTo(a);
    assertThat(b).isNotEqualTo(a);
    assertThat(d.idOf("replica-b")).isEqualTo(b);
    assertThat(d.idOf("never")).isEqualTo(StringDictionary.MISSING);
    assertThat(d.string(a)).isEqualTo("replica-a");
  }

  /**
   * The order is unsigned UTF-8 byte order for every pair, and every id is ranked as soon as it is
   * interned (the ranks cover all ids and agree with that order), over thousands of inserts.
   */
  @Test
  void compareIsUnsignedByteOrderAndEveryIdIsRankedOnceInterned() {
    final StringDictionary d = new StringDictionary();
    final SplittableRandom rnd = new SplittableRandom(11);
    final List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      final int len = 1 + rnd.nextInt(12);
      final char[] c = new char[len];
      for (int j = 0; j < len; j++) {
        c[j] =
            rnd.nextInt(8) == 0 ? (char) (0xE0 + rnd.nextInt(20)) : (char) ('a' + rnd.nextInt(6));
      }
      ids.add(d.intern(new String(c)));
      final int[] rank = d.ranks();
      assertThat(rank.length).isEqualTo(d.size());
      for (int k = 0; k < 8; k++) {
        final int x = ids.get(rnd.nextInt(ids.size()));
        final int y = ids.get(rnd.nextInt(ids.size()));
        final int want =
            Integer.signum(
                Arrays.compareUnsigned(
                    d.string(x).getBytes(StandardCharsets.UTF_8),
                    d.string(y).getBytes(StandardCharsets.UTF_8)));
        assertThat(Integer.signum(d.compare(x, y)))
            .as("%s vs %s after %d inserts", d.string(x), d.string(y), i + 1)
            .isEqualTo(want);
        assertThat(Integer.signum(Integer.compare(rank[x], rank[y])))
            .as("ranks of %s vs %s after %d inserts", d.string(x), d.string(y), i + 1)
            .isEqualTo(x == y ? 0 : want);
      }
    }
  }

  /** Ids restored with gaps (a reopened index) rank the present strings in byte order. */
  @Test
  void restoredIdsWithGapsAreRankedInByteOrder() {
    final StringDictionary d = new StringDictionary();
    d.restore(5, "m");
    d.restore(2, "z");
    d.restore(9, "a");
    final int b = d.intern("b");
    final int[] rank = d.ranks();
    assertThat(rank.length).isEqualTo(d.size());
    assertThat(rank[9]).isLessThan(rank[b]);
    assertThat(rank[b]).isLessThan(rank[5]);
    assertThat(rank[5]).isLessThan(rank[2]);
    assertThat(d.compare(9, 2)).isNegative();
    assertThat(d.compare(2, b)).isPositive();
  }
}
