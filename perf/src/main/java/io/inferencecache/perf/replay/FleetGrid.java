package io.inferencecache.perf.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.inferencecache.perf.workload.MooncakeWorkload;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@link FleetSimulator} over a grid, in one JVM: every trace × KV capacity × stats interval ×
 * load, each cell with every policy. A policy that does not read the stats (the exact-state peers)
 * runs once per trace, capacity and load and is shared by that load's cells of every interval.
 * Writes the whole grid as JSON ({@code --out}), Markdown ({@code --markdown}: per cell the TTFT
 * percentiles and hit rates, then the cells that miss a target), and an SVG of TTFT p90 against
 * load ({@code --plot}). The other flags are FleetSimulator's and apply to every cell.
 */
public final class FleetGrid {
  private FleetGrid() {}

  /**
   * One cell: its coordinates, every policy's result, and the trace's TTFT p90 bound ({@link
   * TtftBreakdown#ttftBoundMs}: every request's whole reusable prefix found on an idle replica; no
   * routing goes below it).
   */
  record Cell(
      String trace,
      int capacity,
      double statsSeconds,
      double load,
      Map<FleetPolicy, FleetResult> results,
      double ttftP90BoundMs) {
    double p90(final FleetPolicy p) {
      return results.get(p).ttftP90Ms();
    }
  }

  /** The grid's axes and the per-cell options. */
  static final class Spec {
    List<String> traces = List.of("conversation", "synthetic");
    List<Integer> capacities = List.of(4096, 16384);
    List<Double> intervals = List.of(0.25, 1.0, 2.0);
    List<String> cellArgs = new ArrayList<>();
    String out;
    String markdown;
    String plot;

    static Spec parse(final String[] args) {
      final Spec s = new Spec();
      for (int i = 0; i < args.length; i++) {
        final String a = args[i];
        if (a.equals("--quiet")) {
          continue;
        }
        if (i + 1 >= args.length) {
          throw new FleetOptions.UsageException("expected --name value, got " + a);
        }
        final String v = args[++i];
        switch (a) {
          case "--traces" -> s.traces = List.of(v.split(","));
          case "--capacities" -> s.capacities = split(v).stream().map(Double::intValue).toList();
          case "--stats-intervals" -> s.intervals = split(v);
          case "--out" -> s.out = v;
          case "--markdown" -> s.markdown = v;
          case "--plot" -> s.plot = v;
          default -> {
            s.cellArgs.add(a);
            s.cellArgs.add(v);
          }
        }
      }
      return s;
    }

    private static List<Double> split(final String v) {
      final List<Double> out = new ArrayList<>();
      for (String p : v.split(",")) {
        out.add(Double.parseDouble(p.trim()));
      }
      return out;
    }

    /** The FleetSimulator options of one cell. */
    FleetOptions options(final String trace, final int capacity, final double interval) {
      final List<String> a = new ArrayList<>(cellArgs);
      a.addAll(
          List.of(
              "--trace",
              trace,
              "--capacity",
              Integer.toString(capacity),
              "--stats-interval",
              Double.toString(interval),
              "--quiet"));
      return FleetOptions.parse(a.toArray(String[]::new));
    }
  }

  public static void main(final String[] args) throws Exception {
    final Spec spec;
    try {
      spec = Spec.parse(args);
      spec.options(spec.traces.get(0), spec.capacities.get(0), spec.intervals.get(0));
    } catch (FleetOptions.UsageException | NullPointerException | NumberFormatException e) {
      System.err.println("FleetGrid: " + e.getMessage());
      System.err.println(
          "usage: FleetGrid [--traces a,b] [--capacities 4096,16384] [--stats-intervals"
              + " 0.25,1,2] [--out F.json] [--markdown F.md] [--plot F.svg] [FleetSimulator options]");
      System.exit(2);
      return;
    }
    final List<Cell> cells = run(spec, true);
    final String md = markdown(cells);
    System.out.print(md);
    if (spec.markdown != null) {
      Files.writeString(Path.of(spec.markdown), md, StandardCharsets.UTF_8);
    }
    if (spec.out != null) {
      writeJson(cells, Path.of(spec.out));
    }
    if (spec.plot != null) {
      Files.writeString(Path.of(spec.plot), FleetGridPlot.svg(cells), StandardCharsets.UTF_8);
    }
  }

  /** Runs every cell; progress on stderr when {@code progress}. */
  static List<Cell> run(final Spec spec, final boolean progress) throws Exception {
    final List<Cell> cells = new ArrayList<>();
    for (String traceName : spec.traces) {
      final MooncakeTraceFile trace = MooncakeTraceFile.load(MooncakeWorkload.resolve(traceName));
      for (int capacity : spec.capacities) {
        final FleetOptions first = spec.options(traceName, capacity, spec.intervals.get(0));
        final int n = (int) Math.min(trace.requests(), first.maxRequests);
        final double nativeLoad = FleetRun.nativeLoad(first, trace, n);
        final double bound = TtftBreakdown.ttftBoundMs(first, trace, n, 0.9);
        for (double load : first.loads) {
          final Map<FleetPolicy, FleetResult> shared = new EnumMap<>(FleetPolicy.class);
          for (double interval : spec.intervals) {
            final FleetOptions o = spec.options(traceName, capacity, interval);
            final Map<FleetPolicy, FleetResult> results = new EnumMap<>(FleetPolicy.class);
            for (FleetPolicy p : o.policies) {
              if (!p.readsStats() && shared.containsKey(p)) {
                results.put(p, shared.get(p));
                continue;
              }
              final long t0 = System.nanoTime();
              final FleetResult r = FleetSimulator.runOne(o, trace, n, nativeLoad / load, p);
              results.put(p, r);
              if (!p.readsStats()) {
                shared.put(p, r);
              }
              if (progress) {
                System.err.printf(
                    Locale.ROOT,
                    "%s cap %d stats %.2fs load %.0f%% %s: p90 %.0f ms (%.1f s)%n",
                    traceName,
                    capacity,
                    interval,
                    load * 100,
                    p.label,
                    r.ttftP90Ms(),
                    (System.nanoTime() - t0) / 1e9);
              }
            }
            cells.add(new Cell(traceName, capacity, interval, load, results, bound));
          }
        }
      }
    }
    return cells;
  }

  /** The targets of a cell that the cost model misses, as text; empty when it meets them all. */
  static List<String> misses(final Cell c) {
    final List<String> out = new ArrayList<>();
    if (!c.results.containsKey(FleetPolicy.COST_MODEL)) {
      return out;
    }
    final double cost = c.p90(FleetPolicy.COST_MODEL);
    check(c, out, cost, FleetPolicy.LEAST_LOADED, 1.0);
    final boolean strict =
        c.trace.equals("conversation")
            && (Math.abs(c.load - 0.7) < 1e-9 || Math.abs(c.load - 0.9) < 1e-9);
    check(c, out, cost, FleetPolicy.LLMD, strict ? 0.9 : 1.0);
    final FleetResult llmd = c.results.get(FleetPolicy.LLMD);
    if (strict && llmd != null && 0.9 * llmd.ttftP90Ms() < c.ttftP90BoundMs) {
      out.add(
          String.format(
              Locale.ROOT,
              "0.9× llm-d-like (%,.0f ms) is below the trace's TTFT p90 bound (%,.0f ms): no"
                  + " routing reaches it",
              0.9 * llmd.ttftP90Ms(),
              c.ttftP90BoundMs));
    }
    check(c, out, cost, FleetPolicy.DYNAMO, 1.0);
    return out;
  }

  private static void check(
      final Cell c,
      final List<String> out,
      final double cost,
      final FleetPolicy peer,
      final double factor) {
    final FleetResult r = c.results.get(peer);
    if (r != null && cost > factor * r.ttftP90Ms()) {
      out.add(
          String.format(
              Locale.ROOT,
              "%s ≤ %.1f× %s: %,.0f vs %,.0f ms (%.3f×)",
              "p90",
              factor,
              peer.label,
              cost,
              r.ttftP90Ms(),
              cost / r.ttftP90Ms()));
    }
  }

  static String cellName(final Cell c) {
    return String.format(
        Locale.ROOT,
        "%s, %,d blocks, stats %s s, %.0f %%",
        c.trace,
        c.capacity,
        c.statsSeconds == Math.rint(c.statsSeconds)
            ? Integer.toString((int) c.statsSeconds)
            : Double.toString(c.statsSeconds),
        c.load * 100);
  }

  static String markdown(final List<Cell> cells) {
    final StringBuilder b = new StringBuilder();
    b.append(
        "| trace | KV blocks | stats | load | policy | TTFT p50 | TTFT p90 | TTFT p99 | hit rate"
            + " |\n|---|---:|---:|---:|---|---:|---:|---:|---:|\n");
    for (Cell c : cells) {
      for (FleetResult r : c.results.values()) {
        b.append(
            String.format(
                Locale.ROOT,
                "| %s | %,d | %s s | %.0f %% | %s | %,.0f ms | %,.0f ms | %,.0f ms | %.3f |%n",
                c.trace,
                c.capacity,
                c.statsSeconds,
                c.load * 100,
                r.policy().label,
                r.ttftP50Ms(),
                r.ttftP90Ms(),
                r.ttftP99Ms(),
                r.hitRate()));
      }
    }
    b.append("\nCells where cost-model misses a target:\n\n");
    int missed = 0;
    for (Cell c : cells) {
      for (String m : misses(c)) {
        b.append("- ").append(cellName(c)).append(": ").append(m).append('\n');
        missed++;
      }
    }
    if (missed == 0) {
      b.append("- none\n");
    }
    b.append(
        "\nWhere the TTFT p90 comes from (conversation, 70 % and 90 %): the p90 had no request"
            + " waited, had every request found its whole reusable prefix, and the slowest tenth's"
            + " mean queue wait, prefill and prefill of reusable blocks it missed (ms):\n\n"
            + "| KV blocks | stats | load | policy | TTFT p90 | bound | p90 no wait | p90 full"
            + " reuse | tail wait | tail prefill | tail lost reuse | cost-model picks as cheap as"
            + " on exact state · mean excess |\n"
            + "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Cell c : cells) {
      if (!c.trace.equals("conversation")
          || !(Math.abs(c.load - 0.7) < 1e-9 || Math.abs(c.load - 0.9) < 1e-9)) {
        continue;
      }
      for (FleetResult r : c.results.values()) {
        final TtftBreakdown t = r.breakdown();
        b.append(
            String.format(
                Locale.ROOT,
                "| %,d | %s s | %.0f %% | %s | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f | %,.0f |"
                    + " %,.0f | %s |%n",
                c.capacity,
                c.statsSeconds,
                c.load * 100,
                r.policy().label,
                r.ttftP90Ms(),
                c.ttftP90BoundMs,
                t.p90NoWaitMs(),
                t.p90FullReuseMs(),
                t.tailWaitMs(),
                t.tailPrefillMs(),
                t.tailLostReuseMs(),
                Double.isNaN(r.sameAsExact())
                    ? "—"
                    : String.format(
                        Locale.ROOT,
                        "%.1f %% · %.1f ms",
                        100 * r.sameAsExact(),
                        r.excessCostMs())));
      }
    }
    return b.toString();
  }

  static void writeJson(final List<Cell> cells, final Path path) throws IOException {
    final List<Map<String, Object>> out = new ArrayList<>();
    for (Cell c : cells) {
      for (FleetResult r : c.results.values()) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("trace", c.trace);
        m.put("capacity", c.capacity);
        m.put("statsIntervalSeconds", c.statsSeconds);
        m.put("load", c.load);
        m.put("policy", r.policy().label);
        m.put("hitRate", r.hitRate());
        m.put("ttftP50Ms", r.ttftP50Ms());
        m.put("ttftP90Ms", r.ttftP90Ms());
        m.put("ttftP99Ms", r.ttftP99Ms());
        m.put("queueWaitMeanMs", r.waitMeanMs());
        m.put("requestsPerReplicaMax", r.maxPerReplica());
        m.put("requestsPerReplicaMean", r.meanPerReplica());
        m.put("reasonCodes", r.reasons());
        m.put("ttftP90BoundMs", c.ttftP90BoundMs);
        final TtftBreakdown t = r.breakdown();
        m.put("ttftP90NoWaitMs", t.p90NoWaitMs());
        m.put("ttftP90FullReuseMs", t.p90FullReuseMs());
        m.put("tailWaitMeanMs", t.tailWaitMs());
        m.put("tailPrefillMeanMs", t.tailPrefillMs());
        m.put("tailLostReuseMeanMs", t.tailLostReuseMs());
        if (!Double.isNaN(r.sameAsExact())) {
          m.put("sameAsExactShare", r.sameAsExact());
          m.put("excessExactCostMeanMs", r.excessCostMs());
        }
        out.add(m);
      }
    }
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(path.toFile(), out);
  }
}
