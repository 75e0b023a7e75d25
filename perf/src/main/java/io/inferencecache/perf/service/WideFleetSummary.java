package io.inferencecache.perf.service;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * The summary of {@link WideFleetLoopback}'s rows: per shape the median and range over the rounds,
 * the per-holder-block ratio of {@code capHolders} to 128 holders per round, the capped against
 * uncapped windows, the wide against narrow ingest rates per round; and the Markdown of it.
 */
final class WideFleetSummary {
  static final int BASE_HOLDERS = 128;

  private WideFleetSummary() {}

  /** {median, min, max, n} of {@code values}. */
  static Map<String, Object> stat(final double[] values) {
    final Map<String, Object> m = new LinkedHashMap<>();
    final double[] r = WideFleetShape.range(values);
    m.put("median", LoopbackReport.round(WideFleetShape.median(values), 3));
    m.put("min", LoopbackReport.round(r[0], 3));
    m.put("max", LoopbackReport.round(r[1], 3));
    m.put("n", values.length);
    return m;
  }

  private static double num(final Map<String, Object> row, final String key) {
    final Object v = row.get(key);
    return v == null ? Double.NaN : ((Number) v).doubleValue();
  }

  private static List<Map<String, Object>> of(
      final List<Map<String, Object>> rows, final int holders) {
    final List<Map<String, Object>> out = new ArrayList<>();
    for (Map<String, Object> r : rows) {
      if (((Number) r.get("holders")).intValue() == holders) {
        out.add(r);
      }
    }
    return out;
  }

  private static double[] values(
      final List<Map<String, Object>> rows, final ToDoubleFunction<Map<String, Object>> f) {
    return rows.stream().mapToDouble(f).filter(v -> !Double.isNaN(v)).toArray();
  }

  /** Per round (same index), {@code num(a)/num(b)} of the rows of two shapes. */
  private static double[] ratios(
      final List<Map<String, Object>> a, final List<Map<String, Object>> b, final String key) {
    final List<Double> out = new ArrayList<>();
    for (Map<String, Object> ra : a) {
      for (Map<String, Object> rb : b) {
        if (ra.get("round").equals(rb.get("round"))) {
          final double v = num(ra, key) / num(rb, key);
          if (!Double.isNaN(v)) {
            out.add(v);
          }
        }
      }
    }
    return out.stream().mapToDouble(Double::doubleValue).toArray();
  }

  @SuppressWarnings("unchecked")
  static Map<String, Object> summarize(
      final List<Map<String, Object>> rows,
      final List<Integer> shapes,
      final int capHolders,
      final List<Integer> narrow) {
    final Map<String, Object> s = new LinkedHashMap<>();
    final List<Map<String, Object>> perShape = new ArrayList<>();
    for (int h : shapes) {
      final List<Map<String, Object>> rs = of(rows, h);
      final Map<String, Object> m = new LinkedHashMap<>();
      m.put("holders", h);
      m.put("chains", rs.isEmpty() ? 0 : rs.get(0).get("chains"));
      m.put("holderBlocks", rs.isEmpty() ? 0 : rs.get(0).get("holderBlocks"));
      for (String k :
          List.of(
              "serverMeanUs",
              "perHolderBlockNs",
              "rttP50Us",
              "rttP99Us",
              "responseBytes",
              "ingestEntriesPerSecond")) {
        final double[] v = values(rs, r -> num(r, k));
        if (v.length > 0) {
          m.put(k, stat(v));
        }
      }
      perShape.add(m);
    }
    s.put("shapes", perShape);
    final List<Map<String, Object>> base = of(rows, BASE_HOLDERS);
    final List<Map<String, Object>> wide = of(rows, capHolders);
    if (!base.isEmpty() && !wide.isEmpty()) {
      s.put(
          "perHolderBlock" + capHolders + "Vs" + BASE_HOLDERS,
          stat(ratios(wide, base, "perHolderBlockNs")));
    }
    final List<Map<String, Object>> cappedW = new ArrayList<>();
    final List<Map<String, Object>> uncappedW = new ArrayList<>();
    for (Map<String, Object> r : wide) {
      final Object ws = r.get("capWindows");
      if (ws != null) {
        for (Map<String, Object> w : (List<Map<String, Object>>) ws) {
          (num(w, "maxReplicas") > 0 ? cappedW : uncappedW).add(w);
        }
      }
    }
    if (!cappedW.isEmpty()) {
      final Map<String, Object> cap = new LinkedHashMap<>();
      for (String which : List.of("capped", "uncapped")) {
        final List<Map<String, Object>> ws = "capped".equals(which) ? cappedW : uncappedW;
        final Map<String, Object> m = new LinkedHashMap<>();
        for (String k : List.of("rttP50Us", "rttP99Us", "responseBytes", "serverMeanUs")) {
          m.put(k, stat(values(ws, r -> num(r, k))));
        }
        cap.put(which, m);
      }
      cap.put("maxReplicas", cappedW.get(0).get("maxReplicas"));
      s.put("cap", cap);
    }
    final Map<String, Object> ingest = new LinkedHashMap<>();
    for (int n : narrow) {
      final double[] r = ratios(wide, of(rows, n), "ingestEntriesPerSecond");
      if (r.length > 0) {
        ingest.put("wide" + capHolders + "VsNarrow" + n, stat(r));
      }
    }
    s.put("ingest", ingest);
    return s;
  }

  @SuppressWarnings("unchecked")
  private static String cell(final Map<String, Object> m, final String key, final String fmt) {
    final Map<String, Object> v = (Map<String, Object>) m.get(key);
    if (v == null) {
      return "—";
    }
    return String.format(
        Locale.ROOT,
        fmt + " (" + fmt + "–" + fmt + ")",
        ((Number) v.get("median")).doubleValue(),
        ((Number) v.get("min")).doubleValue(),
        ((Number) v.get("max")).doubleValue());
  }

  /** The summary as Markdown: the shape table, then the ratios, the cap and the ingest lines. */
  @SuppressWarnings("unchecked")
  static String markdown(final Map<String, Object> s, final Map<String, Object> env) {
    final StringBuilder b = new StringBuilder();
    b.append("Before: ").append(env.get("uptimeBefore")).append('\n');
    b.append("After:  ").append(env.get("uptimeAfter")).append("\n\n");
    b.append(
        "| holders (H) | chains | entries | server-side mean µs | per holder-block ns |"
            + " round trip p50 µs | round trip p99 µs | response B | ingest entries/s |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Map<String, Object> m : (List<Map<String, Object>>) s.get("shapes")) {
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %s | %s | %s | %s | %s | %s | %s | %s |%n",
              m.get("holders"),
              m.get("chains"),
              m.get("holderBlocks"),
              cell(m, "serverMeanUs", "%.1f"),
              cell(m, "perHolderBlockNs", "%.2f"),
              cell(m, "rttP50Us", "%.0f"),
              cell(m, "rttP99Us", "%.0f"),
              cell(m, "responseBytes", "%.0f"),
              cell(m, "ingestEntriesPerSecond", "%.0f")));
    }
    b.append("\nmedian (min–max) over the rounds\n");
    for (Map.Entry<String, Object> e : s.entrySet()) {
      if (e.getKey().startsWith("perHolderBlock")) {
        b.append(e.getKey()).append(" per round: ").append(e.getValue()).append('\n');
      }
    }
    if (s.get("cap") != null) {
      b.append("cap: ").append(s.get("cap")).append('\n');
    }
    b.append("ingest: ").append(s.get("ingest")).append('\n');
    return b.toString();
  }
}
