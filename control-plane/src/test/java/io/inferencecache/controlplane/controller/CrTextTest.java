package io.inferencecache.controlplane.controller;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;

class CrTextTest {
  @Test
  void ratesAreShortestFloat32PlainDecimals() {
    assertThat(CrText.rate(0)).isEqualTo("0");
    assertThat(CrText.rate(-0.0)).isEqualTo("0");
    assertThat(CrText.rate(1)).isEqualTo("1");
    assertThat(CrText.rate(0.5)).isEqualTo("0.5");
    assertThat(CrText.rate(0.1)).isEqualTo("0.1");
    assertThat(CrText.rate(2.0 / 3.0)).isEqualTo("0.6666667");
    assertThat(CrText.rate(1e-7)).isEqualTo("0.0000001");
    assertThat(CrText.rate(1e22)).doesNotContain("E").doesNotContain("e");
  }

  @Test
  void nonFiniteRateIsRefused() {
    assertThatThrownBy(() -> CrText.rate(Double.NaN)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void timesAreWholeSecondUtc() {
    assertThat(CrText.time(Instant.parse("2026-12-01T11:03:18.987654321Z")))
        .isEqualTo("2026-12-01T11:03:18Z");
    assertThat(CrText.time(null)).isNull();
  }
}
