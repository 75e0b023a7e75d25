package io.inferencecache.perf.replay;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Command-line options of {@link ReplayRunner}; every field has a default. */
public final class ReplayOptions {
  /** How a replica is picked from the server's hint. */
  public enum Route {
    /**
     * Minimum of {@code loadWeight × active blocks + blocks to prefill} over the copy's replicas,
     * where blocks to prefill = chain length − the hint's matched blocks for that replica (all of
     * them for a replica not in the hint): the hint decides unless the hinted replica is busier
     * than the prefill it saves. Ties: lowest index.
     */
    COST,
    /** The hint's top replica whenever the hint is non-empty, else the least-loaded replica. */
    HINTED
  }

  String trace;

  /** {@code grpc} (default) or {@code engine}. */
  String mode = "grpc";

  String target;

  /** {@code replicated}: the broker and the number of in-process server replicas. */
  String natsUrl = "nats://127.0.0.1:4222";

  int serverReplicas = 1;
  int replicas = 16;
  int capacity = 8192;
  int duplication = 1;

  /** Trace time ÷ wall time; 0 = as fast as possible (closed loop). */
  double speedup = 0;

  double durationSeconds = 600;
  long maxRequests = Long.MAX_VALUE;
  int warmup = 2000;
  int syncEvery = 64;
  double decodeMsPerToken = 20;
  double loadWeight = 1.0;
  Route route = Route.COST;
  long seed = 42;
  long maxEntries = 0;
  double holdersHint = 2.0;
  double ttlMinutes = 30;
  String out;
  boolean quiet;

  public ReplayOptions() {}

  /** Parses {@code --name value} pairs (and the flags {@code --afap}, {@code --quiet}). */
  public static ReplayOptions parse(final String[] args) {
    final ReplayOptions o = new ReplayOptions();
    for (int i = 0; i < args.length; i++) {
      final String a = args[i];
      switch (a) {
        case "-h", "--help" -> throw new UsageException(null);
        case "--afap" -> {
          o.speedup = 0;
          continue;
        }
        case "--quiet" -> {
          o.quiet = true;
          continue;
        }
        default -> {}
      }
      if (!a.startsWith("--") || i + 1 >= args.length) {
        throw new UsageException("expected --name value, got " + a);
      }
      final String v = args[++i];
      try {
        switch (a) {
          case "--trace" -> o.trace = v;
          case "--mode" -> o.mode = checkMode(v);
          case "--target" -> o.target = v;
          case "--nats-url" -> o.natsUrl = v;
          case "--server-replicas" -> o.serverReplicas = positive(a, Integer.parseInt(v));
          case "--replicas" -> o.replicas = positive(a, Integer.parseInt(v));
          case "--capacity" -> o.capacity = positive(a, Integer.parseInt(v));
          case "--duplication" -> o.duplication = positive(a, Integer.parseInt(v));
          case "--speedup" -> o.speedup = Double.parseDouble(v);
          case "--duration" -> o.durationSeconds = Double.parseDouble(v);
          case "--requests" -> o.maxRequests = Long.parseLong(v);
          case "--warmup" -> o.warmup = Integer.parseInt(v);
          case "--sync-every" -> o.syncEvery = positive(a, Integer.parseInt(v));
          case "--decode-ms-per-token" -> o.decodeMsPerToken = Double.parseDouble(v);
          case "--load-weight" -> o.loadWeight = Double.parseDouble(v);
          case "--route" -> o.route = Route.valueOf(v.toUpperCase(Locale.ROOT));
          case "--seed" -> o.seed = Long.parseLong(v);
          case "--max-entries" -> o.maxEntries = Long.parseLong(v);
          case "--holders-hint" -> o.holdersHint = Double.parseDouble(v);
          case "--ttl-minutes" -> o.ttlMinutes = Double.parseDouble(v);
          case "--out" -> o.out = v;
          default -> throw new UsageException("unknown option " + a);
        }
      } catch (IllegalArgumentException e) {
        if (e instanceof UsageException) {
          throw e;
        }
        throw new UsageException("bad value for " + a + ": " + v + " (" + e.getMessage() + ")");
      }
    }
    if (o.speedup < 0) {
      throw new UsageException("--speedup must be >= 0 (0 = as fast as possible)");
    }
    if (o.target != null && !o.mode.equals("grpc")) {
      throw new UsageException("--target needs --mode grpc");
    }
    return o;
  }

  private static String checkMode(final String v) {
    if (!v.equals("grpc") && !v.equals("engine") && !v.equals("replicated")) {
      throw new UsageException("--mode must be grpc, engine or replicated, not " + v);
    }
    return v;
  }

  private static int positive(final String name, final int v) {
    if (v < 1) {
      throw new UsageException(name + " must be >= 1, not " + v);
    }
    return v;
  }

  /** Builder-style setters for programmatic runs (tests, the perf gate). */
  public ReplayOptions trace(final String v) {
    trace = v;
    return this;
  }

  public ReplayOptions mode(final String v) {
    mode = checkMode(v);
    return this;
  }

  public ReplayOptions natsUrl(final String v) {
    natsUrl = v;
    return this;
  }

  public ReplayOptions serverReplicas(final int v) {
    serverReplicas = positive("--server-replicas", v);
    return this;
  }

  public ReplayOptions replicas(final int v) {
    replicas = v;
    return this;
  }

  public ReplayOptions capacity(final int v) {
    capacity = v;
    return this;
  }

  public ReplayOptions duplication(final int v) {
    duplication = v;
    return this;
  }

  public ReplayOptions maxRequests(final long v) {
    maxRequests = v;
    return this;
  }

  public ReplayOptions warmup(final int v) {
    warmup = v;
    return this;
  }

  public ReplayOptions speedup(final double v) {
    speedup = v;
    return this;
  }

  public ReplayOptions route(final Route v) {
    route = v;
    return this;
  }

  public ReplayOptions quiet(final boolean v) {
    quiet = v;
    return this;
  }

  /** The option list, for the usage text. */
  static List<String> usage() {
    final List<String> u = new ArrayList<>();
    u.add("ReplayRunner [options]   replays a Mooncake trace against the inference-cache server");
    u.add(
        "  --trace NAME|PATH         conversation (default) or synthetic (the traces in"
            + " perf/data/), or a JSONL file, .gz read compressed");
    u.add(
        "  --mode grpc|engine        grpc: the real server over loopback (default);"
            + " engine: CacheIndex calls, no gRPC");
    u.add("  --target HOST:PORT        grpc: a running server instead of one started in this JVM");
    u.add(
        "  --mode replicated         reports and evictions published to a JetStream stream, read"
            + " by --server-replicas in-process indexes; lookups round-robin over them");
    u.add("  --nats-url URL            replicated: the broker (default nats://127.0.0.1:4222)");
    u.add("  --server-replicas N       replicated: in-process server replicas (default 1)");
    u.add("  --replicas N              simulated replicas per trace copy (default 16)");
    u.add(
        "  --capacity BLOCKS         prefix-cache capacity per replica, 512-token blocks"
            + " (default 8192)");
    u.add(
        "  --duplication D           worker duplication: D copies, disjoint id spaces, D x N"
            + " replicas (default 1)");
    u.add(
        "  --speedup X | --afap      pace arrivals at trace time / X; 0 or --afap = as fast as"
            + " possible (default)");
    u.add("  --duration S              stop after S wall seconds (default 600)");
    u.add("  --requests N              stop after N replayed requests (default: all)");
    u.add(
        "  --warmup N                first N requests not in the latency histogram"
            + " (default 2000)");
    u.add("  --sync-every K            report/eviction epoch, requests (default 64)");
    u.add(
        "  --decode-ms-per-token MS  load model: a request is in flight output_length x MS"
            + " (default 20)");
    u.add(
        "  --load-weight W           cost routing: W x active blocks + blocks to prefill"
            + " (default 1)");
    u.add("  --route cost|hinted       how the hint picks the replica (default cost)");
    u.add("  --seed S                  random-routing seed (default 42)");
    u.add(
        "  --max-entries N           index cap (default: replicas x capacity + epoch"
            + " headroom)");
    u.add(
        "  --holders-hint H          index sizing hint averageHoldersPerKey (default 2,"
            + " the server's)");
    u.add("  --ttl-minutes M           index TTL (default 30, the server's)");
    u.add("  --out FILE.json           write the results as JSON");
    u.add("  --quiet                   no progress lines");
    return u;
  }

  /** A bad command line (null message: help was asked for). */
  static final class UsageException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    UsageException(final String message) {
      super(message);
    }
  }
}
