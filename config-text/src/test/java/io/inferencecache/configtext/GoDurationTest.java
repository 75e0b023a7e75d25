package io.inferencecache.configtext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class GoDurationTest {
  @Test
  void parsesGoDurations() {
    assertThat(GoDuration.parse("100ms")).isEqualTo(Duration.ofMillis(100));
    assertThat(GoDuration.parse("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(GoDuration.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(GoDuration.parse("2h45m")).isEqualTo(Duration.ofMinutes(165));
    assertThat(GoDuration.parse("1m0.5s")).isEqualTo(Duration.ofMillis(60_500));
    assertThat(GoDuration.parse("250us")).isEqualTo(Duration.ofNanos(250_000));
    assertThat(GoDuration.parse("3\u00b5s")).isEqualTo(Duration.ofNanos(3_000));
    assertThat(GoDuration.parse("7ns")).isEqualTo(Duration.ofNanos(7));
    assertThat(GoDuration.parse("-5s")).isEqualTo(Duration.ofSeconds(-5));
    assertThat(GoDuration.parse("0")).isEqualTo(Duration.ZERO);
    assertThat(GoDuration.parse(".5s")).isEqualTo(Duration.ofMillis(500));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "10", "abc", "1x", "s", "-", "1.s.", "ms10", "1e3s"})
  void rejectsInvalidDurations(final String text) {
    assertThatThrownBy(() -> GoDuration.parse(text)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void rejectsOverflow() {
    assertThatThrownBy(() -> GoDuration.parse("9999999999h")).hasMessageContaining("overflow");
  }
}
