package io.inferencecache.perf.replay;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * An SVG of a {@link PdSimulator} table: one row of panels per trace, one column per figure (TTFT
 * p50 and p99 on a log scale, inter-token latency p99, KV moved), each figure against offered load,
 * one line per policy (ours drawn thicker).
 */
final class PdPlot {
  private static final int PW = 260;
  private static final int PH = 190;
  private static final int LEFT = 64;
  private static final int TOP = 44;
  private static final int GAP = 56;
  private static final String[] COLORS = {"#d62728", "#7f7f7f", "#1f77b4", "#2ca02c", "#ff7f0e"};

  /** One column: its title, whether its axis is logarithmic, the figure. */
  private record Figure(String title, boolean log, ToDoubleFunction<PdResult> value) {}

  private static final List<Figure> FIGURES =
      List.of(
          new Figure("TTFT p50 (ms, log)", true, PdResult::ttftP50Ms),
          new Figure("TTFT p99 (ms, log)", true, PdResult::ttftP99Ms),
          new Figure("inter-token p99 (ms)", false, PdResult::itlP99Ms),
          new Figure("KV moved (GB)", false, r -> r.kvBytesMoved() / 1e9));

  private PdPlot() {}

  static String svg(final List<PdSimulator.Row> rows) {
    final Map<String, List<PdSimulator.Row>> byTrace = new LinkedHashMap<>();
    final List<PdPolicy> policies = new ArrayList<>();
    for (PdSimulator.Row row : rows) {
      byTrace.computeIfAbsent(row.trace(), k -> new ArrayList<>()).add(row);
      for (PdResult r : row.results()) {
        if (!policies.contains(r.policy())) {
          policies.add(r.policy());
        }
      }
    }
    final int width = LEFT + FIGURES.size() * (PW + GAP) + 130;
    final int height = TOP + byTrace.size() * (PH + GAP) + 10;
    final StringBuilder b =
        SvgChart.open(
            width, height, LEFT, "Disaggregated serving (simulated): figures against offered load");
    int y = TOP;
    for (Map.Entry<String, List<PdSimulator.Row>> e : byTrace.entrySet()) {
      int x = LEFT;
      for (Figure f : FIGURES) {
        panel(b, x, y, e.getKey() + " · " + f.title(), f, e.getValue(), policies);
        x += PW + GAP;
      }
      y += PH + GAP;
    }
    final int lx = LEFT + FIGURES.size() * (PW + GAP) - 20;
    for (int i = 0; i < policies.size(); i++) {
      SvgChart.legend(b, lx, TOP + 10 + i * 18, color(policies.get(i)), policies.get(i).label);
    }
    return SvgChart.close(b);
  }

  private static void panel(
      final StringBuilder b,
      final int x0,
      final int y0,
      final String title,
      final Figure f,
      final List<PdSimulator.Row> rows,
      final List<PdPolicy> policies) {
    double lo = Double.MAX_VALUE;
    double hi = -Double.MAX_VALUE;
    double minLoad = Double.MAX_VALUE;
    double maxLoad = -Double.MAX_VALUE;
    for (PdSimulator.Row row : rows) {
      minLoad = Math.min(minLoad, row.load());
      maxLoad = Math.max(maxLoad, row.load());
      for (PdResult r : row.results()) {
        final double v = scaled(f, f.value().applyAsDouble(r));
        lo = Math.min(lo, v);
        hi = Math.max(hi, v);
      }
    }
    if (f.log()) {
      lo = Math.floor(lo * 4) / 4;
      hi = Math.max(lo + 0.25, Math.ceil(hi * 4) / 4);
    } else {
      lo = 0;
      hi = hi <= 0 ? 1 : hi * 1.05;
    }
    final double spanX = maxLoad > minLoad ? maxLoad - minLoad : 1;
    SvgChart.frame(b, x0, y0, PW, PH, title);
    for (int t = 0; t <= 4; t++) {
      final double v = lo + (hi - lo) * t / 4;
      SvgChart.yGrid(
          b, x0, PW, y0 + PH - (double) t / 4 * PH, label(f.log() ? Math.pow(10, v) : v));
    }
    for (PdSimulator.Row row : rows) {
      SvgChart.xLabel(
          b,
          x0 + (row.load() - minLoad) / spanX * PW,
          y0 + PH + 14,
          String.format(Locale.ROOT, "%.0f%%", row.load() * 100));
    }
    for (PdPolicy p : policies) {
      final StringBuilder pts = new StringBuilder();
      for (PdSimulator.Row row : rows) {
        for (PdResult r : row.results()) {
          if (r.policy() == p) {
            final double v = scaled(f, f.value().applyAsDouble(r));
            pts.append(
                String.format(
                    Locale.ROOT,
                    "%.1f,%.1f ",
                    x0 + (row.load() - minLoad) / spanX * PW,
                    y0 + PH - (v - lo) / (hi - lo) * PH));
          }
        }
      }
      SvgChart.line(b, pts.toString(), color(p), p == PdPolicy.PD_ROUTER ? "3" : "1.6");
    }
  }

  private static double scaled(final Figure f, final double v) {
    return f.log() ? Math.log10(Math.max(1, v)) : v;
  }

  private static String label(final double v) {
    return v >= 100
        ? String.format(Locale.ROOT, "%,.0f", v)
        : String.format(Locale.ROOT, "%.1f", v);
  }

  private static String color(final PdPolicy p) {
    return COLORS[p.ordinal() % COLORS.length];
  }
}
