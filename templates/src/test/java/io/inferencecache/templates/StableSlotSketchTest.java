package io.inferencecache.templates;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** {@link StableSlotSketch}: distinct values within the sketch's error. */
class StableSlotSketchTest {
  @Test
  void aStableValueCountsOnce() {
    final StableSlotSketch s = new StableSlotSketch();
    assertThat(s.estimate()).isZero();
    for (int i = 0; i < 1000; i++) {
      s.add("You are a helpful assistant.");
    }
    assertThat(s.estimate()).isBetween(0.9, 1.1);
  }

  @Test
  void aTimestampInAStableSlotIsSeenClimbing() {
    final StableSlotSketch s = new StableSlotSketch();
    for (int i = 0; i < 100_000; i++) {
      s.add("now=" + i);
    }
    // 1 KiB sketch, ~2.4 % standard error: 10 % is over four sigmas
    assertThat(s.estimate()).isBetween(90_000.0, 110_000.0);
  }

  @Test
  void alternatingValuesAreCountedNotSkipped() {
    final StableSlotSketch s = new StableSlotSketch();
    for (int i = 0; i < 100; i++) {
      s.add(i % 2 == 0 ? "a" : "b");
    }
    assertThat(s.estimate()).isBetween(1.9, 2.1);
  }
}
