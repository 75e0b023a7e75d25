package io.inferencecache.perf.replay;

import java.util.ArrayList;
import java.util.List;

/**
 * Command-line options of {@link FleetSimulator}. Every field has a default; the cost model's
 * defaults and where they come from are listed in perf/README.md ("Routing quality (fleet
 * simulation)").
 */
public final class FleetOptions {
  String trace;

  /** {@code engine} (default: LookupRouter in process, deterministic) or {@code grpc}. */
  String mode = "engine";

  int replicas = 8;
  int slots = 8;

  /** KV capacity of one replica, in 512-token blocks. */
  int capacity = 8192;

  /** Prefill speed of one slot, tokens per second. */
  double prefillTokensPerSecond = 10_000;

  /** Decode speed of one slot, tokens per second. */
  double decodeTokensPerSecond = 100;

  /** Interval of each replica's stats report (ReplicaStats with its pressure), seconds. */
  double statsIntervalSeconds = 1.0;

  /** Offered loads, as fractions of the fleet's slot-time (see {@link FleetRun}). */
  List<Double> loads = new ArrayList<>(List.of(0.5, 0.7, 0.9));

  List<FleetPolicy> policies = new ArrayList<>(List.of(FleetPolicy.values()));

  long seed = 42;
  long maxRequests = Long.MAX_VALUE;
  double ttlMinutes = 30;

  /** llm-d-like scorer weights: prefix fraction, queue, KV use. */
  double llmdPrefixWeight = 2;

  double llmdQueueWeight = 1;
  double llmdKvWeight = 1;

  /** Dynamo-like cost: overlap weight on prefill blocks, softmax temperature (0 = argmin). */
  double dynamoOverlapWeight = 1.0;

  double dynamoTemperature = 0.0;

  /**
   * The load-aware strategy's parameters, as written in the CachePolicy (see
   * docs/configuration.md).
   */
  int pressureTokens = 0;

  double pressureBound = 0;
  int rankedReplicas = 0;

  /** The load-aware policy's hintPressure; negative = {@code 1 ÷ slots}. */
  double hintPressure = -1;

  /** The cost model's requestSeconds (0 = the policy default). */
  double costRequestSeconds = 0;

  /**
   * Stats pressure {@code min(1, (running + waiting) ÷ ceiling)} (the sidecar's clamp) when {@code
   * > 0}; 0 = {@code (running + waiting) ÷ slots}, unclamped.
   */
  int pressureCeiling = 0;

  /**
   * {@code greedy-exact-ttft}: whether it knows every request's output length (true: each running
   * request's end and each queued request's decode exactly) or only the trace's mean (a running
   * request ends at its start + prefill + the mean decode, at the earliest now).
   */
  boolean greedyClairvoyant = true;

  String out;
  String markdown;
  String plot;
  boolean quiet;

  public FleetOptions() {}

  /** Parses {@code --name value} pairs (and {@code --quiet}). */
  public static FleetOptions parse(final String[] args) {
    final FleetOptions o = new FleetOptions();
    for (int i = 0; i < args.length; i++) {
      final String a = args[i];
      if (a.equals("-h") || a.equals("--help")) {
        throw new UsageException(null);
      }
      if (a.equals("--quiet")) {
        o.quiet = true;
        continue;
      }
      if (!a.startsWith("--") || i + 1 >= args.length) {
        throw new UsageException("expected --name value, got " + a);
      }
      final String v = args[++i];
      try {
        switch (a) {
          case "--trace" -> o.trace = v;
          case "--mode" -> o.mode = mode(v);
          case "--replicas" -> o.replicas = atLeast(a, Integer.parseInt(v), 1);
          case "--slots" -> o.slots = atLeast(a, Integer.parseInt(v), 1);
          case "--capacity" -> o.capacity = atLeast(a, Integer.parseInt(v), 1);
          case "--prefill-tps" -> o.prefillTokensPerSecond = positive(a, Double.parseDouble(v));
          case "--decode-tps" -> o.decodeTokensPerSecond = positive(a, Double.parseDouble(v));
          case "--stats-interval" -> o.statsIntervalSeconds = positive(a, Double.parseDouble(v));
          case "--loads" -> o.loads = loads(v);
          case "--policies" -> o.policies = policies(v);
          case "--seed" -> o.seed = Long.parseLong(v);
          case "--requests" -> o.maxRequests = atLeast(a, Long.parseLong(v), 1);
          case "--ttl-minutes" -> o.ttlMinutes = positive(a, Double.parseDouble(v));
          case "--llmd-prefix-weight" -> o.llmdPrefixWeight = Double.parseDouble(v);
          case "--llmd-queue-weight" -> o.llmdQueueWeight = Double.parseDouble(v);
          case "--llmd-kv-weight" -> o.llmdKvWeight = Double.parseDouble(v);
          case "--dynamo-overlap-weight" -> o.dynamoOverlapWeight = Double.parseDouble(v);
          case "--dynamo-temperature" -> o.dynamoTemperature = atLeast(a, Double.parseDouble(v));
          case "--pressure-tokens" -> o.pressureTokens = atLeast(a, Integer.parseInt(v), 0);
          case "--pressure-bound" -> o.pressureBound = atLeast(a, Double.parseDouble(v));
          case "--ranked-replicas" -> o.rankedReplicas = atLeast(a, Integer.parseInt(v), 0);
          case "--hint-pressure" -> o.hintPressure = atLeast(a, Double.parseDouble(v));
          case "--cost-request-seconds" -> o.costRequestSeconds = atLeast(a, Double.parseDouble(v));
          case "--pressure-ceiling" -> o.pressureCeiling = atLeast(a, Integer.parseInt(v), 0);
          case "--greedy-output" -> o.greedyClairvoyant = greedyOutput(v);
          case "--out" -> o.out = v;
          case "--markdown" -> o.markdown = v;
          case "--plot" -> o.plot = v;
          default -> throw new UsageException("unknown option " + a);
        }
      } catch (NumberFormatException e) {
        throw new UsageException(a + ": not a number: " + v);
      }
    }
    return o;
  }

  private static String mode(final String v) {
    if (!v.equals("engine") && !v.equals("grpc")) {
      throw new UsageException("--mode must be engine or grpc, not " + v);
    }
    return v;
  }

  private static boolean greedyOutput(final String v) {
    if (!v.equals("exact") && !v.equals("mean")) {
      throw new UsageException("--greedy-output must be exact or mean, not " + v);
    }
    return v.equals("exact");
  }

  private static List<Double> loads(final String v) {
    final List<Double> out = new ArrayList<>();
    for (String s : v.split(",")) {
      final double d = Double.parseDouble(s.trim());
      if (!(d > 0 && d < 1.5)) {
        throw new UsageException("--loads: each load must be in (0, 1.5), not " + s);
      }
      out.add(d);
    }
    return out;
  }

  private static List<FleetPolicy> policies(final String v) {
    final List<FleetPolicy> out = new ArrayList<>();
    for (String s : v.split(",")) {
      out.add(FleetPolicy.parse(s.trim()));
    }
    return out;
  }

  private static int atLeast(final String name, final int v, final int min) {
    if (v < min) {
      throw new UsageException(name + " must be >= " + min + ", not " + v);
    }
    return v;
  }

  private static long atLeast(final String name, final long v, final long min) {
    if (v < min) {
      throw new UsageException(name + " must be >= " + min + ", not " + v);
    }
    return v;
  }

  private static double atLeast(final String name, final double v) {
    if (!(v >= 0)) {
      throw new UsageException(name + " must be >= 0, not " + v);
    }
    return v;
  }

  private static double positive(final String name, final double v) {
    if (!(v > 0)) {
      throw new UsageException(name + " must be > 0, not " + v);
    }
    return v;
  }

  /** Bad command line; {@code null} message = help was asked for. */
  public static final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    UsageException(final String message) {
      super(message);
    }
  }

  static String usage() {
    return String.join(
        "\n",
        "usage: FleetSimulator [options]",
        "  --trace conversation|synthetic|PATH   Mooncake trace (default conversation)",
        "  --mode engine|grpc            LookupRouter in process (default) or the real server on"
            + " loopback",
        "  --replicas 8  --slots 8       fleet shape",
        "  --capacity 8192               KV blocks (512 tokens) per replica, LRU",
        "  --prefill-tps 10000           prefill tokens/s per slot (uncached tokens only)",
        "  --decode-tps 100              decode tokens/s per slot",
        "  --stats-interval 1            seconds between ReplicaStats reports",
        "  --loads 0.5,0.7,0.9           offered loads (fraction of slot-time without reuse)",
        "  --policies a,b,...            " + FleetPolicy.names(),
        "  --seed 42                     ties of the scorers, softmax sampling",
        "  --requests N                  first N requests of the trace",
        "  --ttl-minutes 30              index entry TTL (simulated time)",
        "  --llmd-prefix-weight 2 --llmd-queue-weight 1 --llmd-kv-weight 1",
        "  --dynamo-overlap-weight 1 --dynamo-temperature 0",
        "  --pressure-tokens N --pressure-bound P --ranked-replicas K",
        "                                the load-aware policy's fields (0 = the policy default)",
        "  --hint-pressure H             its hintPressure (default 1 / slots; 0 = off)",
        "  --cost-request-seconds S      the cost model's requestSeconds (0 = the policy default);"
            + " its slots and prefill speed are the fleet's",
        "  --pressure-ceiling C          stats pressure min(1, (running + waiting) / C), the"
            + " sidecar's clamp (0 = / slots, unclamped)",
        "  --greedy-output exact|mean    greedy-exact-ttft knows each output length, or only the"
            + " mean",
        "  --out FILE.json  --markdown FILE.md  --plot FILE.png",
        "  --quiet");
  }
}
