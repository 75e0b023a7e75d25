package io.inferencecache.controlplane.controller;

import io.inferencecache.controlplane.api.GoJson;
import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** How custom-resource status writes rates and times. */
public final class CrText {
  private CrText() {}

  /**
   * A rate as the shortest decimal that reads back as the same float32, in plain notation: {@code
   * "0"}, {@code "1"}, {@code "0.25"}, {@code "0.0000001"} — never an exponent, never {@code ".0"}.
   */
  public static String rate(final double value) {
    final float f = (float) value;
    if (Float.isNaN(f) || Float.isInfinite(f)) {
      throw new IllegalArgumentException("rate is not finite: " + value);
    }
    if (f == 0.0f) {
      return "0";
    }
    return GoJson.shortestDecimal(f).toPlainString();
  }

  /** A time as whole-second RFC 3339 UTC ({@code 2026-12-01T11:03:18Z}); {@code null} stays. */
  public static String time(final Instant t) {
    return t == null ? null : t.truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
