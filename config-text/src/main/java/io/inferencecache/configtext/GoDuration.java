package io.inferencecache.configtext;

import java.math.BigDecimal;
import java.time.Duration;

/**
 * Parses Go {@code time.ParseDuration} strings ({@code "100ms"}, {@code "1.5s"}, {@code "2h45m"})
 * so the duration flags and fields keep the upstream syntax. Units: {@code ns}, {@code us}, {@code
 * \u00b5s} (micro sign), {@code \u03bcs} (Greek mu), {@code ms}, {@code s}, {@code m}, {@code h};
 * an optional sign; {@code "0"} alone needs no unit. Stateless and thread-safe.
 */
public final class GoDuration {
  private GoDuration() {}

  /**
   * @throws IllegalArgumentException when {@code text} is not a Go duration
   */
  public static Duration parse(final String text) {
    if (text == null || text.isEmpty()) {
      throw new IllegalArgumentException("invalid duration \"\"");
    }
    int i = 0;
    boolean negative = false;
    if (text.charAt(0) == '-' || text.charAt(0) == '+') {
      negative = text.charAt(0) == '-';
      i++;
    }
    if (text.substring(i).equals("0")) {
      return Duration.ZERO;
    }
    if (i == text.length()) {
      throw new IllegalArgumentException("invalid duration \"" + text + "\"");
    }
    BigDecimal totalNanos = BigDecimal.ZERO;
    while (i < text.length()) {
      final int numberStart = i;
      boolean digits = false;
      while (i < text.length() && Character.isDigit(text.charAt(i))) {
        i++;
        digits = true;
      }
      if (i < text.length() && text.charAt(i) == '.') {
        i++;
        while (i < text.length() && Character.isDigit(text.charAt(i))) {
          i++;
          digits = true;
        }
      }
      if (!digits) {
        throw new IllegalArgumentException("invalid duration \"" + text + "\"");
      }
      final BigDecimal number = new BigDecimal(text.substring(numberStart, i));
      final int unitStart = i;
      while (i < text.length() && text.charAt(i) != '.' && !Character.isDigit(text.charAt(i))) {
        i++;
      }
      final long unitNanos = unitNanos(text.substring(unitStart, i), text);
      totalNanos = totalNanos.add(number.multiply(BigDecimal.valueOf(unitNanos)));
    }
    if (totalNanos.compareTo(BigDecimal.valueOf(Long.MAX_VALUE)) > 0) {
      throw new IllegalArgumentException("invalid duration \"" + text + "\": overflow");
    }
    final long nanos = totalNanos.longValue();
    return Duration.ofNanos(negative ? -nanos : nanos);
  }

  private static long unitNanos(final String unit, final String text) {
    switch (unit) {
      case "ns":
        return 1L;
      case "us":
      case "\u00b5s":
      case "\u03bcs":
        return 1_000L;
      case "ms":
        return 1_000_000L;
      case "s":
        return 1_000_000_000L;
      case "m":
        return 60_000_000_000L;
      case "h":
        return 3_600_000_000_000L;
      case "":
        throw new IllegalArgumentException("missing unit in duration \"" + text + "\"");
      default:
        throw new IllegalArgumentException(
            "unknown unit \"" + unit + "\" in duration \"" + text + "\"");
    }
  }
}
