package io.inferencecache.perf.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import io.inferencecache.servelocal.ServeChild;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Issue 41's table over a real server: for each holder count H, a fresh {@code java -jar
 * inference-cache.jar serve} child (gRPC on a random loopback port, its own {@code /metrics}) is
 * loaded through one ReportCacheState stream with 64-block chains of 16 tokens, each held by H of
 * {@code --replicas} replicas, about {@code --entries} storage entries in all; then one caller runs
 * LookupRoute one call at a time. Per shape: the load rate (block entries/s), the server-side mean
 * of the measured window ({@code inferencecache_lookup_route_latency_seconds} sum ÷ count, read
 * from {@code /metrics} before and after), the round trip p50/p99 and the response bytes; at {@code
 * --cap-holders} also windows with {@code max_replicas = --cap} interleaved with uncapped ones.
 * Shapes of {@code --narrow} are only loaded (the ingest comparison). Every shape runs once per
 * round; odd rounds run the shapes in reverse order.
 *
 * <p>The child inherits this JVM's niceness: run it as {@code nice -n -10 java ...} on a shared
 * machine. Progress goes to stderr, the summary table to stdout, everything to {@code --out}.
 */
@Command(
    name = "WideFleetLoopback",
    mixinStandardHelpOptions = true,
    sortOptions = false,
    description =
        "Issue 41's wide-fleet table against real serve processes over loopback gRPC: server-side"
            + " mean, round trip, answer cap, ingest rate.")
public final class WideFleetLoopback implements Callable<Integer> {
  static final String LATENCY = "inferencecache_lookup_route_latency_seconds";
  static final String ENTRIES = "inferencecache_index_storage_entries";
  static final String WARMUP_MODEL = Workload.MODEL + "-warmup";

  @Option(
      names = "--jar",
      defaultValue = "control-plane/launcher/target/inference-cache.jar",
      description = "the server jar (default: ${DEFAULT-VALUE})")
  String jar;

  @Option(
      names = "--holders",
      split = ",",
      defaultValue = "16,64,128,192,255,256,300",
      description = "holders per chain of the measured shapes (default: ${DEFAULT-VALUE})")
  List<Integer> holders;

  @Option(
      names = "--narrow",
      split = ",",
      defaultValue = "1,4",
      description = "holders per chain of shapes only loaded, for the ingest rate (default: 1,4)")
  List<Integer> narrow;

  @Option(
      names = "--ingest-only",
      description = "only load every shape (the ingest comparison; no lookups)")
  boolean ingestOnly;

  @Option(
      names = "--ingest-warmup",
      defaultValue = "0",
      description =
          "storage entries of the same shape loaded (in another model) and cleared before the"
              + " measured load, to warm the server's JIT; 0: none, a cold server (default: 0)")
  long ingestWarmup;

  @Option(names = "--replicas", defaultValue = "512", description = "replicas (default: 512)")
  int replicas;

  @Option(
      names = "--entries",
      defaultValue = "983040",
      description = "storage entries per shape; chains = entries / (64 H) (default: 983040)")
  long entries;

  @Option(names = "--rounds", defaultValue = "3", description = "rounds (default: 3)")
  int rounds;

  @Option(
      names = "--warmup",
      defaultValue = "10",
      description = "seconds of unrecorded lookups on each fresh server (default: 10)")
  double warmupSeconds;

  @Option(
      names = "--seconds",
      defaultValue = "10",
      description = "seconds of the measured window (default: 10)")
  double seconds;

  @Option(
      names = "--cap",
      defaultValue = "8",
      description = "max_replicas of the capped windows (default: 8)")
  int cap;

  @Option(
      names = "--cap-holders",
      defaultValue = "256",
      description = "the shape with capped windows; 0: none (default: 256)")
  int capHolders;

  @Option(
      names = "--cap-windows",
      defaultValue = "4",
      description = "capped and uncapped windows, alternated, capped first (default: 4)")
  int capWindows;

  @Option(
      names = "--cap-seconds",
      defaultValue = "5",
      description = "seconds of each of those windows (default: 5)")
  double capSeconds;

  @Option(
      names = "--max-entries",
      defaultValue = "1000000",
      description = "the server's index.maxEntries (default: ${DEFAULT-VALUE})")
  long maxEntries;

  @Option(
      names = "--holders-hint",
      defaultValue = "1",
      description = "the server's index.averageHoldersPerKey (default: 1, room for --narrow 1)")
  double holdersHint;

  @Option(
      names = "--serve-jvm",
      split = " ",
      defaultValue = "-Xmx1g -XX:+UseTransparentHugePages",
      description = "JVM options of each serve child (default: ${DEFAULT-VALUE})")
  List<String> serveJvm;

  @Option(
      names = "--work",
      description = "directory for the children's configs and logs (default: a temp dir)")
  Path work;

  @Option(names = "--out", description = "write every row and the summary as JSON")
  Path out;

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

  public static void main(final String[] args) {
    System.exit(new CommandLine(new WideFleetLoopback()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    if (rounds < 1 || seconds <= 0 || warmupSeconds < 0 || cap < 1) {
      throw new CommandLine.ParameterException(
          new CommandLine(this), "--rounds, --seconds, --cap must be positive");
    }
    if (work == null) {
      work = Files.createTempDirectory("wide-fleet");
    }
    final List<Integer> all = new ArrayList<>(narrow);
    all.removeAll(holders);
    all.addAll(holders);
    final Map<String, Object> env = new LinkedHashMap<>();
    env.put("date", Instant.now().toString());
    env.put("uptimeBefore", uptime());
    env.put("cores", Runtime.getRuntime().availableProcessors());
    env.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    env.put("jar", jar);
    env.put("serveJvm", serveJvm);
    env.put("serveYaml", yaml());
    env.put("replicas", replicas);
    env.put("entries", entries);
    env.put("seconds", seconds);
    env.put("warmupSeconds", warmupSeconds);
    env.put("ingestWarmupEntries", ingestWarmup);
    final List<Map<String, Object>> rows = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      for (int h : WideFleetShape.roundOrder(all, round)) {
        final Map<String, Object> row = runShape(round, h, ingestOnly || !holders.contains(h));
        System.err.println(row);
        rows.add(row);
      }
    }
    env.put("uptimeAfter", uptime());
    final Map<String, Object> summary = WideFleetSummary.summarize(rows, all, capHolders, narrow);
    System.out.println(WideFleetSummary.markdown(summary, env));
    if (out != null) {
      final Map<String, Object> doc = new LinkedHashMap<>();
      doc.put("environment", env);
      doc.put("summary", summary);
      doc.put("rows", rows);
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(out.toFile(), doc);
      System.err.println("results: " + out);
    }
    return 0;
  }

  String yaml() {
    return "index:\n  maxEntries: "
        + maxEntries
        + "\n  averageHoldersPerKey: "
        + holdersHint
        + "\n  defaultTtl: 24h\n";
  }

  private Map<String, Object> runShape(final int round, final int h, final boolean ingestOnly)
      throws Exception {
    final WideFleetShape shape = WideFleetShape.of(h, replicas, entries);
    final SyntheticChains w = shape.workload();
    final byte[][] reports = WideFleetClient.reports(w);
    final long seed = 41L * 1000 + h;
    final byte[][] requests = ServiceFixture.requests(w, 1024, seed, 0);
    final boolean capped = h == capHolders && !ingestOnly;
    final byte[][] cappedRequests = capped ? ServiceFixture.requests(w, 1024, seed, cap) : null;
    final Map<String, Object> row = new LinkedHashMap<>();
    row.put("round", round);
    row.put("holders", h);
    row.put("chains", shape.chains());
    row.put("holderBlocks", shape.holderBlocks());
    row.put("loadAvgBefore", loadAvg());
    try (ServeChild s =
        new ServeChild(jar, serveJvm, work.resolve("r" + round + "-h" + h), yaml())) {
      s.start().awaitReadyMillis(Duration.ofSeconds(300));
      final String target = s.grpcTarget();
      try (WideFleetClient c =
          new WideFleetClient("127.0.0.1", Integer.parseInt(target.substring(10)))) {
        if (ingestWarmup > 0) {
          final int warmChains =
              (int)
                  Math.min(
                      shape.chains(), Math.max(1, ingestWarmup / shape.holderBlocksPerLookup()));
          c.report(WideFleetClient.reports(w, WARMUP_MODEL, warmChains));
          c.clear(w, replicas, WARMUP_MODEL);
          awaitEntries(s, 0);
          row.put("ingestWarmupEntries", warmChains * shape.holderBlocksPerLookup());
        }
        final long nanos = c.report(reports);
        final double stored = s.metric(ENTRIES);
        if (stored != shape.holderBlocks()) {
          throw new IllegalStateException(
              "H=" + h + ": server holds " + stored + " entries, expected " + shape.holderBlocks());
        }
        row.put("ingestSeconds", round(nanos / 1e9, 3));
        row.put("ingestEntriesPerSecond", Math.round(shape.holderBlocks() / (nanos / 1e9)));
        if (ingestOnly) {
          row.put("loadAvgAfter", loadAvg());
          return row;
        }
        c.check(requests, h, "H=" + h);
        if (capped) {
          c.check(cappedRequests, Math.min(cap, h), "H=" + h + " max_replicas=" + cap);
          c.lookups(cappedRequests, warmupSeconds / 2, maxCalls(warmupSeconds));
          c.lookups(requests, warmupSeconds / 2, maxCalls(warmupSeconds));
        } else {
          c.lookups(requests, warmupSeconds, maxCalls(warmupSeconds));
        }
        row.putAll(window(s, c, shape, requests, seconds));
        if (capped) {
          final List<Map<String, Object>> windows = new ArrayList<>();
          for (int i = 0; i < capWindows; i++) {
            final boolean isCapped = i % 2 == 0;
            final Map<String, Object> cw =
                window(s, c, shape, isCapped ? cappedRequests : requests, capSeconds);
            cw.put("maxReplicas", isCapped ? cap : 0);
            windows.add(cw);
          }
          row.put("capWindows", windows);
        }
      }
    }
    row.put("loadAvgAfter", loadAvg());
    return row;
  }

  /** Waits (at most 120 s) until the server holds {@code n} storage entries. */
  private static void awaitEntries(final ServeChild s, final long n) {
    final long deadline = System.nanoTime() + 120_000_000_000L;
    double now = s.metric(ENTRIES);
    while (now != n) {
      if (System.nanoTime() - deadline > 0) {
        throw new IllegalStateException("server holds " + now + " entries, not " + n);
      }
      java.util.concurrent.locks.LockSupport.parkNanos(50_000_000);
      now = s.metric(ENTRIES);
    }
  }

  /** One measured window: client round trips and the server's own mean over exactly it. */
  private Map<String, Object> window(
      final ServeChild s,
      final WideFleetClient c,
      final WideFleetShape shape,
      final byte[][] requests,
      final double secs)
      throws Exception {
    final double[] before = serverLatency(s);
    final WideFleetClient.Window win = c.lookups(requests, secs, maxCalls(secs));
    final double[] after = serverLatency(s);
    final double serverCalls = after[1] - before[1];
    final double meanNanos = (after[0] - before[0]) / serverCalls * 1e9;
    final Map<String, Object> m = new LinkedHashMap<>();
    m.put("calls", win.calls());
    m.put("serverCalls", Math.round(serverCalls));
    m.put("serverMeanUs", round(meanNanos / 1e3, 2));
    m.put("perHolderBlockNs", round(shape.perHolderBlockNanos(meanNanos), 3));
    final long[] rtt = win.sortedRoundTripNanos();
    m.put("rttP50Us", round(LoopbackClient.Samples.percentileMicros(rtt, 0.5), 1));
    m.put("rttP99Us", round(LoopbackClient.Samples.percentileMicros(rtt, 0.99), 1));
    m.put("responseBytes", round(win.meanResponseBytes(), 1));
    m.put("loadAvg", loadAvg());
    return m;
  }

  private static int maxCalls(final double secs) {
    return (int) Math.min(5_000_000, Math.max(1000, secs * 100_000));
  }

  /** {sum seconds, count} of the LookupRoute latency histogram of this workload's model. */
  private double[] serverLatency(final ServeChild s) throws IOException, InterruptedException {
    final String body =
        http.send(
                HttpRequest.newBuilder(URI.create(s.http("/metrics")))
                    .timeout(Duration.ofSeconds(10))
                    .build(),
                HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8))
            .body();
    return WideFleetShape.histogramSumCount(body, LATENCY, "model=\"" + Workload.MODEL + "\"");
  }

  static double round(final double v, final int digits) {
    return LoopbackReport.round(v, digits);
  }

  private static String loadAvg() {
    try {
      final String[] p = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return String.join(" ", Arrays.copyOf(p, 3));
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String uptime() {
    try {
      final Process p = new ProcessBuilder("uptime").redirectErrorStream(true).start();
      final String s = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
      p.waitFor();
      return s;
    } catch (IOException e) {
      return "load " + loadAvg();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "load " + loadAvg();
    }
  }
}
