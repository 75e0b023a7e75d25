package io.inferencecache.perf.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.policy.CostModelSpec;
import io.inferencecache.engine.policy.LoadAwareSpec;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
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
 * The fleet simulator: every {@link FleetPolicy} at every offered load on the same Mooncake trace,
 * as a discrete-event simulation of vLLM-like replicas ({@link FleetRun}). The hint policies ask a
 * fresh index per run: the {@link io.inferencecache.engine.LookupRouter} in process ({@code --mode
 * engine}, deterministic) or the real server over gRPC on loopback ({@code --mode grpc}). Prints
 * one table; {@code --out} writes JSON, {@code --markdown} the table, {@code --plot} a PNG of TTFT
 * p90 against load.
 */
public final class FleetSimulator {
  private FleetSimulator() {}

  public static void main(final String[] args) throws Exception {
    final FleetOptions o;
    try {
      o = FleetOptions.parse(args);
    } catch (FleetOptions.UsageException e) {
      final PrintStream out = e.getMessage() == null ? System.out : System.err;
      if (e.getMessage() != null) {
        out.println("FleetSimulator: " + e.getMessage());
      }
      out.println(FleetOptions.usage());
      System.exit(e.getMessage() == null ? 0 : 2);
      return;
    }
    final Report report = run(o);
    if (!o.quiet) {
      System.out.print(report.text());
    }
    if (o.markdown != null) {
      Files.writeString(Path.of(o.markdown), report.markdown(), StandardCharsets.UTF_8);
    }
    if (o.out != null) {
      report.writeJson(Path.of(o.out));
    }
    if (o.plot != null) {
      FleetPlot.write(report, Path.of(o.plot));
    }
  }

  /** Runs every policy at every load. */
  static Report run(final FleetOptions o) throws Exception {
    final MooncakeTraceFile trace = MooncakeTraceFile.load(MooncakeWorkload.resolve(o.trace));
    final int n = (int) Math.min(trace.requests(), o.maxRequests);
    final double nativeLoad = FleetRun.nativeLoad(o, trace, n);
    final List<Map.Entry<Double, List<FleetResult>>> rows = new ArrayList<>();
    for (double load : o.loads) {
      final List<FleetResult> perPolicy = new ArrayList<>();
      for (FleetPolicy p : o.policies) {
        perPolicy.add(runOne(o, trace, n, nativeLoad / load, p));
      }
      rows.add(Map.entry(load, perPolicy));
    }
    return new Report(
        o,
        trace,
        n,
        nativeLoad,
        FleetRun.reuseBound(trace, n),
        TtftBreakdown.ttftP50BoundMs(o, trace, n),
        rows);
  }

  static FleetResult runOne(
      final FleetOptions o,
      final MooncakeTraceFile trace,
      final int n,
      final double timeScale,
      final FleetPolicy p)
      throws Exception {
    final SimClock clock = new SimClock();
    if (!p.usesIndex) {
      return new FleetRun(o, trace, n, timeScale, p, null, clock).run();
    }
    final ReplayNames names = new ReplayNames("mooncake-fleet", 1, o.replicas);
    final IndexConfig config =
        new IndexConfig()
            .maxEntries((long) o.replicas * o.capacity * 2 + 65_536)
            .averageHashBytes(8)
            .averageHoldersPerKey(2.0)
            .defaultTtlNanos((long) (o.ttlMinutes * 60e9))
            .clock(clock);
    try (ReplayTarget target =
        o.mode.equals("grpc")
            ? GrpcTarget.inProcess(config, names)
            : new LookupRouterTarget(config, names)) {
      final PolicySnapshot policy = policyFor(o, p);
      if (policy != null) {
        target.policy(policy);
      }
      return new FleetRun(o, trace, n, timeScale, p, target, clock).run();
    }
  }

  /**
   * The tenant's CachePolicy for a hint policy: none for the upstream strategy (the defaults of a
   * tenant without a policy), the load-aware field for {@link FleetPolicy#TOP_HINT_LOAD_AWARE}, its
   * cost model (the fleet's prefill speed and slots) for {@link FleetPolicy#COST_MODEL}.
   */
  static PolicySnapshot policyFor(final FleetOptions o, final FleetPolicy p) {
    if (!p.loadAware) {
      return null;
    }
    final LoadAwareSpec loadAware =
        p == FleetPolicy.COST_MODEL
            ? LoadAwareSpec.costModel(
                new CostModelSpec(
                    (float) o.prefillTokensPerSecond,
                    o.costRequestSeconds > 0 ? (float) o.costRequestSeconds : null,
                    o.slots))
            : new LoadAwareSpec(
                o.pressureTokens > 0 ? o.pressureTokens : null,
                o.pressureBound > 0 ? (float) o.pressureBound : null,
                o.rankedReplicas > 0 ? o.rankedReplicas : null,
                (float) (o.hintPressure < 0 ? 1.0 / o.slots : o.hintPressure));
    final PolicySpec spec =
        PolicySpec.builder(ReplayNames.TENANT)
            .minimumMatchedTokens(64)
            .loadAwareRouting(loadAware)
            .build();
    return new PolicySnapshot(PolicySnapshot.PROPAGATION_VERSION, List.of(spec), List.of());
  }

  /** Everything one run measured, with its inputs. */
  record Report(
      FleetOptions options,
      MooncakeTraceFile trace,
      int requests,
      double nativeLoad,
      double reuseBound,
      double ttftP50BoundMs,
      List<Map.Entry<Double, List<FleetResult>>> rows) {

    String header() {
      return String.format(
          Locale.ROOT,
          "trace %s, %,d requests (reuse bound %.3f, TTFT p50 bound %.0f ms, native load %.3f);"
              + " %d replicas × %d slots,"
              + " %,d KV blocks each (LRU); prefill %,.0f tok/s, decode %,.0f tok/s per slot;"
              + " stats every %.1f s; mode %s; seed %d",
          trace.path().getFileName(),
          requests,
          reuseBound,
          ttftP50BoundMs,
          nativeLoad,
          options.replicas,
          options.slots,
          options.capacity,
          options.prefillTokensPerSecond,
          options.decodeTokensPerSecond,
          options.statsIntervalSeconds,
          options.mode,
          options.seed);
    }

    String text() {
      final StringBuilder b = new StringBuilder(header()).append('\n');
      b.append(
          String.format(
              Locale.ROOT,
              "%-26s %5s %7s %9s %9s %9s %9s %9s %11s %9s %9s%n",
              "policy",
              "load",
              "hit",
              "ttft p50",
              "ttft p90",
              "ttft p99",
              "wait avg",
              "wait p90",
              "req max/avg",
              "affinity",
              "prefix"));
      for (Map.Entry<Double, List<FleetResult>> row : rows) {
        for (FleetResult r : row.getValue()) {
          b.append(
              String.format(
                  Locale.ROOT,
                  "%-26s %4.0f%% %7.3f %7.0fms %7.0fms %7.0fms %7.0fms %7.0fms %5d/%5.0f %8.1f%% %8.1f%%%n",
                  r.policy().label,
                  row.getKey() * 100,
                  r.hitRate(),
                  r.ttftP50Ms(),
                  r.ttftP90Ms(),
                  r.ttftP99Ms(),
                  r.waitMeanMs(),
                  r.waitP90Ms(),
                  r.maxPerReplica(),
                  r.meanPerReplica(),
                  100 * r.share("AFFINITY_HINT"),
                  100 * r.share("PREFIX_MATCH")));
        }
      }
      return b.toString();
    }

    String markdown() {
      final StringBuilder b = new StringBuilder();
      b.append(header()).append(".\n\n");
      b.append(
          "| policy | load | hit rate | TTFT p50 | TTFT p90 | TTFT p99 | queue wait mean · p90"
              + " | requests per replica max · mean | answers AFFINITY_HINT · PREFIX_MATCH |\n");
      b.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
      for (Map.Entry<Double, List<FleetResult>> row : rows) {
        for (FleetResult r : row.getValue()) {
          b.append(
              String.format(
                  Locale.ROOT,
                  "| %s | %.0f %% | %.3f | %,.0f ms | %,.0f ms | %,.0f ms | %,.0f · %,.0f ms | %,d ·"
                      + " %,.0f | %s |%n",
                  r.policy().label,
                  row.getKey() * 100,
                  r.hitRate(),
                  r.ttftP50Ms(),
                  r.ttftP90Ms(),
                  r.ttftP99Ms(),
                  r.waitMeanMs(),
                  r.waitP90Ms(),
                  r.maxPerReplica(),
                  r.meanPerReplica(),
                  r.policy().usesIndex
                      ? String.format(
                          Locale.ROOT,
                          "%.0f %% · %.0f %%",
                          100 * r.share("AFFINITY_HINT"),
                          100 * r.share("PREFIX_MATCH"))
                      : "—"));
        }
      }
      return b.toString();
    }

    void writeJson(final Path path) throws IOException {
      final Map<String, Object> root = new LinkedHashMap<>();
      root.put("header", header());
      root.put("requests", requests);
      root.put("reuseBound", reuseBound);
      root.put("ttftP50BoundMs", ttftP50BoundMs);
      root.put("nativeLoad", nativeLoad);
      final List<Map<String, Object>> out = new ArrayList<>();
      for (Map.Entry<Double, List<FleetResult>> row : rows) {
        for (FleetResult r : row.getValue()) {
          final Map<String, Object> m = new LinkedHashMap<>();
          m.put("policy", r.policy().label);
          m.put("load", row.getKey());
          m.put("hitRate", r.hitRate());
          m.put("ttftP50Ms", r.ttftP50Ms());
          m.put("ttftP90Ms", r.ttftP90Ms());
          m.put("ttftP99Ms", r.ttftP99Ms());
          m.put("queueWaitMeanMs", r.waitMeanMs());
          m.put("queueWaitP90Ms", r.waitP90Ms());
          m.put("requestsPerReplicaMax", r.maxPerReplica());
          m.put("requestsPerReplicaMean", r.meanPerReplica());
          m.put("kvEvictions", r.evictions());
          m.put("simulatedSeconds", r.simulatedSeconds());
          m.put("reasonCodes", r.reasons());
          out.add(m);
        }
      }
      root.put("results", out);
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(path.toFile(), root);
    }
  }
}
