package io.inferencecache.perf.replay;

import java.util.Locale;
import java.util.Map;

/** The text table {@link TraceReplay} prints: its figures (the JSON document) one per line. */
final class ReplayTable {
  private ReplayTable() {}

  /** The figures as a text table. */
  @SuppressWarnings("unchecked")
  static String render(final Map<String, Object> r) {
    final Map<String, Object> lat = (Map<String, Object>) r.get("lookupLatencyUs");
    final Map<String, Object> hit = (Map<String, Object>) r.get("prefixHitRate");
    final Map<String, Object> routing = (Map<String, Object>) r.get("routing");
    final Map<String, Object> idx = (Map<String, Object>) r.get("index");
    final Map<String, Object> jvm = (Map<String, Object>) r.get("jvm");
    final StringBuilder sb = new StringBuilder();
    final String fmt = "%-44s %s%n";
    sb.append(
        String.format(
            Locale.ROOT,
            "Trace replay: %s x%s, %s replicas (%s per copy), %s blocks/replica, route %s, %s%n",
            r.get("trace"),
            r.get("duplication"),
            r.get("replicas"),
            r.get("replicasPerCopy"),
            r.get("capacityBlocksPerReplica"),
            r.get("route"),
            r.get("pacing")));
    sb.append(String.format(Locale.ROOT, fmt, "target", r.get("target")));
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "requests (of trace x duplication)",
            r.get("requests")
                + " in "
                + r.get("wallSeconds")
                + " s"
                + (Boolean.TRUE.equals(r.get("completed")) ? " (complete)" : " (bounded)")));
    sb.append(String.format(Locale.ROOT, fmt, "lookups/s", r.get("lookupsPerSecond")));
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "events/s (reports + evictions)",
            r.get("eventsPerSecond")
                + "  ("
                + r.get("requests")
                + " reports, "
                + r.get("evictionEvents")
                + " PREFIX_EVICTED)"));
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "LookupRoute latency µs p50 / p99 / p99.9",
            lat.get("p50")
                + " / "
                + lat.get("p99")
                + " / "
                + lat.get("p999")
                + "  (max "
                + lat.get("max")
                + ", n "
                + lat.get("count")
                + ", from "
                + lat.get("measuredFrom")
                + ")"));
    final Map<String, Object> sl = (Map<String, Object>) r.get("serverLookupLatencyUs");
    if (sl != null) {
      sb.append(
          String.format(
              Locale.ROOT,
              fmt,
              "  server-side (handler) p50 / p99 / p99.9",
              sl.get("p50")
                  + " / "
                  + sl.get("p99")
                  + " / "
                  + sl.get("p999")
                  + "  (max "
                  + sl.get("max")
                  + ", n "
                  + sl.get("count")
                  + ")"));
    }
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "prefix hit rate routed / round-robin / random",
            hit.get("routed")
                + " / "
                + hit.get("roundRobin")
                + " / "
                + hit.get("random")
                + "  ("
                + hit.get("routedVsRoundRobin")
                + "x round-robin)"));
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "hints: empty / stale for chosen / to top",
            routing.get("emptyHints")
                + " / "
                + routing.get("staleHintForChosen")
                + " / "
                + routing.get("toTopHint")
                + "  "
                + routing.get("reasonCodes")));
    sb.append(String.format(Locale.ROOT, fmt, "wall seconds split", r.get("wallSecondsSplit")));
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "request imbalance (max/mean) routed / rr",
            routing.get("requestImbalanceRouted")
                + " / "
                + routing.get("requestImbalanceRoundRobin")));
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "bytes per holder-block (offHeap/entries)",
            idx.get("bytesPerHolderBlock") == null
                ? "n/a (index not in this JVM)"
                : idx.get("bytesPerHolderBlock")
                    + "  ("
                    + idx.get("offHeapBytes")
                    + " B / "
                    + idx.get("totalEntries")
                    + " entries, "
                    + idx.get("totalKeys")
                    + " keys; cap "
                    + idx.get("maxEntries")
                    + ", hint "
                    + idx.get("holdersHint")
                    + ")"));
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "index entries = simulated stored blocks",
            idx.get("matchesSimulation")
                + "  (simulated "
                + idx.get("simulatedStoredBlocks")
                + ")"));
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "JVM heap end / peak / max MiB",
            jvm.get("heapUsedEndMiB")
                + " / "
                + jvm.get("heapPeakMiB")
                + " / "
                + jvm.get("heapMaxMiB")));
    sb.append(
        String.format(
            Locale.ROOT,
            fmt,
            "GC collections / total time ms",
            jvm.get("gcCollections") + " / " + jvm.get("gcTimeMs")));
    return sb.toString();
  }
}
