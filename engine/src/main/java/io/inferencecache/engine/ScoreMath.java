package io.inferencecache.engine;

/**
 * The ranking factors of docs/behaviour.md#scores, in the upstream's float32 arithmetic and
 * operation order, so scores and tie-breaks are bit-identical to the reference implementation.
 */
final class ScoreMath {
  private ScoreMath() {}

  /**
   * {@code ttl<=0 ? 0 : age<=0 ? 1 : age>=ttl ? 0 : (float)(1 - (double)age/(double)ttl)}; ages and
   * TTLs in nanoseconds.
   */
  public static float freshness(final long ageNanos, final long ttlNanos) {
    if (ttlNanos <= 0) {
      return 0f;
    }
    if (ageNanos <= 0) {
      return 1f;
    }
    if (ageNanos >= ttlNanos) {
      return 0f;
    }
    return (float) (1.0 - (double) ageNanos / (double) ttlNanos);
  }

  /** TENANT_HOT recency, float32 throughout: {@code 1 - (float)age / (float)maxAge}. */
  public static float recency(final long ageNanos, final long maxAgeNanos) {
    if (ageNanos <= 0) {
      return 1f;
    }
    if (ageNanos >= maxAgeNanos) {
      return 0f;
    }
    return 1f - (float) ageNanos / (float) maxAgeNanos;
  }

  /** {@code clamp(1 - weight × pressure, 0, 1)}. */
  public static float pressureFactor(final float weight, final float pressure) {
    final float f = 1f - weight * pressure;
    if (f < 0f) {
      return 0f;
    }
    return f > 1f ? 1f : f;
  }

  /**
   * The SLO coefficient: the tight-TTFT bias when {@code 0 < ttftMs < tightTtftMs} (and both knobs
   * are positive), else 0.
   */
  public static float sloCoefficient(final int ttftMs, final int tightTtftMs, final float bias) {
    return tightTtftMs > 0 && bias > 0f && ttftMs > 0 && ttftMs < tightTtftMs ? bias : 0f;
  }

  /**
   * {@code (total<=1 || matching<0) ? 1 : matching>=total ? 0 : 1 - matching/total}: how much a
   * match tells replicas apart.
   */
  public static float distinguishingPower(final int matching, final int total) {
    if (total <= 1 || matching < 0) {
      return 1f;
    }
    if (matching >= total) {
      return 0f;
    }
    return (float) (1.0 - (double) matching / (double) total);
  }

  /** The PREFIX_MATCH score before distinguishing power: {@code tokens × fresh × pf × slo}. */
  public static float baseScore(
      final int tokens, final float fresh, final float pressureFactor, final float sloBias) {
    return (float) tokens * fresh * pressureFactor * sloBias;
  }
}
