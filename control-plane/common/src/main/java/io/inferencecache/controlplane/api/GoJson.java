package io.inferencecache.controlplane.api;

import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/**
 * Writes JSON text exactly as Go's {@code encoding/json} encoder does for the values the HTTP
 * surfaces emit: strings (HTML-safe escaping), float32 numbers (shortest round-trip decimal) and
 * {@code time.Time} (RFC 3339 with trimmed nanoseconds, always UTC). Stateless and thread-safe.
 */
public final class GoJson {
  private static final char[] HEX = "0123456789abcdef".toCharArray();
  private static final BigDecimal PLAIN_LOW = new BigDecimal("1e-6");
  private static final BigDecimal PLAIN_HIGH = new BigDecimal("1e21");

  /** Go's zero {@code time.Time} as text. */
  public static final String ZERO_TIME = "0001-01-01T00:00:00Z";

  private GoJson() {}

  /** Appends {@code s} as a quoted JSON string, escaping like Go (HTML-safe, U+2028/2029). */
  public static StringBuilder string(final StringBuilder out, final String s) {
    out.append('"');
    final int n = s.length();
    for (int i = 0; i < n; i++) {
      final char c = s.charAt(i);
      switch (c) {
        case '"' -> out.append("\\\"");
        case '\\' -> out.append("\\\\");
        case '\n' -> out.append("\\n");
        case '\r' -> out.append("\\r");
        case '\t' -> out.append("\\t");
        case '\b' -> out.append("\\b");
        case '\f' -> out.append("\\f");
        case '<', '>', '&', '\u2028', '\u2029' -> unicodeEscape(out, c);
        default -> {
          if (c < 0x20) {
            unicodeEscape(out, c);
          } else if (Character.isSurrogate(c)) {
            // Lone surrogates are invalid UTF-8 upstream: written as U+FFFD.
            if (Character.isHighSurrogate(c)
                && i + 1 < n
                && Character.isLowSurrogate(s.charAt(i + 1))) {
              out.append(c).append(s.charAt(++i));
            } else {
              out.append('\ufffd');
            }
          } else {
            out.append(c);
          }
        }
      }
    }
    return out.append('"');
  }

  private static void unicodeEscape(final StringBuilder out, final char c) {
    out.append("\\u")
        .append(HEX[(c >> 12) & 0xF])
        .append(HEX[(c >> 8) & 0xF])
        .append(HEX[(c >> 4) & 0xF])
        .append(HEX[c & 0xF]);
  }

  /**
   * Appends a float32 as Go's encoder writes it: the shortest decimal that parses back to the same
   * float32, in plain notation for {@code 1e-6 <= |x| < 1e21} (and 0), exponent notation otherwise
   * ({@code 1e-7}, {@code 1.5e+21}). Non-finite values are not valid JSON and are rejected.
   *
   * @throws IllegalArgumentException for NaN or infinities
   */
  public static StringBuilder float32(final StringBuilder out, final float f) {
    return out.append(formatFloat32(f));
  }

  /** See {@link #float32(StringBuilder, float)}. */
  public static String formatFloat32(final float f) {
    if (Float.isNaN(f) || Float.isInfinite(f)) {
      throw new IllegalArgumentException("json: unsupported value: " + f);
    }
    if (f == 0.0f) {
      return (Float.floatToRawIntBits(f) < 0) ? "-0" : "0";
    }
    final BigDecimal shortest = shortestFloat32(f);
    final BigDecimal abs = shortest.abs();
    if (abs.compareTo(PLAIN_LOW) >= 0 && abs.compareTo(PLAIN_HIGH) < 0) {
      return shortest.toPlainString();
    }
    return exponent(shortest);
  }

  /**
   * The shortest decimal (fewest significant digits, then closest) that reads back as {@code f};
   * {@code f} must be finite and non-zero.
   */
  public static BigDecimal shortestDecimal(final float f) {
    return shortestFloat32(f);
  }

  /** The shortest decimal (fewest significant digits, then closest) that round-trips {@code f}. */
  static BigDecimal shortestFloat32(final float f) {
    final BigDecimal exact = new BigDecimal(f);
    final RoundingMode[] modes = {RoundingMode.HALF_EVEN, RoundingMode.FLOOR, RoundingMode.CEILING};
    for (int digits = 1; digits <= 9; digits++) {
      final MathContext mc = new MathContext(digits, RoundingMode.HALF_EVEN);
      BigDecimal best = null;
      for (final RoundingMode mode : modes) {
        final BigDecimal candidate =
            exact.round(new MathContext(mc.getPrecision(), mode)).stripTrailingZeros();
        if (candidate.floatValue() == f) {
          if (best == null
              || candidate.subtract(exact).abs().compareTo(best.subtract(exact).abs()) < 0) {
            best = candidate;
          }
        }
      }
      if (best != null) {
        return best;
      }
    }
    return exact.round(new MathContext(9, RoundingMode.HALF_EVEN)).stripTrailingZeros();
  }

  /** Go's {@code 'e'} format with -1 precision, then its JSON clean-up of {@code e-0X}. */
  private static String exponent(final BigDecimal value) {
    final BigDecimal v = value.stripTrailingZeros();
    final String digits = v.unscaledValue().abs().toString();
    final int exp = digits.length() - 1 - v.scale();
    final StringBuilder sb = new StringBuilder(16);
    if (v.signum() < 0) {
      sb.append('-');
    }
    sb.append(digits.charAt(0));
    if (digits.length() > 1) {
      sb.append('.').append(digits, 1, digits.length());
    }
    sb.append('e').append(exp < 0 ? '-' : '+');
    final int a = Math.abs(exp);
    if (a < 10 && exp >= 0) {
      sb.append('0');
    }
    sb.append(a);
    return sb.toString();
  }

  /**
   * Appends a quoted RFC 3339 time with nanoseconds trimmed of trailing zeros (Go's {@code
   * RFC3339Nano}) in UTC; {@code epochNanos == 0} is Go's zero time {@value #ZERO_TIME}.
   */
  public static StringBuilder time(final StringBuilder out, final long epochNanos) {
    return out.append('"').append(formatTime(epochNanos)).append('"');
  }

  /** See {@link #time(StringBuilder, long)}. */
  public static String formatTime(final long epochNanos) {
    if (epochNanos == 0) {
      return ZERO_TIME;
    }
    final Instant instant =
        Instant.ofEpochSecond(
            Math.floorDiv(epochNanos, 1_000_000_000L), Math.floorMod(epochNanos, 1_000_000_000L));
    final LocalDateTime t = LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    final StringBuilder sb = new StringBuilder(30);
    pad(sb, t.getYear(), 4).append('-');
    pad(sb, t.getMonthValue(), 2).append('-');
    pad(sb, t.getDayOfMonth(), 2).append('T');
    pad(sb, t.getHour(), 2).append(':');
    pad(sb, t.getMinute(), 2).append(':');
    pad(sb, t.getSecond(), 2);
    final int nanos = t.getNano();
    if (nanos != 0) {
      final StringBuilder frac = new StringBuilder(9);
      pad(frac, nanos, 9);
      int end = 9;
      while (frac.charAt(end - 1) == '0') {
        end--;
      }
      sb.append('.').append(frac, 0, end);
    }
    return sb.append('Z').toString();
  }

  private static StringBuilder pad(final StringBuilder sb, final int v, final int width) {
    final String s = Integer.toString(v);
    for (int i = s.length(); i < width; i++) {
      sb.append('0');
    }
    return sb.append(s);
  }
}
