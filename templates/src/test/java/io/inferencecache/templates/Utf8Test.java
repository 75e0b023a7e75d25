package io.inferencecache.templates;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** {@link Utf8} agrees with {@code String.getBytes(UTF_8)} on every kind of char sequence. */
class Utf8Test {
  @Test
  void agreesWithTheJdkOnRandomCharsIncludingUnpairedSurrogates() {
    final SplittableRandom rnd = new SplittableRandom(39);
    for (int round = 0; round < 2000; round++) {
      final char[] cs = new char[rnd.nextInt(0, 40)];
      for (int i = 0; i < cs.length; i++) {
        cs[i] =
            switch (rnd.nextInt(5)) {
              case 0 -> (char) rnd.nextInt(0, 0x80);
              case 1 -> (char) rnd.nextInt(0x80, 0x800);
              case 2 -> (char) rnd.nextInt(0xD800, 0xE000);
              default -> (char) rnd.nextInt(0x800, 0x10000);
            };
      }
      final String s = new String(cs);
      final byte[] want = s.getBytes(StandardCharsets.UTF_8);
      assertThat(Utf8.length(s)).as(s).isEqualTo(want.length);
      final byte[] got = new byte[want.length + 2];
      assertThat(Utf8.encode(s, got, 1)).isEqualTo(want.length + 1);
      for (int i = 0; i < want.length; i++) {
        assertThat(got[i + 1]).isEqualTo(want[i]);
      }
    }
  }
}
