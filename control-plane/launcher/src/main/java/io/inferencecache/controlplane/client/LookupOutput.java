package io.inferencecache.controlplane.client;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How {@code client lookup} prints a {@code LookupRouteResponse}.
 *
 * <ul>
 *   <li>{@link #TABLE}: the reason code on its own line, then, when the answer names replicas, a
 *       table {@code RANK REPLICA MATCHED_TOKENS SCORE} in the answer's order (best first). Scores
 *       are written as the shortest decimal of the float.
 *   <li>{@link #JSON}: the whole response in protobuf's JSON mapping (camelCase names, every field
 *       written even when zero or empty), as {@code grpcurl} prints it.
 * </ul>
 *
 * Every output ends with a newline. Stateless and thread-safe.
 */
public enum LookupOutput {
  TABLE,
  JSON;

  private static final JsonFormat.Printer JSON_PRINTER =
      JsonFormat.printer().alwaysPrintFieldsWithNoPresence();

  /**
   * {@code table} or {@code json}, any case.
   *
   * @throws IllegalArgumentException naming the choices
   */
  public static LookupOutput parse(final String text) {
    return switch (text.trim().toLowerCase(Locale.ROOT)) {
      case "table" -> TABLE;
      case "json" -> JSON;
      default ->
          throw new IllegalArgumentException("-o/--output \"" + text + "\": want table or json");
    };
  }

  /** The text to print for {@code r}. */
  public String render(final LookupRouteResponse r) {
    return this == JSON ? json(r) : table(r);
  }

  private static String json(final LookupRouteResponse r) {
    try {
      return JSON_PRINTER.print(r) + "\n";
    } catch (
        InvalidProtocolBufferException e) { // only for Any fields, which this message has none of
      throw new IllegalStateException("cannot print the response as JSON", e);
    }
  }

  private static String table(final LookupRouteResponse r) {
    final StringBuilder out = new StringBuilder(r.getReasonCode()).append('\n');
    if (r.getReplicaScoresCount() == 0) {
      return out.toString();
    }
    final List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"RANK", "REPLICA", "MATCHED_TOKENS", "SCORE"});
    for (int i = 0; i < r.getReplicaScoresCount(); i++) {
      final ReplicaScore s = r.getReplicaScores(i);
      rows.add(
          new String[] {
            Integer.toString(i + 1),
            s.getReplicaId(),
            Integer.toString(s.getMatchedTokens()),
            decimal(s.getScore())
          });
    }
    final int[] width = new int[4];
    for (final String[] row : rows) {
      for (int c = 0; c < row.length; c++) {
        width[c] = Math.max(width[c], row[c].length());
      }
    }
    for (final String[] row : rows) {
      final StringBuilder line = new StringBuilder();
      for (int c = 0; c < row.length; c++) {
        line.append(row[c]);
        if (c < row.length - 1) {
          line.append(" ".repeat(width[c] - row[c].length() + 2));
        }
      }
      out.append(line).append('\n');
    }
    return out.toString();
  }

  /** {@code 64}, {@code 0.5}, {@code 63.99998}: the float's shortest decimal, no exponent. */
  public static String decimal(final float f) {
    if (!Float.isFinite(f)) {
      return Float.toString(f);
    }
    return new BigDecimal(Float.toString(f)).stripTrailingZeros().toPlainString();
  }
}
