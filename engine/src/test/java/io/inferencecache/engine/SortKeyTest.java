package io.inferencecache.engine;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The one-{@code long} sort key of the result order (docs/behaviour.md#scores): ordering two keys
 * gives the same answer as comparing score descending (with {@code !=}, so {@code -0 == 0}) and
 * then the name's rank ascending.
 */
class SortKeyTest {
  private static final float[] EDGES = {
    0f,
    -0f,
    Float.MIN_VALUE,
    -Float.MIN_VALUE,
    1f,
    -1f,
    Float.MAX_VALUE,
    -Float.MAX_VALUE,
    Float.POSITIVE_INFINITY,
    Float.NEGATIVE_INFINITY,
    Math.nextUp(1f),
    Math.nextDown(1f),
    0.5f
  };

  private static int expected(final float sa, final int ra, final float sb, final int rb) {
    if (sa != sb) {
      return sa > sb ? -1 : 1;
    }
    return Integer.compare(ra, rb);
  }

  @Test
  void keysOrderLikeScoreDescendingThenRank() {
    final SplittableRandom rnd = new SplittableRandom(7);
    for (int i = 0; i < 200_000; i++) {
      final float sa = i % 3 == 0 ? EDGES[rnd.nextInt(EDGES.length)] : randomFloat(rnd);
      final float sb =
          i % 5 == 0 ? sa : i % 2 == 0 ? EDGES[rnd.nextInt(EDGES.length)] : randomFloat(rnd);
      final int ra = rnd.nextInt(i % 7 == 0 ? Integer.MAX_VALUE : 4);
      final int rb = rnd.nextInt(i % 7 == 0 ? Integer.MAX_VALUE : 4);
      assertEquals(
          expected(sa, ra, sb, rb),
          Integer.signum(Long.compare(Lookups.sortKey(sa, ra), Lookups.sortKey(sb, rb))),
          sa + "/" + ra + " vs " + sb + "/" + rb);
    }
  }

  private static float randomFloat(final SplittableRandom rnd) {
    switch (rnd.nextInt(3)) {
      case 0:
        return (float) rnd.nextDouble(-1_000, 1_000);
      case 1:
        return (float) rnd.nextDouble() * 1e-38f; // down to subnormals
      default:
        final float f = Float.intBitsToFloat(rnd.nextInt());
        return f != f ? 1f : f;
    }
  }
}
