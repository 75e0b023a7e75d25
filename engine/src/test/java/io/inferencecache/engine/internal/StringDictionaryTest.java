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
   * The order is unsigned UTF-8 byte order for every pair, whether both ids are in the current rank
   * snapshot or one was interned after it (thousands of inserts cross several rebuilds).
   */
  @Test
  void compareIsUnsignedByteOrderBeforeAndAfterEveryRankRebuild() {
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
      }
    }
  }
}
