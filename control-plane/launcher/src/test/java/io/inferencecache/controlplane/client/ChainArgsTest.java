package io.inferencecache.controlplane.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import java.util.List;
import org.junit.jupiter.api.Test;

class ChainArgsTest {
  private static ByteString bytes(final int... b) {
    final byte[] out = new byte[b.length];
    for (int i = 0; i < b.length; i++) {
      out[i] = (byte) b[i];
    }
    return ByteString.copyFrom(out);
  }

  @Test
  void decimalAndShortHexAreTheSameEightByteBigEndianHash() {
    assertThat(ChainArgs.blockHashes("--blocks", "16, 0x10,0X10"))
        .containsExactly(
            bytes(0, 0, 0, 0, 0, 0, 0, 16),
            bytes(0, 0, 0, 0, 0, 0, 0, 16),
            bytes(0, 0, 0, 0, 0, 0, 0, 16));
  }

  @Test
  void decimalCoversTheWholeUnsignedRangeOfTheVllmScheme() {
    // the fingerprint's golden vector for tokens 1..16 (docs/behaviour.md#fingerprint)
    assertThat(ChainArgs.blockHashes("--blocks", "16863443419780771464,18446744073709551615"))
        .containsExactly(
            bytes(0xea, 0x06, 0xfc, 0x71, 0xa5, 0xee, 0x6e, 0x88),
            bytes(0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff));
  }

  @Test
  void hexLongerThanSixteenDigitsIsSentAsRawBytes() {
    assertThat(ChainArgs.blockHashes("--blocks", "0x0102030405060708090a"))
        .containsExactly(bytes(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
  }

  @Test
  void badHashesAreRefusedNamingTheFlagAndTheItem() {
    assertThatThrownBy(() -> ChainArgs.blockHashes("--blocks", "1,abc"))
        .hasMessage("--blocks: \"abc\" is not a hash: want decimal or 0x-hex digits");
    assertThatThrownBy(() -> ChainArgs.blockHashes("--blocks", "-1"))
        .hasMessageContaining("\"-1\" is not a hash");
    assertThatThrownBy(() -> ChainArgs.blockHashes("--blocks", "18446744073709551616"))
        .hasMessageContaining("out of range");
    assertThatThrownBy(() -> ChainArgs.blockHashes("--blocks", "0x"))
        .hasMessageContaining("\"0x\" is not a hash");
    assertThatThrownBy(() -> ChainArgs.blockHashes("--blocks", "0x12345678901234567"))
        .hasMessageContaining("odd number of hex digits");
    assertThatThrownBy(() -> ChainArgs.blockHashes("--blocks", "0x" + "ab".repeat(257)))
        .hasMessageContaining("longer than 256 bytes");
    assertThatThrownBy(() -> ChainArgs.blockHashes("--blocks", "1,,2"))
        .hasMessage("--blocks \"1,,2\" has an empty item: want a comma-separated list");
  }

  @Test
  void tokenCountsArePositiveAndOnePerBlock() {
    assertThat(ChainArgs.tokenCounts("--block-tokens", "16,8")).containsExactly(16, 8);
    assertThatThrownBy(() -> ChainArgs.tokenCounts("--block-tokens", "16,0"))
        .hasMessageContaining("\"0\" is not a token count");
    assertThat(ChainArgs.countsFor(3, null, 16)).containsExactly(16, 16, 16);
    assertThat(ChainArgs.countsFor(2, List.of(4, 5), 16)).containsExactly(4, 5);
    assertThatThrownBy(() -> ChainArgs.countsFor(3, List.of(4, 5), 16))
        .hasMessageContaining("--block-tokens has 2 counts for 3 blocks");
    assertThatThrownBy(() -> ChainArgs.countsFor(3, null, 0))
        .hasMessageContaining("--tokens-per-block 0 must be a positive whole number");
  }

  @Test
  void tokenIdsAreUnsigned32BitValues() {
    assertThat(ChainArgs.tokenIds("--token-ids", "0,1,4294967295")).containsExactly(0, 1, -1);
    assertThatThrownBy(() -> ChainArgs.tokenIds("--token-ids", "4294967296"))
        .hasMessageContaining("\"4294967296\" is not a token id");
  }

  @Test
  void tokenIdsAreFingerprintedLikeTheServerDoesForALookup() {
    final int[] tokens = new int[40];
    for (int i = 0; i < tokens.length; i++) {
      tokens[i] = i + 1;
    }
    // golden vectors: tokens 1..16 and 1..32 at block 16; the 8 trailing tokens are not hashed
    assertThat(ChainArgs.fingerprint(tokens, 16))
        .containsExactlyElementsOf(
            ChainArgs.blockHashes("--blocks", "16863443419780771464,12466389667045779788"));
    assertThatThrownBy(() -> ChainArgs.fingerprint(new int[10], 16))
        .hasMessage("--token-ids: 10 tokens make no full block of 16: give at least 16");
  }
}
