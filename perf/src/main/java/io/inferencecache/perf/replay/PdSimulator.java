package io.inferencecache.perf.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.inferencecache.perf.workload.MooncakeWorkload;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The fleet simulator for disaggregated serving: every {@link PdPolicy} at every offered load on
 * every Mooncake trace, each run a discrete-event simulation of a prefill pool and a decode pool
 * ({@link PdRun}). The index policies ask a fresh in-process index per run, fed in simulated time.
 * Prints the table; {@code --out} writes JSON, {@code --markdown} the table, {@code --plot} an SVG
 * ({@link PdPlot}).
 */
public final class PdSimulator {
  private PdSimulator() {}

  /** One trace at one load: every policy's result. */
  record Row(String trace, double load, List<PdResult> results) {}

  public static void main(final String[] args) throws Exception {
    final PdOptions o;
    try {
      o = PdOptions.parse(args);
    } catch (FleetOptions.UsageException e) {
      final PrintStream out = e.getMessage() == null ? System.out : System.err;
      if (e.getMessage() != null) {
        out.println("PdSimulator: " + e.getMessage());
      }
      out.println(PdOptions.usage());
      System.exit(e.getMessage() == null ? 0 : 2);
      return;
    }
    final List<Row> rows = run(o, !o.quiet);
    final String md = markdown(o, rows);
    if (!o.quiet) {
      System.out.print(md);
    }
    if (o.markdown != null) {
      Files.writeString(Path.of(o.markdown), md, StandardCharsets.UTF_8);
    }
    if (o.out != null) {
      writeJson(o, rows, Path.of(o.out));
    }
    if (o.plot != null) {
      Files.writeString(Path.of(o.plot), PdPlot.svg(rows), StandardCharsets.UTF_8);
    }
  }

  /** Runs every trace × load × policy; progress on stderr when {@code progress}. */
  static List<Row> run(final PdOptions o, final boolean progress) throws Exception {
    final List<Row> rows = new ArrayList<>();
    for (String name : o.traces) {
      final MooncakeTraceFile trace = MooncakeTraceFile.load(MooncakeWorkload.resolve(name));
      final int n = (int) Math.min(trace.requests(), o.maxRequests);
      final double nativeLoad = PdRun.nativeLoad(o, trace, n);
      for (double load : o.loads) {
        final List<PdResult> results = new ArrayList<>();
        for (PdPolicy p : o.policies) {
          final long t0 = System.nanoTime();
          final PdResult r = runOne(o, trace, n, nativeLoad / load, p);
          results.add(r);
          if (progress) {
            System.err.printf(
                Locale.ROOT,
                "%s load %.0f%% %s: TTFT p50 %.0f ms, ITL p99 %.1f ms; mean TTFT parts %s ms"
                    + " (%.1f s)%n",
                name,
                load * 100,
                p.label,
                r.ttftP50Ms(),
                r.itlP99Ms(),
                java.util.Arrays.stream(r.ttftPartsMs())
                    .mapToObj(v -> String.format(Locale.ROOT, "%.0f", v))
                    .collect(java.util.stream.Collectors.joining(" + ")),
                (System.nanoTime() - t0) / 1e9);
          }
        }
        rows.add(new Row(name, load, results));
      }
    }
    return rows;
  }

  static PdResult runOne(
      final PdOptions o,
      final MooncakeTraceFile trace,
      final int n,
      final double timeScale,
      final PdPolicy p)
      throws Exception {
    final SimClock clock = new SimClock();
    try (PdIndex index = p.usesIndex ? new PdIndex(o, p, clock) : null) {
      return new PdRun(o, trace, n, timeScale, p, index, clock).run();
    }
  }

  static String header(final PdOptions o) {
    return String.format(
        Locale.ROOT,
        "%d prefill × %d slot(s) + %d decode × %d slots on %d nodes, %d vendors; prefill %.0f µs per"
            + " uncached token; decode step %.0f ms × (1 + %.2f × (batch − 1)); KV %,d / %,d blocks"
            + " (LRU); %,d B per token over %.0f / %.0f / %.0f GB/s (same node / same vendor /"
            + " cross); stats every %.1f s; seed %d",
        o.prefillReplicas,
        o.prefillSlots,
        o.decodeReplicas,
        o.decodeSlots,
        o.nodes,
        o.vendors,
        o.prefillMicrosPerToken,
        o.decodeStepMs,
        o.decodeBatchSlope,
        o.prefillCapacity,
        o.decodeCapacity,
        o.kvBytesPerToken,
        o.sameNodeGBps,
        o.sameVendorGBps,
        o.crossGBps,
        o.statsIntervalSeconds,
        o.seed);
  }

  static String markdown(final PdOptions o, final List<Row> rows) {
    final StringBuilder b = new StringBuilder(header(o)).append(".\n\n");
    b.append(
        "| trace | load | policy | TTFT p50 | TTFT p99 | ITL p50 | ITL p99 | KV moved |"
            + " decode-local | transfers same node · vendor · cross | hit rate |\n"
            + "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
    for (Row row : rows) {
      for (PdResult r : row.results()) {
        final long[] l = r.linkTransfers();
        final double all = Math.max(1, l[0] + l[1] + l[2]);
        b.append(
            String.format(
                Locale.ROOT,
                "| %s | %.0f %% | %s | %,.0f ms | %,.0f ms | %.1f ms | %.1f ms | %,.0f GB | %.1f %%"
                    + " | %.0f · %.0f · %.0f %% | %.3f |%n",
                row.trace(),
                row.load() * 100,
                r.policy().label,
                r.ttftP50Ms(),
                r.ttftP99Ms(),
                r.itlP50Ms(),
                r.itlP99Ms(),
                r.kvBytesMoved() / 1e9,
                100 * r.decodeLocalFraction(),
                100 * l[0] / all,
                100 * l[1] / all,
                100 * l[2] / all,
                r.hitRate()));
      }
    }
    return b.toString();
  }

  static void writeJson(final PdOptions o, final List<Row> rows, final Path path)
      throws IOException {
    final Map<String, Object> root = new LinkedHashMap<>();
    root.put("header", header(o));
    final List<Map<String, Object>> out = new ArrayList<>();
    for (Row row : rows) {
      for (PdResult r : row.results()) {
        final Map<String, Object> m = new LinkedHashMap<>();
        m.put("trace", row.trace());
        m.put("load", row.load());
        m.put("policy", r.policy().label);
        m.put("requests", r.requests());
        m.put("ttftP50Ms", r.ttftP50Ms());
        m.put("ttftP90Ms", r.ttftP90Ms());
        m.put("ttftP99Ms", r.ttftP99Ms());
        m.put("itlP50Ms", r.itlP50Ms());
        m.put("itlP99Ms", r.itlP99Ms());
        m.put("kvBytesMoved", r.kvBytesMoved());
        m.put("decodeLocalFraction", r.decodeLocalFraction());
        m.put(
            "transfers",
            Map.of(
                "sameNode", r.linkTransfers()[0],
                "sameVendor", r.linkTransfers()[1],
                "cross", r.linkTransfers()[2]));
        m.put("hitRate", r.hitRate());
        m.put("kvEvictions", r.evictions());
        m.put("simulatedSeconds", r.simulatedSeconds());
        final Map<String, Object> parts = new LinkedHashMap<>();
        for (int k = 0; k < PdResult.TTFT_PARTS.length; k++) {
          parts.put(PdResult.TTFT_PARTS[k], r.ttftPartsMs()[k]);
        }
        m.put("ttftMeanPartsMs", parts);
        m.put("reasonCodes", r.reasons());
        out.add(m);
      }
    }
    root.put("results", out);
    new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(path.toFile(), root);
  }
}
