package io.inferencecache.engine.fingerprint;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Base64;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The golden vectors of the upstream fingerprint (docs/behaviour.md#fingerprint,. */
class FingerprintTest {

  private static int[] range(final int fromInclusive, final int toInclusive) {
    return IntStream.rangeClosed(fromInclusive, toInclusive).toArray();
  }

  private static long u64(final String decimal) {
    return Long.parseUnsignedLong(decimal);
  }

  @Test
  void tokensOneToSixteenMatchGoldenVectorAndWireForm() {
    final long[] chain = Fingerprint.prefixHashes(range(1, 16), 16);
    assertThat(chain).containsExactly(u64("16863443419780771464"));
    assertThat(Base64.getEncoder().encodeToString(Fingerprint.toWire(chain[0])))
        .isEqualTo("6gb8caXubog=");
    assertThat(Fingerprint.fromWire(Fingerprint.toWire(chain[0]), 0)).isEqualTo(chain[0]);
  }

  @Test
  void trailingTokensShortOfABlockAreDropped() {
    assertThat(Fingerprint.prefixHashes(range(100, 119), 16))
        .containsExactly(u64("10823191264391160519"));
  }

  @Test
  void secondBlockIsChainedToTheFirst() {
    assertThat(Fingerprint.prefixHashes(range(1, 32), 16))
        .containsExactly(u64("16863443419780771464"), u64("12466389667045779788"));
  }

  @Test
  void fourBlocksFromZero() {
    assertThat(Fingerprint.prefixHashes(range(0, 63), 16))
        .containsExactly(
            u64("15310707395893867146"),
            u64("13769157705258532664"),
            u64("11879827756109914528"),
            u64("3888788807566526800"));
  }

  @Test
  void explicitParentChainsTheFirstBlock() {
    final int[] tokens = range(50, 81);
    assertThat(Fingerprint.prefixHashes(tokens, 0, tokens.length, 16, true, 3735928559L))
        .containsExactly(u64("13185224009891017151"), u64("2998384554010166533"));
  }

  @Test
  void subBlockInputGivesEmptyChain() {
    assertThat(Fingerprint.prefixHashes(range(0, 9), 16)).isEmpty();
    assertThat(Fingerprint.prefixHashes(range(0, 63), 0)).isEmpty();
  }
}
