package io.inferencecache.perf.replay;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.perf.MooncakeTrace;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.HdrHistogram.Histogram;

/**
 * Replays a Mooncake trace against the real inference-cache server over gRPC (or the engine alone
 * with {@code --mode engine}) and reports throughput, LookupRoute latency, prefix hit rate against
 * round-robin and random routing, memory per holder-block and the JVM's heap and GC.
 *
 * <p>For each request in arrival order (worker duplication: {@link ReplayTrace}): LookupRoute with
 * its chain; pick a replica from the hint ({@link ReplayOptions.Route}); ReportCacheState the chain
 * as stored on it; the simulated replica ({@link SimulatedReplicas}) evicts its oldest chains when
 * over capacity and reports each evicted block as PublishEvent(PREFIX_EVICTED). Round-robin and
 * random routing are simulated in the same pass on replica sets of their own (no server). The hit
 * rate of a policy is the share of prompt blocks found cached (as a leading run) on the replica it
 * chose, before the request is stored.
 *
 * <p>Latency: with pacing ({@code --speedup X > 0}) every LookupRoute is timed from its intended
 * send time (trace arrival ÷ X), so a replay that falls behind counts its queueing (no coordinated
 * omission); as fast as possible, from the actual send. Run {@code --help} for the options.
 *
 * <p>The printed table: {@code ReplayTable}; the heap and GC figures: {@code JvmSample}; the
 * evictions not yet synced: {@code PendingEvictions}.
 */
public final class TraceReplay {
  private TraceReplay() {}

  public static void main(final String[] args) throws Exception {
    final ReplayOptions o;
    try {
      o = ReplayOptions.parse(args);
    } catch (ReplayOptions.UsageException e) {
      if (e.getMessage() != null) {
        System.err.println("error: " + e.getMessage());
      }
      ReplayOptions.usage()
          .forEach(e.getMessage() == null ? System.out::println : System.err::println);
      System.exit(e.getMessage() == null ? 0 : 2);
      return;
    }
    final Map<String, Object> r = run(o);
    System.out.print(ReplayTable.render(r));
    if (o.out != null) {
      final Path p = Path.of(o.out);
      if (p.toAbsolutePath().getParent() != null) {
        Files.createDirectories(p.toAbsolutePath().getParent());
      }
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(p.toFile(), r);
      System.out.println("wrote " + p);
    }
  }

  /** Runs one replay; returns the figures (the JSON document). */
  public static Map<String, Object> run(final ReplayOptions o) throws Exception {
    final ReplayTrace trace = ReplayTrace.load(MooncakeTrace.resolve(o.trace));
    return run(o, trace);
  }

  static Map<String, Object> run(final ReplayOptions o, final ReplayTrace trace) throws Exception {
    final int d = o.duplication;
    final int n = o.replicas;
    int maxChain = 1;
    for (int i = 0; i < trace.requests(); i++) {
      maxChain = Math.max(maxChain, trace.ids(i).length);
    }
    final long capacityAll = (long) d * n * o.capacity;
    final long maxEntries =
        o.maxEntries > 0 ? o.maxEntries : capacityAll + (long) (o.syncEvery + 1) * maxChain;
    final IndexConfig config =
        new IndexConfig()
            .maxEntries(maxEntries)
            .averageHashBytes(8)
            .averageHoldersPerKey(o.holdersHint)
            .defaultTtlNanos((long) (o.ttlMinutes * 60e9));
    final String model =
        o.target == null ? "mooncake-replay" : "mooncake-replay-" + Instant.now().getEpochSecond();
    final ReplayNames names = new ReplayNames(model, d, n);

    final SimulatedReplicas routed = new SimulatedReplicas(d, n, o.capacity, o.decodeMsPerToken);
    final SimulatedReplicas roundRobin =
        new SimulatedReplicas(d, n, o.capacity, o.decodeMsPerToken);
    final SimulatedReplicas random = new SimulatedReplicas(d, n, o.capacity, o.decodeMsPerToken);
    final int[] rrNext = new int[d];
    final SplittableRandom rnd = new SplittableRandom(o.seed);
    final Histogram latency = new Histogram(TimeUnit.SECONDS.toNanos(60), 3);
    final RouteTarget.Hint hint = new RouteTarget.Hint();
    final int[] hintedBlocks = new int[n];

    final long total = Math.min((long) trace.requests() * d, o.maxRequests);
    long requests = 0;
    long blocks = 0;
    long hitRouted = 0;
    long hitRr = 0;
    long hitRandom = 0;
    long evictions = 0;
    long emptyHints = 0;
    long staleHints = 0;
    long toTopHint = 0;
    long sinceSync = 0;
    long syncs = 0;
    long forcedSyncs = 0;
    long latencyOverflow = 0;
    long nanosLookup = 0;
    long nanosReport = 0;
    long nanosSync = 0;
    final Map<String, Long> reasons = new java.util.TreeMap<>();

    final JvmSample jvmBefore = JvmSample.sample();
    JvmSample.resetPeaks();
    try (RouteTarget target = open(o, config, names)) {
      final PendingEvictions pending = new PendingEvictions(d * n);
      final SimulatedReplicas.Evictions evictionSink =
          (rep, key) -> {
            target.evict(rep, key);
            pending.add(rep, key);
          };
      final long start = System.nanoTime();
      final long deadline =
          o.durationSeconds > 0 ? start + (long) (o.durationSeconds * 1e9) : Long.MAX_VALUE;
      long nextProgress = start + TimeUnit.SECONDS.toNanos(10);
      for (long j = 0; j < total; j++) {
        final int i = (int) (j / d);
        final int copy = (int) (j % d);
        final long ts = trace.timestampMs(i);
        long now = System.nanoTime();
        final long intended;
        if (o.speedup > 0) {
          intended = start + (long) (ts * 1e6 / o.speedup);
          if (intended >= deadline) {
            break;
          }
          while ((now = System.nanoTime()) < intended) {
            final long left = intended - now;
            if (left > 100_000) {
              LockSupport.parkNanos(left - 50_000);
            } else {
              Thread.onSpinWait();
            }
          }
        } else {
          intended = now;
        }
        if (now >= deadline) {
          break;
        }
        if (!o.quiet && now >= nextProgress) {
          System.err.printf(
              Locale.ROOT,
              "replay: %,d / %,d requests, %.0f lookups/s%n",
              j,
              total,
              j / ((now - start) / 1e9));
          nextProgress = now + TimeUnit.SECONDS.toNanos(10);
        }
        final long[] chain = trace.keys(i, copy);
        final int out = trace.outputTokens(i);
        if (j == o.warmup) {
          target.resetServerLatency();
        }

        // The policy under test: the server's hint.
        routed.advance(copy, ts);
        final long sent = System.nanoTime();
        final long t0 = o.speedup > 0 ? intended : sent;
        target.lookup(chain, hint);
        final long took = System.nanoTime() - t0;
        if (j >= o.warmup) {
          if (took > latency.getHighestTrackableValue()) {
            latencyOverflow++;
            latency.recordValue(latency.getHighestTrackableValue());
          } else {
            latency.recordValue(Math.max(1, took));
          }
        }
        final int chosen = choose(o, routed, copy, chain.length, hint, hintedBlocks);
        final int found = routed.prefixMatch(chosen, chain);
        hitRouted += found;
        if (hint.size == 0) {
          emptyHints++;
        } else if (hint.replica[0] == chosen) {
          toTopHint++;
        }
        reasons.merge(hint.reasonCode, 1L, Long::sum);
        final int claimed = hintedBlocks[chosen - routed.first(copy)];
        if (claimed > 0 && claimed != found) {
          staleHints++;
        }
        long t1 = System.nanoTime();
        if (pending.intersects(chosen, chain)) {
          // A block this replica evicted in this epoch is stored again: the eviction must be
          // applied before the new report, or it would remove the re-stored block.
          target.sync();
          pending.clear();
          forcedSyncs++;
          syncs++;
          sinceSync = 0;
          final long t = System.nanoTime();
          nanosSync += t - t1;
          t1 = t;
        }
        target.report(chosen, chain);
        final long t2 = System.nanoTime();
        evictions += routed.serve(chosen, chain, ts, out, evictionSink);
        nanosLookup += t1 - sent;
        nanosReport += t2 - t1;

        // Round-robin and random, on replica sets of their own.
        roundRobin.advance(copy, ts);
        final int rr = roundRobin.first(copy) + rrNext[copy];
        rrNext[copy] = (rrNext[copy] + 1) % n;
        hitRr += roundRobin.prefixMatch(rr, chain);
        roundRobin.serve(rr, chain, ts, out, null);
        random.advance(copy, ts);
        final int rd = random.first(copy) + rnd.nextInt(n);
        hitRandom += random.prefixMatch(rd, chain);
        random.serve(rd, chain, ts, out, null);

        blocks += chain.length;
        requests++;
        if (++sinceSync == o.syncEvery) {
          final long t3 = System.nanoTime();
          target.sync();
          pending.clear();
          nanosSync += System.nanoTime() - t3;
          syncs++;
          sinceSync = 0;
        }
      }
      target.sync();
      syncs++;
      final double wall = (System.nanoTime() - start) / 1e9;
      final JvmSample jvmAfter = JvmSample.sample();

      final Map<String, Object> r = new LinkedHashMap<>();
      r.put("tool", "TraceReplay");
      r.put("date", Instant.now().toString());
      r.put("mode", o.mode);
      r.put("target", target.describe());
      final Map<String, Object> extra = target.figures();
      if (extra != null) {
        r.put("replication", extra);
      }
      r.put("trace", trace.path().getFileName().toString());
      r.put("traceRequests", trace.requests());
      r.put("duplication", d);
      r.put("replicasPerCopy", n);
      r.put("replicas", d * n);
      r.put("capacityBlocksPerReplica", o.capacity);
      r.put("route", o.route.name().toLowerCase(Locale.ROOT));
      r.put("loadWeight", o.loadWeight);
      r.put("decodeMsPerToken", o.decodeMsPerToken);
      r.put("pacing", o.speedup > 0 ? "speedup " + o.speedup : "as fast as possible");
      r.put("syncEvery", o.syncEvery);
      r.put("requests", requests);
      r.put("completed", requests == (long) trace.requests() * d);
      r.put("blocks", blocks);
      r.put("wallSeconds", round(wall, 3));
      r.put("lookupsPerSecond", round(requests / wall, 1));
      r.put("reportsPerSecond", round(requests / wall, 1));
      r.put("evictionEvents", evictions);
      r.put("eventsPerSecond", round((requests + evictions) / wall, 1));
      r.put("blocksReportedPerSecond", round(blocks / wall, 1));
      r.put("syncs", syncs);
      r.put("syncsForcedByRestore", forcedSyncs);
      final Map<String, Object> split = new LinkedHashMap<>();
      split.put("lookup", round(nanosLookup / 1e9, 3));
      split.put("report", round(nanosReport / 1e9, 3));
      split.put("syncAndEvictions", round(nanosSync / 1e9, 3));
      split.put(
          "clientSimulationAndPacing",
          round(wall - (nanosLookup + nanosReport + nanosSync) / 1e9, 3));
      r.put("wallSecondsSplit", split);

      final Map<String, Object> lat = new LinkedHashMap<>();
      lat.put("measuredFrom", o.speedup > 0 ? "intended send time" : "actual send time");
      lat.put("count", latency.getTotalCount());
      lat.put("excludedWarmup", Math.min(o.warmup, requests));
      lat.put("p50", us(latency.getValueAtPercentile(50)));
      lat.put("p90", us(latency.getValueAtPercentile(90)));
      lat.put("p99", us(latency.getValueAtPercentile(99)));
      lat.put("p999", us(latency.getValueAtPercentile(99.9)));
      lat.put("max", us(latency.getMaxValue()));
      lat.put("mean", round(latency.getMean() / 1e3, 2));
      lat.put("overflowAbove60s", latencyOverflow);
      r.put("lookupLatencyUs", lat);
      final Histogram server = target.serverLatency();
      if (server != null) {
        final Map<String, Object> sl = new LinkedHashMap<>();
        sl.put("measuredAs", "the server's LookupRoute handler time, as reported to its metrics");
        sl.put("count", server.getTotalCount());
        sl.put("p50", us(server.getValueAtPercentile(50)));
        sl.put("p90", us(server.getValueAtPercentile(90)));
        sl.put("p99", us(server.getValueAtPercentile(99)));
        sl.put("p999", us(server.getValueAtPercentile(99.9)));
        sl.put("max", us(server.getMaxValue()));
        sl.put("mean", round(server.getMean() / 1e3, 2));
        r.put("serverLookupLatencyUs", sl);
      }

      final Map<String, Object> hit = new LinkedHashMap<>();
      final double hRouted = blocks == 0 ? 0 : (double) hitRouted / blocks;
      final double hRr = blocks == 0 ? 0 : (double) hitRr / blocks;
      final double hRandom = blocks == 0 ? 0 : (double) hitRandom / blocks;
      hit.put("routed", round(hRouted, 5));
      hit.put("roundRobin", round(hRr, 5));
      hit.put("random", round(hRandom, 5));
      hit.put("routedVsRoundRobin", hRr == 0 ? null : round(hRouted / hRr, 4));
      hit.put("routedVsRandom", hRandom == 0 ? null : round(hRouted / hRandom, 4));
      r.put("prefixHitRate", hit);

      final Map<String, Object> routing = new LinkedHashMap<>();
      routing.put("reasonCodes", reasons);
      routing.put("emptyHints", emptyHints);
      routing.put("toTopHint", toTopHint);
      routing.put("staleHintForChosen", staleHints);
      routing.put("requestImbalanceRouted", round(routed.requestImbalance(), 3));
      routing.put("requestImbalanceRoundRobin", round(roundRobin.requestImbalance(), 3));
      routing.put("requestImbalanceRandom", round(random.requestImbalance(), 3));
      r.put("routing", routing);

      final Map<String, Object> idx = new LinkedHashMap<>();
      final long off = target.offHeapBytes();
      final long entries = target.totalEntries();
      idx.put("maxEntries", maxEntries);
      idx.put("holdersHint", o.holdersHint);
      idx.put("offHeapBytes", off < 0 ? null : off);
      idx.put("totalEntries", entries < 0 ? null : entries);
      idx.put("totalKeys", target.totalKeys() < 0 ? null : target.totalKeys());
      idx.put(
          "bytesPerHolderBlock", off < 0 || entries <= 0 ? null : round((double) off / entries, 2));
      idx.put(
          "bytesPerProvisionedHolderBlock", off < 0 ? null : round((double) off / maxEntries, 2));
      idx.put("simulatedStoredBlocks", routed.storedBlocks());
      idx.put("matchesSimulation", entries < 0 ? null : entries == routed.storedBlocks());
      r.put("index", idx);

      r.put("jvm", jvmAfter.minus(jvmBefore));
      final Map<String, Object> env = new LinkedHashMap<>();
      env.put("java", System.getProperty("java.vm.name") + " " + Runtime.version());
      env.put("cores", Runtime.getRuntime().availableProcessors());
      env.put("maxHeapMiB", Runtime.getRuntime().maxMemory() >> 20);
      r.put("environment", env);
      return r;
    }
  }

  private static RouteTarget open(
      final ReplayOptions o, final IndexConfig config, final ReplayNames names) throws Exception {
    if (o.mode.equals("engine")) {
      return new EngineTarget(config, names);
    }
    if (o.mode.equals("replicated")) {
      return new ReplicatedTarget(config, names, o.natsUrl, o.serverReplicas);
    }
    return o.target == null
        ? GrpcTarget.inProcess(config, names)
        : GrpcTarget.remote(o.target, names);
  }

  /**
   * The replica for a request of {@code copy} given the hint; fills {@code hinted[i]} with the
   * hint's matched blocks for the copy's replica {@code i} (0 if not hinted).
   */
  static int choose(
      final ReplayOptions o,
      final SimulatedReplicas replicas,
      final int copy,
      final int chainLength,
      final RouteTarget.Hint hint,
      final int[] hinted) {
    final int first = replicas.first(copy);
    final int n = replicas.perCopy();
    java.util.Arrays.fill(hinted, 0, n, 0);
    for (int h = 0; h < hint.size; h++) {
      final int r = hint.replica[h] - first;
      if (r >= 0 && r < n) {
        hinted[r] = Math.max(hinted[r], hint.matchedBlocks[h]);
      }
    }
    if (o.route == ReplayOptions.Route.HINTED) {
      for (int h = 0; h < hint.size; h++) {
        final int r = hint.replica[h] - first;
        if (r >= 0 && r < n) {
          return hint.replica[h];
        }
      }
      return replicas.leastLoaded(copy);
    }
    int best = -1;
    double bestCost = Double.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      final double cost =
          o.loadWeight * replicas.activeBlocks(first + i)
              + (chainLength - Math.min(chainLength, hinted[i]));
      if (cost < bestCost) {
        bestCost = cost;
        best = first + i;
      }
    }
    return best;
  }

  private static double us(final long nanos) {
    return round(nanos / 1e3, 1);
  }

  static double round(final double v, final int digits) {
    if (Double.isNaN(v) || Double.isInfinite(v)) {
      return v;
    }
    final double f = Math.pow(10, digits);
    return Math.round(v * f) / f;
  }
}
