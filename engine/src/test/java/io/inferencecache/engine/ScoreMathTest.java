package io.inferencecache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The float32 ranking factors of docs/behaviour.md#scores and docs/behaviour.md#tenant-hot
 * (checklist 54–59, 95).
 */
class ScoreMathTest {
  private static final long MIN = TimeUnit.MINUTES.toNanos(1);

  private static void assertBits(final float actual, final float expected) {
    assertThat(Float.floatToRawIntBits(actual))
        .as("%s (bits) vs expected %s", actual, expected)
        .isEqualTo(Float.floatToRawIntBits(expected));
  }

  @Test
  void distinguishingPowerIsOneForASingleReplica() {
    assertBits(ScoreMath.distinguishingPower(1, 1), 1f);
    assertBits(ScoreMath.distinguishingPower(0, 1), 1f);
    assertBits(ScoreMath.distinguishingPower(7, 0), 1f);
    assertBits(ScoreMath.distinguishingPower(1, -3), 1f);
  }

  @Test
  void distinguishingPowerIsZeroWhenAllReplicasMatch() {
    assertBits(ScoreMath.distinguishingPower(3, 3), 0f);
    assertBits(ScoreMath.distinguishingPower(2, 2), 0f);
  }

  @Test
  void distinguishingPowerOfOneOfThreeIsTwoThirds() {
    assertBits(ScoreMath.distinguishingPower(1, 3), (float) (1.0 - 1.0 / 3.0));
    assertThat(ScoreMath.distinguishingPower(1, 3)).isEqualTo(0.6666667f);
  }

  @Test
  void distinguishingPowerOfTwoOfThreeIsOneThird() {
    assertBits(ScoreMath.distinguishingPower(2, 3), (float) (1.0 - 2.0 / 3.0));
    assertThat(ScoreMath.distinguishingPower(2, 3)).isEqualTo(0.33333334f);
  }

  @Test
  void distinguishingPowerClampsMatchingOverTotalToZero() {
    assertBits(ScoreMath.distinguishingPower(5, 3), 0f);
  }

  @Test
  void distinguishingPowerClampsNegativeMatchingToOne() {
    assertBits(ScoreMath.distinguishingPower(-1, 3), 1f);
    assertBits(ScoreMath.distinguishingPower(Integer.MIN_VALUE, 10), 1f);
  }

  @Test
  void freshnessIsZeroForNonPositiveTtl() {
    assertBits(ScoreMath.freshness(0, 0), 0f);
    assertBits(ScoreMath.freshness(-5, 0), 0f);
    assertBits(ScoreMath.freshness(10, -1), 0f);
  }

  @Test
  void freshnessIsOneForNonPositiveAge() {
    assertBits(ScoreMath.freshness(0, 30 * MIN), 1f);
    assertBits(ScoreMath.freshness(-10 * MIN, 30 * MIN), 1f);
  }

  @Test
  void freshnessIsZeroAtAndPastTtl() {
    assertBits(ScoreMath.freshness(30 * MIN, 30 * MIN), 0f);
    assertBits(ScoreMath.freshness(30 * MIN + 1, 30 * MIN), 0f);
    assertBits(ScoreMath.freshness(Long.MAX_VALUE, 30 * MIN), 0f);
  }

  @Test
  void freshnessAfterFiftyOfSixtyMinutesIsComputedInDoubleThenRounded() {
    final float f = ScoreMath.freshness(50 * MIN, 60 * MIN);
    assertBits(f, (float) (1.0 - (double) (50 * MIN) / (double) (60 * MIN)));
    assertThat(f).isCloseTo(0.16667f, org.assertj.core.data.Offset.offset(1e-5f));
    // 100 tokens at this freshness score below a fresh 50-token holder (checklist 69)
    assertThat((float) 100 * f).isLessThan(50f);
  }

  @Test
  void freshnessOneNanosecondBeforeTtlIsPositive() {
    assertThat(ScoreMath.freshness(30 * MIN - 1, 30 * MIN)).isGreaterThan(0f);
  }

  @Test
  void recencyIsClampedToOneAgainstClockSkew() {
    assertBits(ScoreMath.recency(-2 * MIN, 5 * MIN), 1f);
    assertBits(ScoreMath.recency(0, 5 * MIN), 1f);
  }

  @Test
  void recencyIsZeroAtAndPastMaxAge() {
    assertBits(ScoreMath.recency(5 * MIN, 5 * MIN), 0f);
    assertBits(ScoreMath.recency(6 * MIN, 5 * MIN), 0f);
  }

  @Test
  void recencyIsComputedInFloat32() {
    final long age = 2 * MIN + 12_345;
    assertBits(ScoreMath.recency(age, 5 * MIN), 1f - (float) age / (float) (5 * MIN));
  }

  @Test
  void pressureFactorOfNinetyPercentIsOneTenth() {
    final float pf = ScoreMath.pressureFactor(1f, 0.9f);
    assertBits(pf, 1f - 1f * 0.9f);
    assertThat((float) 100 * 1f * pf * 1f).isLessThan(50f).isCloseTo(10f, within(1e-4f));
  }

  @Test
  void pressureFactorIsClampedToTheUnitInterval() {
    assertBits(ScoreMath.pressureFactor(1f, 1.5f), 0f);
    assertBits(ScoreMath.pressureFactor(2f, 0.75f), 0f);
    assertBits(ScoreMath.pressureFactor(1f, -0.5f), 1f);
    assertBits(ScoreMath.pressureFactor(0f, 0.9f), 1f);
    assertBits(ScoreMath.pressureFactor(0.5f, 0.5f), 0.75f);
  }

  @Test
  void sloCoefficientAppliesOnlyStrictlyInsideTheTightWindow() {
    assertBits(ScoreMath.sloCoefficient(100, 200, 1f), 1f);
    assertBits(ScoreMath.sloCoefficient(1, 200, 0.5f), 0.5f);
    assertBits(ScoreMath.sloCoefficient(199, 200, 2f), 2f);
    assertBits(ScoreMath.sloCoefficient(200, 200, 1f), 0f);
    assertBits(ScoreMath.sloCoefficient(0, 200, 1f), 0f);
    assertBits(ScoreMath.sloCoefficient(-5, 200, 1f), 0f);
    assertBits(ScoreMath.sloCoefficient(100, 0, 1f), 0f);
    assertBits(ScoreMath.sloCoefficient(100, 200, 0f), 0f);
    assertBits(ScoreMath.sloCoefficient(100, 200, -1f), 0f);
  }

  @Test
  void baseScoreMultipliesLeftToRightInFloat32() {
    final float fresh = (float) (1.0 - 7.0 / 30.0);
    final float pf = 1f - 0.3f;
    final float slo = 1f + fresh * 1f;
    assertBits(ScoreMath.baseScore(4097, fresh, pf, slo), (float) 4097 * fresh * pf * slo);
    assertBits(ScoreMath.baseScore(0, fresh, pf, slo), 0f);
  }

  private static org.assertj.core.data.Offset<Float> within(final float d) {
    return org.assertj.core.data.Offset.offset(d);
  }
}
