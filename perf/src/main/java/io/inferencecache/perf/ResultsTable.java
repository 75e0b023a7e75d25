package io.inferencecache.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.DoubleFunction;
import java.util.function.DoublePredicate;

/**
 * Prints the engine results of a run as a Markdown table: per figure the engine ({@code
 * impl=offheap}) and the on-heap reference ({@code impl=onheap}) side by side, the ratio engine ÷
 * reference, the issue-15 target and whether the engine meets it. A figure whose implementation is
 * missing from the files shows "—".
 *
 * <p>Arguments, in any order: JMH JSON result files ({@code -rf json}), {@link MemoryFootprint}
 * JSON files and {@link AllocationProbe} text files (named {@code allocation-*.txt}).
 */
public final class ResultsTable {
  static final String HEADER =
      "| metric | shape / size | engine (`offheap`) | reference (`onheap`)"
          + " | engine ÷ reference | target | engine meets |\n"
          + "|---|---|---:|---:|---:|---|---|\n";

  private static final String[] IMPLS = {IndexUnderTest.OFFHEAP, IndexUnderTest.ONHEAP};
  private static final String[] LOOKUP_BENCHMARKS = {
    "SingleHolderLookupBenchmark",
    "PinnedChainLookupBenchmark",
    "LongChainLookupBenchmark",
    "MooncakeLookupBenchmark"
  };

  /** Matched holder-blocks of one pinned-shape lookup (64 blocks × 16 holders). */
  static final int CREDITED_HOLDER_BLOCKS =
      SyntheticChains.PINNED_BLOCKS * SyntheticChains.PINNED_HOLDERS;

  private final List<JsonNode> jmh = new ArrayList<>();
  private final List<JsonNode> memory = new ArrayList<>();

  /** AllocationProbe: shape → impl → bytes per lookup. */
  private final Map<String, Map<String, Double>> probe = new LinkedHashMap<>();

  private ResultsTable() {}

  public static void main(final String[] args) throws IOException {
    System.out.print(renderFiles(args));
  }

  /** The table (header, rows, footnote) for the given result files. */
  static String renderFiles(final String... args) throws IOException {
    return read(args).render() + "\n" + FOOTNOTE;
  }

  /** The table's header and rows only. */
  static String renderRows(final String... args) throws IOException {
    return read(args).render();
  }

  static final String FOOTNOTE =
      "Ratios are the engine's figure ÷ the other's (below 1 is better for times, bytes and"
          + " allocation, above 1 for throughput). JMH allocation rows (`gc.alloc.rate.norm`,"
          + " sample mode) include the harness' background allocation divided by the operation"
          + " count; the exact rows (`AllocationProbe`, the thread's allocation counter) are the"
          + " ones judged against 0 B. LFU credit = (`lookupAndCredit` − `lookupOnly`) ÷ 1,024"
          + " matched holder-blocks (AverageTime); a difference within the noise can come out"
          + " negative.\n";

  private static ResultsTable read(final String... args) throws IOException {
    final ResultsTable t = new ResultsTable();
    final ObjectMapper mapper = new ObjectMapper();
    for (String a : args) {
      if (Path.of(a).getFileName().toString().startsWith("allocation-")) {
        t.readProbe(Path.of(a));
        continue;
      }
      final JsonNode root = mapper.readTree(new File(a));
      for (JsonNode n : root) {
        if (n.has("benchmark")) {
          t.jmh.add(n);
        } else if (n.has("bytesPerHolderBlock")) {
          t.memory.add(n);
        }
      }
    }
    return t;
  }

  /** Lines {@code shape impl lookups bytesPerLookup} of {@link AllocationProbe}'s output. */
  private void readProbe(final Path file) throws IOException {
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      final String[] f = line.trim().split("\\s+");
      if (f.length >= 4 && f[2].matches("\\d+") && f[3].matches("[0-9.]+")) {
        probe.computeIfAbsent(f[0], k -> new LinkedHashMap<>()).put(f[1], Double.valueOf(f[3]));
      }
    }
  }

  private String render() {
    final StringBuilder sb = new StringBuilder(HEADER);
    latency(sb, 0, "1-block single-holder hit p50", "50.0", 300);
    latency(sb, 0, "1-block single-holder hit p99", "99.0", -1);
    latency(sb, 1, "64-block / 16-holder full match p50", "50.0", 2_000);
    latency(sb, 1, "64-block / 16-holder full match p99", "99.0", 10_000);
    latency(sb, 2, "1,024-block chain p50", "50.0", -1);
    latency(sb, 2, "1,024-block chain p99", "99.0", 50_000);
    latency(sb, 3, "Mooncake request chain p50", "50.0", -1);
    latency(sb, 3, "Mooncake request chain p99", "99.0", 10_000);
    lfuCredit(sb);
    ingest(sb, "newKeys", 3_000_000);
    ingest(sb, "refresh", 5_000_000);
    ingest(sb, "newHolder", -1);
    allocation(sb);
    memoryRows(sb);
    return sb.toString();
  }

  private void latency(
      final StringBuilder sb,
      final int benchmark,
      final String label,
      final String pct,
      final double targetNs) {
    final String bench = LOOKUP_BENCHMARKS[benchmark];
    final JsonNode any = anyImpl(bench, null, null);
    if (any == null) {
      return;
    }
    final double[] v = new double[IMPLS.length];
    for (int i = 0; i < IMPLS.length; i++) {
      v[i] = percentile(find(bench, IMPLS[i], null, null), pct);
    }
    row(
        sb,
        label,
        shapeOf(bench, any),
        v,
        ResultsTable::nanos,
        targetNs < 0 ? "—" : "≤ " + nanos(targetNs),
        targetNs < 0 ? null : x -> x <= targetNs);
  }

  private void lfuCredit(final StringBuilder sb) {
    final JsonNode any = anyImpl("LfuCreditBenchmark.lookupAndCredit", null, null);
    if (any == null) {
      return;
    }
    final double[] v = new double[IMPLS.length];
    for (int i = 0; i < IMPLS.length; i++) {
      final double with = score(find("LfuCreditBenchmark.lookupAndCredit", IMPLS[i], null, null));
      final double without = score(find("LfuCreditBenchmark.lookupOnly", IMPLS[i], null, null));
      v[i] = (with - without) / CREDITED_HOLDER_BLOCKS;
    }
    row(
        sb,
        "LFU credit per matched holder-block",
        "pinned, "
            + any.get("params").path("pinnedChains").asText()
            + " chains, LFU tenant; (lookupAndCredit − lookupOnly) ÷ 1,024",
        v,
        ResultsTable::nanos,
        "—",
        null);
  }

  private void ingest(final StringBuilder sb, final String mode, final double target) {
    final JsonNode any = anyImpl("IngestBenchmark", "mode", mode);
    if (any == null) {
      return;
    }
    final double[] v = new double[IMPLS.length];
    for (int i = 0; i < IMPLS.length; i++) {
      v[i] = score(find("IngestBenchmark", IMPLS[i], "mode", mode));
    }
    final JsonNode p = any.get("params");
    final String shape =
        switch (mode) {
          case "refresh" -> "pinned, " + p.path("refreshChains").asText() + " chains";
          case "newHolder" -> "a holder added to stored 64-block chains";
          default ->
              p.path("newKeysMap").asText("fresh").equals("reused")
                  ? "new keys, one index emptied between iterations"
                  : "new keys, a fresh index each iteration";
        };
    row(
        sb,
        "ingest block upserts/s, 1 writer (" + mode + ")",
        shape,
        v,
        x -> human(x) + "/s",
        target < 0 ? "—" : "≥ " + human(target) + "/s",
        target < 0 ? null : x -> x >= target);
  }

  private void allocation(final StringBuilder sb) {
    for (String bench : LOOKUP_BENCHMARKS) {
      final JsonNode any = anyImpl(bench, null, null);
      if (any == null) {
        continue;
      }
      final double[] v = new double[IMPLS.length];
      for (int i = 0; i < IMPLS.length; i++) {
        v[i] = alloc(find(bench, IMPLS[i], null, null));
      }
      row(
          sb,
          "allocation per lookup (JMH gc.alloc.rate.norm)",
          shapeOf(bench, any),
          v,
          x -> fmt(x, "B/op"),
          "0 B (judged by the exact row)",
          null);
    }
    for (Map.Entry<String, Map<String, Double>> e : probe.entrySet()) {
      final double[] v = new double[IMPLS.length];
      for (int i = 0; i < IMPLS.length; i++) {
        v[i] = e.getValue().getOrDefault(IMPLS[i], Double.NaN);
      }
      row(
          sb,
          "allocation per lookup, exact (AllocationProbe)",
          e.getKey() + " (small shape)",
          v,
          x -> String.format(Locale.ROOT, "%.2f B", x),
          "0 B",
          x -> x < 1.0);
    }
  }

  private void memoryRows(final StringBuilder sb) {
    for (JsonNode m : memory) {
      final String impl = m.get("impl").asText();
      final boolean hinted = impl.startsWith(IndexUnderTest.OFFHEAP + "(");
      if (!hinted && !impl.equals(IndexUnderTest.OFFHEAP)) {
        continue; // one row per engine entry; its reference partner is looked up
      }
      final String suffix = hinted ? impl.substring(impl.indexOf('(')) : "";
      final String shape = m.get("shape").asText();
      final JsonNode ref = memoryRow(shape, IndexUnderTest.ONHEAP);
      final double target =
          switch (shape) {
            case "pinned" -> 24;
            case "mooncake" -> 32;
            default -> -1;
          };
      final String size = shape + " (" + human(m.get("holderBlocks").asLong()) + " hb)";
      row(
          sb,
          "bytes per holder-block, allocated" + (hinted ? " — sized " + suffix : ""),
          size,
          new double[] {bytes(m, "bytesPerHolderBlock"), bytes(ref, "bytesPerHolderBlock")},
          x -> fmt(x, "B"),
          target < 0 ? "—" : "≤ " + fmt(target, "B"),
          target < 0 ? null : x -> x <= target);
    }
  }

  private static double bytes(final JsonNode m, final String field) {
    return m == null || !m.has(field) ? Double.NaN : m.get(field).asDouble();
  }

  private static String shapeOf(final String bench, final JsonNode n) {
    final JsonNode p = n.get("params");
    return switch (bench) {
      case "SingleHolderLookupBenchmark" -> p.get("keys").asText() + " keys × 1 holder";
      case "PinnedChainLookupBenchmark" -> {
        final long chains = p.get("pinnedChains").asLong();
        yield "pinned, " + chains + " chains (" + human(chains * 64 * 16) + " hb)";
      }
      case "LongChainLookupBenchmark" -> {
        final long chains = p.get("longChains").asLong();
        yield "long, " + chains + " chains × 1,024 × 4 holders";
      }
      case "MooncakeLookupBenchmark" ->
          "mooncake " + p.path("trace").asText("conversation") + " trace, 8 replicas";
      default -> "";
    };
  }

  /** The first result of {@code bench} (class, or {@code Class.method}) of any impl. */
  private JsonNode anyImpl(final String bench, final String key, final String v) {
    for (String impl : IMPLS) {
      final JsonNode n = find(bench, impl, key, v);
      if (n != null) {
        return n;
      }
    }
    return null;
  }

  private JsonNode find(final String bench, final String impl, final String key, final String v) {
    for (JsonNode n : jmh) {
      final String name = n.get("benchmark").asText();
      final JsonNode p = n.get("params");
      if ((name.contains("." + bench + ".") || name.endsWith("." + bench))
          && p != null
          && impl.equals(p.path("impl").asText())
          && (key == null || v.equals(p.path(key).asText()))) {
        return n;
      }
    }
    return null;
  }

  private static double score(final JsonNode n) {
    return n == null ? Double.NaN : n.get("primaryMetric").get("score").asDouble() * toNanos(n);
  }

  private static double percentile(final JsonNode n, final String pct) {
    if (n == null) {
      return Double.NaN;
    }
    final JsonNode v = n.get("primaryMetric").get("scorePercentiles").get(pct);
    return v == null ? Double.NaN : v.asDouble() * toNanos(n);
  }

  /** Factor to nanoseconds of a time unit; 1 for anything else (throughput is ops/s). */
  private static double toNanos(final JsonNode n) {
    final String unit = n.get("primaryMetric").get("scoreUnit").asText();
    if (unit.startsWith("us")) {
      return 1_000;
    }
    if (unit.startsWith("ms")) {
      return 1_000_000;
    }
    return 1;
  }

  private static double alloc(final JsonNode n) {
    if (n == null) {
      return Double.NaN;
    }
    final JsonNode v = n.path("secondaryMetrics").path("gc.alloc.rate.norm").path("score");
    return v.isMissingNode() ? Double.NaN : v.asDouble();
  }

  private JsonNode memoryRow(final String shape, final String impl) {
    for (JsonNode m : memory) {
      if (m.get("shape").asText().equals(shape) && m.get("impl").asText().equals(impl)) {
        return m;
      }
    }
    return null;
  }

  /**
   * One row: engine, reference (NaN = not measured), their ratio, target and the engine's verdict.
   */
  private static void row(
      final StringBuilder sb,
      final String metric,
      final String shape,
      final double[] v,
      final DoubleFunction<String> format,
      final String target,
      final DoublePredicate meets) {
    sb.append("| ").append(metric).append(" | ").append(shape);
    for (double x : v) {
      sb.append(" | ").append(Double.isNaN(x) ? "—" : format.apply(x));
    }
    sb.append(" | ")
        .append(ratio(v[0], v[1]))
        .append(" | ")
        .append(target)
        .append(" | ")
        .append(meets == null || Double.isNaN(v[0]) ? "—" : meets.test(v[0]) ? "yes" : "**no**")
        .append(" |\n");
  }

  /** a ÷ b, or "—" when either is missing or not positive (a ratio of noise says nothing). */
  static String ratio(final double a, final double b) {
    if (Double.isNaN(a) || Double.isNaN(b) || a <= 0 || b <= 0) {
      return "—";
    }
    final double r = a / b;
    return String.format(Locale.ROOT, r >= 0.1 ? "%.2f×" : "%.3f×", r);
  }

  static String fmt(final double v, final String unit) {
    if (Double.isNaN(v)) {
      return "—";
    }
    return String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : "%.1f %s", v, unit);
  }

  static String nanos(final double ns) {
    if (Double.isNaN(ns)) {
      return "—";
    }
    if (ns < 0) {
      return "−" + nanos(-ns);
    }
    if (ns >= 1_000_000) {
      return String.format(Locale.ROOT, "%.2f ms", ns / 1e6);
    }
    if (ns >= 10_000) {
      return String.format(Locale.ROOT, "%.1f µs", ns / 1e3);
    }
    if (ns >= 1_000) {
      return String.format(Locale.ROOT, "%.2f µs", ns / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f ns", ns);
  }

  static String human(final double v) {
    if (Double.isNaN(v)) {
      return "—";
    }
    if (v >= 1e6) {
      return String.format(Locale.ROOT, "%.2fM", v / 1e6);
    }
    if (v >= 1e3) {
      return String.format(Locale.ROOT, "%.0fk", v / 1e3);
    }
    return String.format(Locale.ROOT, "%.0f", v);
  }
}
