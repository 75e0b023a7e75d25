package io.inferencecache.controlplane.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GoJsonTest {
  @Test
  void float32UsesShortestRoundTripDecimalLikeGo() {
    assertThat(GoJson.formatFloat32(0f)).isEqualTo("0");
    assertThat(GoJson.formatFloat32(1f)).isEqualTo("1");
    assertThat(GoJson.formatFloat32(0.5f)).isEqualTo("0.5");
    assertThat(GoJson.formatFloat32(0.25f)).isEqualTo("0.25");
    assertThat(GoJson.formatFloat32(0.8f)).isEqualTo("0.8");
    assertThat(GoJson.formatFloat32(0.1f)).isEqualTo("0.1");
    assertThat(GoJson.formatFloat32(1f / 3f)).isEqualTo("0.33333334");
    assertThat(GoJson.formatFloat32(100f)).isEqualTo("100");
    assertThat(GoJson.formatFloat32(-2.5f)).isEqualTo("-2.5");
    assertThat(GoJson.formatFloat32(16777216f)).isEqualTo("16777216");
    assertThat(GoJson.formatFloat32((float) (0.1 + 0.2))).isEqualTo("0.3");
  }

  @Test
  void float32SwitchesToExponentOutsidePlainRangeWithGoCleanup() {
    assertThat(GoJson.formatFloat32(1e-6f)).isEqualTo("0.000001");
    assertThat(GoJson.formatFloat32(1e-7f)).isEqualTo("1e-7");
    assertThat(GoJson.formatFloat32(1.5e-10f)).isEqualTo("1.5e-10");
    assertThat(GoJson.formatFloat32(1e20f)).isEqualTo("100000000000000000000");
    assertThat(GoJson.formatFloat32(1e21f)).isEqualTo("1e+21");
    assertThat(GoJson.formatFloat32(Float.MAX_VALUE)).isEqualTo("3.4028235e+38");
    assertThat(GoJson.formatFloat32(Float.MIN_VALUE)).isEqualTo("1e-45");
  }

  @Test
  void float32RoundTripsEveryFormattedValue() {
    final java.util.Random r = new java.util.Random(7);
    for (int i = 0; i < 20_000; i++) {
      final float f = Float.intBitsToFloat(r.nextInt());
      if (Float.isNaN(f) || Float.isInfinite(f)) {
        continue;
      }
      assertThat(Float.parseFloat(GoJson.formatFloat32(f))).isEqualTo(f);
    }
  }

  @Test
  void float32RejectsNonFinite() {
    assertThatThrownBy(() -> GoJson.formatFloat32(Float.NaN))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void timeIsRfc3339NanoUtcWithTrimmedFraction() {
    assertThat(GoJson.formatTime(0)).isEqualTo("0001-01-01T00:00:00Z");
    assertThat(GoJson.formatTime(1_700_000_000_000_000_000L)).isEqualTo("2023-11-14T22:13:20Z");
    assertThat(GoJson.formatTime(1_700_000_000_500_000_000L)).isEqualTo("2023-11-14T22:13:20.5Z");
    assertThat(GoJson.formatTime(1_700_000_000_000_000_123L))
        .isEqualTo("2023-11-14T22:13:20.000000123Z");
    assertThat(GoJson.formatTime(1_700_000_000_120_000_000L)).isEqualTo("2023-11-14T22:13:20.12Z");
  }

  @Test
  void stringsAreEscapedLikeGoHtmlSafeEncoder() {
    assertThat(GoJson.string(new StringBuilder(), "a\"b\\c\n<&>\u2028\u0001\t").toString())
        .isEqualTo("\"a\\\"b\\\\c\\n\\u003c\\u0026\\u003e\\u2028\\u0001\\t\"");
    assertThat(GoJson.string(new StringBuilder(), "llama-3.1-8b").toString())
        .isEqualTo("\"llama-3.1-8b\"");
  }
}
