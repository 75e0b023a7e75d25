package io.inferencecache.perf;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Prints the results of a run as a Markdown table, each engine figure beside the on-heap
 * baseline's, with the ratio (engine ÷ baseline) and the target. Arguments: JMH JSON result files
 * ({@code -rf json}) and {@link MemoryFootprint} JSON files, in any order.
 */
public final class ResultsTable {
  private final List<JsonNode> jmh = new ArrayList<>();
  private final List<JsonNode> memory = new ArrayList<>();

  private ResultsTable() {}

  public static void main(final String[] args) throws IOException {
    System.out.print(renderFiles(args));
  }

  /** The table (header, rows, footnote) for the given JMH and MemoryFootprint JSON files. */
  static String renderFiles(final String... args) throws IOException {
    final ResultsTable t = new ResultsTable();
    final ObjectMapper mapper = new ObjectMapper();
    for (String a : args) {
      final JsonNode root = mapper.readTree(new File(a));
      for (JsonNode n : root) {
        if (n.has("benchmark")) {
          t.jmh.add(n);
        } else if (n.has("bytesPerHolderBlock")) {
          t.memory.add(n);
        }
      }
    }
    return t.render();
  }

  private String render() {
    final StringBuilder sb = new StringBuilder();
    sb.append(
            "| metric | shape / size | engine (off-heap) | baseline (on-heap) | engine ÷ baseline")
        .append(" | target | engine meets target |\n");
    sb.append("|---|---|---:|---:|---:|---|---|\n");
    for (JsonNode m : memoryRows("offheap")) {
      final JsonNode base = memoryRow(m.get("shape").asText(), "onheap");
      final double e = m.get("bytesPerHolderBlock").asDouble();
      final double b = base == null ? Double.NaN : base.get("bytesPerHolderBlock").asDouble();
      final String impl = m.get("impl").asText();
      row(
          sb,
          "bytes per holder-block" + (impl.equals("offheap") ? "" : " — " + impl),
          m.get("shape").asText() + " (" + human(m.get("holderBlocks").asLong()) + " hb)",
          fmt(e, "B"),
          fmt(b, "B"),
          e / b,
          "≤ 48 B",
          e <= 48);
    }
    latency(sb, "SingleHolderLookupBenchmark", "1-block single-holder hit p50", "50.0", 500, "ns");
    latency(sb, "SingleHolderLookupBenchmark", "1-block single-holder hit p99", "99.0", -1, "ns");
    latency(sb, "PinnedChainLookupBenchmark", "64-block/16-holder chain p50", "50.0", -1, "ns");
    latency(sb, "PinnedChainLookupBenchmark", "64-block/16-holder chain p99", "99.0", 10_000, "ns");
    latency(sb, "LongChainLookupBenchmark", "1,024-block chain p50", "50.0", -1, "ns");
    latency(sb, "LongChainLookupBenchmark", "1,024-block chain p99", "99.0", 100_000, "ns");
    latency(sb, "MooncakeLookupBenchmark", "Mooncake request chain p50", "50.0", -1, "ns");
    latency(sb, "MooncakeLookupBenchmark", "Mooncake request chain p99", "99.0", -1, "ns");
    for (String mode : new String[] {"newKeys", "refresh"}) {
      final JsonNode e = find("IngestBenchmark", "offheap", "mode", mode);
      final JsonNode b = find("IngestBenchmark", "onheap", "mode", mode);
      if (e == null) {
        continue;
      }
      final double es = e.get("primaryMetric").get("score").asDouble();
      final double bs = b == null ? Double.NaN : b.get("primaryMetric").get("score").asDouble();
      row(
          sb,
          "ingest block upserts/s, 1 writer (" + mode + ")",
          mode.equals("refresh")
              ? "pinned, " + e.get("params").get("refreshChains").asText() + " chains"
              : "fresh index",
          human(es) + "/s",
          human(bs) + "/s",
          es / bs,
          "≥ 2M/s",
          es >= 2_000_000);
    }
    for (String bench :
        new String[] {
          "SingleHolderLookupBenchmark",
          "PinnedChainLookupBenchmark",
          "LongChainLookupBenchmark",
          "MooncakeLookupBenchmark"
        }) {
      final JsonNode e = find(bench, "offheap", null, null);
      final JsonNode b = find(bench, "onheap", null, null);
      final double ea = alloc(e);
      final double ba = alloc(b);
      if (Double.isNaN(ea)) {
        continue;
      }
      row(
          sb,
          "allocation per lookup (gc.alloc.rate.norm)",
          shapeOf(bench, e),
          fmt(ea, "B/op"),
          fmt(ba, "B/op"),
          ea / ba,
          "0 B/op",
          ea < 1.0);
    }
    sb.append(
        "\nAllocation in sample mode: gc.alloc.rate.norm includes the harness' background"
            + " allocation divided by the operation count; AllocationProbe gives exact bytes per"
            + " lookup.\n");
    return sb.toString();
  }

  private void latency(
      final StringBuilder sb,
      final String bench,
      final String label,
      final String pct,
      final double targetNs,
      final String unit) {
    final JsonNode e = find(bench, "offheap", null, null);
    final JsonNode b = find(bench, "onheap", null, null);
    if (e == null) {
      return;
    }
    final double ev = percentile(e, pct);
    final double bv = percentile(b, pct);
    row(
        sb,
        label,
        shapeOf(bench, e),
        nanos(ev),
        nanos(bv),
        ev / bv,
        targetNs < 0 ? "—" : "≤ " + nanos(targetNs),
        targetNs < 0 ? null : ev <= targetNs);
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
      case "MooncakeLookupBenchmark" -> "mooncake conversation trace, 8 replicas";
      default -> "";
    };
  }

  private JsonNode find(final String bench, final String impl, final String key, final String v) {
    for (JsonNode n : jmh) {
      final String name = n.get("benchmark").asText();
      final JsonNode p = n.get("params");
      if (name.contains("." + bench + ".")
          && p != null
          && impl.equals(p.path("impl").asText())
          && (key == null || v.equals(p.path(key).asText()))) {
        return n;
      }
    }
    return null;
  }

  private static double percentile(final JsonNode n, final String pct) {
    if (n == null) {
      return Double.NaN;
    }
    final JsonNode v = n.get("primaryMetric").get("scorePercentiles").get(pct);
    return v == null ? Double.NaN : v.asDouble() * toNanos(n);
  }

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

  private List<JsonNode> memoryRows(final String implPrefix) {
    final List<JsonNode> out = new ArrayList<>();
    for (JsonNode m : memory) {
      if (m.get("impl").asText().startsWith(implPrefix)) {
        out.add(m);
      }
    }
    return out;
  }

  private JsonNode memoryRow(final String shape, final String impl) {
    for (JsonNode m : memory) {
      if (m.get("shape").asText().equals(shape) && m.get("impl").asText().equals(impl)) {
        return m;
      }
    }
    return null;
  }

  private static void row(
      final StringBuilder sb,
      final String metric,
      final String shape,
      final String engine,
      final String baseline,
      final double ratio,
      final String target,
      final Boolean meets) {
    sb.append("| ")
        .append(metric)
        .append(" | ")
        .append(shape)
        .append(" | ")
        .append(engine)
        .append(" | ")
        .append(baseline)
        .append(" | ")
        .append(Double.isNaN(ratio) ? "—" : String.format(Locale.ROOT, "%.2f×", ratio))
        .append(" | ")
        .append(target)
        .append(" | ")
        .append(meets == null ? "—" : meets ? "yes" : "**no**")
        .append(" |\n");
  }

  private static String fmt(final double v, final String unit) {
    if (Double.isNaN(v)) {
      return "—";
    }
    return String.format(Locale.ROOT, v >= 100 ? "%.0f %s" : "%.1f %s", v, unit);
  }

  private static String nanos(final double ns) {
    if (Double.isNaN(ns)) {
      return "—";
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

  private static String human(final double v) {
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
