package io.inferencecache.perf.replay;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * An SVG of a {@link FleetGrid}: one panel per trace × KV capacity (rows) × stats interval
 * (columns), TTFT p90 (log scale) against load, one line per policy.
 */
final class FleetGridPlot {
  private static final int PW = 300;
  private static final int PH = 210;
  private static final int ML = 60;
  private static final int MT = 40;
  private static final int GAP = 40;
  private static final String[] COLORS = {
    "#7f7f7f", "#d62728", "#9467bd", "#ff7f0e", "#2ca02c", "#1f77b4", "#8c564b", "#e377c2",
    "#17becf", "#bcbd22"
  };

  private FleetGridPlot() {}

  static String svg(final List<FleetGrid.Cell> cells) {
    final Map<String, List<FleetGrid.Cell>> rows = new LinkedHashMap<>();
    final List<Double> cols = new ArrayList<>();
    final List<FleetPolicy> policies = new ArrayList<>();
    double minLoad = Double.MAX_VALUE;
    double maxLoad = -Double.MAX_VALUE;
    for (FleetGrid.Cell c : cells) {
      rows.computeIfAbsent(c.trace() + " · " + c.capacity() + " blocks", k -> new ArrayList<>())
          .add(c);
      if (!cols.contains(c.statsSeconds())) {
        cols.add(c.statsSeconds());
      }
      for (FleetPolicy p : c.results().keySet()) {
        if (!policies.contains(p)) {
          policies.add(p);
        }
      }
      minLoad = Math.min(minLoad, c.load());
      maxLoad = Math.max(maxLoad, c.load());
    }
    if (maxLoad == minLoad) {
      maxLoad = minLoad + 0.1;
    }
    final int width = ML + cols.size() * (PW + GAP) + 170;
    final int height = MT + rows.size() * (PH + GAP + 20) + 20;
    final StringBuilder b =
        SvgChart.open(
            width,
            height,
            ML,
            "TTFT p90 (ms, log scale) against offered load; columns: stats interval");
    int row = 0;
    for (Map.Entry<String, List<FleetGrid.Cell>> e : rows.entrySet()) {
      for (int col = 0; col < cols.size(); col++) {
        final double interval = cols.get(col);
        final List<FleetGrid.Cell> panel =
            e.getValue().stream().filter(c -> c.statsSeconds() == interval).toList();
        panel(
            b,
            ML + col * (PW + GAP),
            MT + row * (PH + GAP + 20),
            e.getKey() + " · stats " + interval + " s",
            panel,
            policies,
            minLoad,
            maxLoad);
      }
      row++;
    }
    final int lx = ML + cols.size() * (PW + GAP);
    for (int i = 0; i < policies.size(); i++) {
      SvgChart.legend(b, lx, MT + 20 + i * 20, color(policies.get(i)), policies.get(i).label);
    }
    return SvgChart.close(b);
  }

  private static void panel(
      final StringBuilder b,
      final int x0,
      final int y0,
      final String title,
      final List<FleetGrid.Cell> cells,
      final List<FleetPolicy> policies,
      final double minLoad,
      final double maxLoad) {
    double lo = Double.MAX_VALUE;
    double hi = 0;
    for (FleetGrid.Cell c : cells) {
      for (FleetResult r : c.results().values()) {
        lo = Math.min(lo, r.ttftP90Ms());
        hi = Math.max(hi, r.ttftP90Ms());
      }
    }
    final double logLo = Math.floor(Math.log10(Math.max(1, lo)) * 4) / 4;
    final double logHi = Math.max(logLo + 0.25, Math.ceil(Math.log10(Math.max(1, hi)) * 4) / 4);
    SvgChart.frame(b, x0, y0, PW, PH, title);
    for (double t = logLo; t <= logHi + 1e-9; t += 0.25) {
      final double y = y0 + PH - (t - logLo) / (logHi - logLo) * PH;
      SvgChart.yGrid(b, x0, PW, y, String.format(Locale.ROOT, "%,.0f", Math.pow(10, t)));
    }
    for (FleetGrid.Cell c : cells) {
      final double x = x0 + (c.load() - minLoad) / (maxLoad - minLoad) * PW;
      SvgChart.xLabel(b, x, y0 + PH + 14, String.format(Locale.ROOT, "%.0f%%", c.load() * 100));
    }
    for (FleetPolicy p : policies) {
      final StringBuilder pts = new StringBuilder();
      for (FleetGrid.Cell c : cells) {
        final FleetResult r = c.results().get(p);
        if (r == null) {
          continue;
        }
        final double x = x0 + (c.load() - minLoad) / (maxLoad - minLoad) * PW;
        final double v = Math.log10(Math.max(1, r.ttftP90Ms()));
        final double y = y0 + PH - (v - logLo) / (logHi - logLo) * PH;
        pts.append(String.format(Locale.ROOT, "%.1f,%.1f ", x, y));
      }
      SvgChart.line(b, pts.toString(), color(p), p == FleetPolicy.COST_MODEL ? "3" : "1.6");
    }
  }

  private static String color(final FleetPolicy p) {
    return COLORS[p.ordinal() % COLORS.length];
  }
}
