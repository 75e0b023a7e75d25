package io.inferencecache.perf.replay;

import java.util.ArrayList;
import java.util.List;

/**
 * Command-line options of {@link PdSimulator}: the disaggregated fleet's shape, speeds, caches and
 * links, the peers' parameters and the outputs. Every option has a default, listed by {@link
 * #usage()} and in the notes of issue 39 (perf/README "Disaggregated serving").
 */
public final class PdOptions {
  List<String> traces = new ArrayList<>(List.of("conversation", "synthetic"));
  List<Double> loads = new ArrayList<>(List.of(0.5, 0.7, 0.9));
  List<PdPolicy> policies = new ArrayList<>(List.of(PdPolicy.values()));

  int prefillReplicas = 8;
  int decodeReplicas = 8;

  /** Nodes; replica {@code i} of each pool runs on node {@code i % nodes}. */
  int nodes = 8;

  /** Accelerator vendors; node {@code n} has vendor {@code n × vendors ÷ nodes}. */
  int vendors = 2;

  /** Concurrent prefills per prefill replica. */
  int prefillSlots = 1;

  /** Running requests (the decode batch, decode-local prefills included) per decode replica. */
  int decodeSlots = 16;

  /** Prefill time per uncached prompt token, µs (prefill and decode replicas alike). */
  double prefillMicrosPerToken = 100;

  /** Decode step time with one running request, ms. */
  double decodeStepMs = 25;

  /** Step growth per further running request: step(b) = stepMs × (1 + slope × (b − 1)). */
  double decodeBatchSlope = 0.06;

  /** Share of the decode speed a decode-local prefill takes from the batch while it runs. */
  double localPrefillStall = 1.0;

  /** KV capacity of a prefill and of a decode replica, 512-token blocks, LRU. */
  int prefillCapacity = 4096;

  int decodeCapacity = 4096;

  long kvBytesPerToken = 131_072;
  double sameNodeGBps = 300;
  double sameVendorGBps = 50;
  double crossGBps = 10;

  double statsIntervalSeconds = 1.0;

  /** pd-router: the topology's decodeLocalPrefillTokens (0 = never decode-local). */
  int decodeLocalTokens = 512;

  /** pd-router: the tenant policy's costModel requestSeconds and slots (0 = prefill slots). */
  double pdRequestSeconds = 1.0;

  int pdSlots = 0;

  /** dynamo-like: cost = overlapWeight × uncached blocks + active blocks; local below tokens. */
  double dynamoOverlapWeight = 1.0;

  int dynamoLocalPrefillTokens = 1000;

  /** llm-d-like: prefill score = wp × prefix + wq × queue + wk × (1 − KV use); threshold. */
  double llmdPrefixWeight = 2;

  double llmdQueueWeight = 1;
  double llmdKvWeight = 1;
  int llmdThresholdTokens = 512;

  /** sglang-like: cache-aware prefill (match rate threshold, load balance thresholds). */
  double sglangCacheThreshold = 0.5;

  int sglangBalanceAbs = 4;
  double sglangBalanceRel = 1.5;

  long seed = 42;
  long maxRequests = Long.MAX_VALUE;
  double ttlMinutes = 30;

  String out;
  String markdown;
  String plot;
  boolean quiet;

  public PdOptions() {}

  /** Parses {@code --name value} pairs (and {@code --quiet}). */
  public static PdOptions parse(final String[] args) {
    final PdOptions o = new PdOptions();
    for (int i = 0; i < args.length; i++) {
      final String a = args[i];
      if (a.equals("-h") || a.equals("--help")) {
        throw new FleetOptions.UsageException(null);
      }
      if (a.equals("--quiet")) {
        o.quiet = true;
        continue;
      }
      if (!a.startsWith("--") || i + 1 >= args.length) {
        throw new FleetOptions.UsageException("expected --name value, got " + a);
      }
      final String v = args[++i];
      try {
        o.set(a, v);
      } catch (NumberFormatException e) {
        throw new FleetOptions.UsageException(a + ": not a number: " + v);
      }
    }
    if (o.nodes < o.vendors) {
      throw new FleetOptions.UsageException("--nodes must be >= --vendors");
    }
    return o;
  }

  private void set(final String a, final String v) {
    switch (a) {
      case "--traces" -> traces = List.of(v.split(","));
      case "--loads" -> loads = loads(v);
      case "--policies" -> policies = PdPolicy.parseList(v);
      case "--prefill-replicas" -> prefillReplicas = min(a, Integer.parseInt(v), 1);
      case "--decode-replicas" -> decodeReplicas = min(a, Integer.parseInt(v), 1);
      case "--nodes" -> nodes = min(a, Integer.parseInt(v), 1);
      case "--vendors" -> vendors = min(a, Integer.parseInt(v), 1);
      case "--prefill-slots" -> prefillSlots = min(a, Integer.parseInt(v), 1);
      case "--decode-slots" -> decodeSlots = min(a, Integer.parseInt(v), 1);
      case "--prefill-us-per-token" -> prefillMicrosPerToken = positive(a, v);
      case "--decode-step-ms" -> decodeStepMs = positive(a, v);
      case "--decode-batch-slope" -> decodeBatchSlope = nonNegative(a, v);
      case "--local-prefill-stall" -> localPrefillStall = fraction(a, v);
      case "--prefill-capacity" -> prefillCapacity = min(a, Integer.parseInt(v), 1);
      case "--decode-capacity" -> decodeCapacity = min(a, Integer.parseInt(v), 1);
      case "--kv-bytes-per-token" -> kvBytesPerToken = min(a, Integer.parseInt(v), 1);
      case "--same-node-gbps" -> sameNodeGBps = positive(a, v);
      case "--same-vendor-gbps" -> sameVendorGBps = positive(a, v);
      case "--cross-gbps" -> crossGBps = positive(a, v);
      case "--stats-interval" -> statsIntervalSeconds = positive(a, v);
      case "--decode-local-tokens" -> decodeLocalTokens = min(a, Integer.parseInt(v), 0);
      case "--pd-request-seconds" -> pdRequestSeconds = positive(a, v);
      case "--pd-slots" -> pdSlots = min(a, Integer.parseInt(v), 0);
      case "--dynamo-overlap-weight" -> dynamoOverlapWeight = nonNegative(a, v);
      case "--dynamo-local-prefill-tokens" ->
          dynamoLocalPrefillTokens = min(a, Integer.parseInt(v), 0);
      case "--llmd-prefix-weight" -> llmdPrefixWeight = nonNegative(a, v);
      case "--llmd-queue-weight" -> llmdQueueWeight = nonNegative(a, v);
      case "--llmd-kv-weight" -> llmdKvWeight = nonNegative(a, v);
      case "--llmd-threshold-tokens" -> llmdThresholdTokens = min(a, Integer.parseInt(v), 0);
      case "--sglang-cache-threshold" -> sglangCacheThreshold = fraction(a, v);
      case "--sglang-balance-abs" -> sglangBalanceAbs = min(a, Integer.parseInt(v), 0);
      case "--sglang-balance-rel" -> sglangBalanceRel = positive(a, v);
      case "--seed" -> seed = Long.parseLong(v);
      case "--requests" -> maxRequests = min(a, Integer.parseInt(v), 1);
      case "--ttl-minutes" -> ttlMinutes = positive(a, v);
      case "--out" -> out = v;
      case "--markdown" -> markdown = v;
      case "--plot" -> plot = v;
      default -> throw new FleetOptions.UsageException("unknown option " + a);
    }
  }

  int replicas() {
    return prefillReplicas + decodeReplicas;
  }

  /** Node of fleet replica {@code r} (prefill replicas first, then decode replicas). */
  int node(final int r) {
    return (r < prefillReplicas ? r : r - prefillReplicas) % nodes;
  }

  int vendor(final int r) {
    return node(r) * vendors / nodes;
  }

  /** Link class of a transfer from replica {@code p} to {@code d}: 0 same node, 1 vendor, 2. */
  int linkClass(final int p, final int d) {
    if (node(p) == node(d)) {
      return 0;
    }
    return vendor(p) == vendor(d) ? 1 : 2;
  }

  /** KV transfer time of {@code tokens} over link class {@code link}, µs. */
  long transferMicros(final long tokens, final int link) {
    final double gbps = link == 0 ? sameNodeGBps : link == 1 ? sameVendorGBps : crossGBps;
    return Math.round(tokens * (double) kvBytesPerToken / (gbps * 1e3));
  }

  /** Decode step time with {@code batch} running requests, µs. */
  double stepMicros(final int batch) {
    return decodeStepMs * 1e3 * (1 + decodeBatchSlope * Math.max(0, batch - 1));
  }

  private static List<Double> loads(final String v) {
    final List<Double> out = new ArrayList<>();
    for (String s : v.split(",")) {
      final double d = Double.parseDouble(s.trim());
      if (!(d > 0 && d < 1.5)) {
        throw new FleetOptions.UsageException("--loads: each load must be in (0, 1.5), not " + s);
      }
      out.add(d);
    }
    return out;
  }

  private static int min(final String name, final int v, final int min) {
    if (v < min) {
      throw new FleetOptions.UsageException(name + " must be >= " + min + ", not " + v);
    }
    return v;
  }

  private static double positive(final String name, final String s) {
    final double v = Double.parseDouble(s);
    if (!(v > 0) || Double.isInfinite(v)) {
      throw new FleetOptions.UsageException(name + " must be > 0, not " + s);
    }
    return v;
  }

  private static double nonNegative(final String name, final String s) {
    final double v = Double.parseDouble(s);
    if (!(v >= 0) || Double.isInfinite(v)) {
      throw new FleetOptions.UsageException(name + " must be >= 0, not " + s);
    }
    return v;
  }

  private static double fraction(final String name, final String s) {
    final double v = Double.parseDouble(s);
    if (!(v >= 0 && v <= 1)) {
      throw new FleetOptions.UsageException(name + " must be in [0, 1], not " + s);
    }
    return v;
  }

  static String usage() {
    return String.join(
        "\n",
        "usage: PdSimulator [options]   (disaggregated prefill/decode fleet, simulated time)",
        "  --traces conversation,synthetic   Mooncake traces (names or JSONL paths)",
        "  --loads 0.5,0.7,0.9           offered load: busier pool's share without prefix reuse",
        "  --policies a,b,...            " + PdPolicy.names(),
        "  --prefill-replicas 8 --decode-replicas 8",
        "  --nodes 8 --vendors 2         replica i of each pool on node i % nodes; vendor by node",
        "  --prefill-slots 1 --decode-slots 16",
        "  --prefill-us-per-token 100    prefill time per uncached token (both pools)",
        "  --decode-step-ms 25 --decode-batch-slope 0.06",
        "                                step = 25 ms × (1 + 0.06 × (running − 1))",
        "  --local-prefill-stall 1       decode speed a decode-local prefill takes (1 = all)",
        "  --prefill-capacity 4096 --decode-capacity 4096   KV blocks (512 tokens), LRU",
        "  --kv-bytes-per-token 131072",
        "  --same-node-gbps 300 --same-vendor-gbps 50 --cross-gbps 10   GB/s per link class",
        "  --stats-interval 1            seconds between each replica's stats report",
        "  --decode-local-tokens 512     pd-router: the topology's decodeLocalPrefillTokens",
        "  --pd-request-seconds 1 --pd-slots 0   pd-router: the tenant's costModel"
            + " requestSeconds and slots (0 = --prefill-slots)",
        "  --dynamo-overlap-weight 1 --dynamo-local-prefill-tokens 1000",
        "  --llmd-prefix-weight 2 --llmd-queue-weight 1 --llmd-kv-weight 1"
            + " --llmd-threshold-tokens 512",
        "  --sglang-cache-threshold 0.5 --sglang-balance-abs 4 --sglang-balance-rel 1.5",
        "  --seed 42  --requests N  --ttl-minutes 30",
        "  --out FILE.json  --markdown FILE.md  --plot FILE.svg  --quiet");
  }
}
