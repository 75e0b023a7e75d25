package io.inferencecache.perf.service;

import io.inferencecache.service.server.GrpcServer;
import io.inferencecache.service.server.GrpcServerConfig;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;

/**
 * LookupRoute over loopback against the transport floor: the whole server stack ({@link
 * GrpcServer}: grpc-netty, its handler pool and admission, the zero-copy LookupRoute path) with an
 * index of {@code chains × 64 × holders} holder-blocks (default 4,096 × 64 × 4 = 1,048,576), and in
 * the same run the same server's {@code grpc.health.v1.Health/Check} (an empty request, a 2-byte
 * response) as the empty unary RPC.
 *
 * <p>The load generator is a grpc-netty client on 127.0.0.1, plaintext, sending pre-serialized
 * requests through byte-array marshallers (so the client spends as little CPU as it can: it shares
 * the machine with the server). Two kinds of step, each bounded in time and in calls:
 *
 * <ul>
 *   <li><b>Closed loop</b> at each concurrency (default 1, 16, 64): that many calls in flight, each
 *       completion issuing the next; throughput and latency (completion − send) of the measured
 *       window. LookupRoute and Health/Check alternate at each concurrency.
 *   <li><b>Open loop</b> at a fixed rate (default: half the best closed-loop LookupRoute
 *       throughput): one pacing thread sends call {@code i} at {@code t0 + i / rate}; latency is
 *       measured from that intended send time, so a stalled server or sender is charged for the
 *       whole stall (no coordinated omission). Calls beyond {@code --max-outstanding} in flight are
 *       not sent and are counted as such.
 * </ul>
 *
 * <p>By default the server runs in this JVM (server-side allocation per call is then measured from
 * the server threads' allocation counters); {@code --serve} runs only the server and {@code
 * --connect 127.0.0.1:PORT} only the client, for a two-process run. Only loopback addresses are
 * accepted.
 *
 * <p>Run with the off-heap JVM flags: {@code java $(java -cp perf/target/benchmarks.jar
 * io.inferencecache.perf.JvmFlags) -Xmx4g -cp perf/target/benchmarks.jar
 * io.inferencecache.perf.service.LoopbackLoad --out perf/results/loopback.json}; {@code --help}
 * lists the options.
 *
 * <p>This class holds the options and starts the server; the client and its steps: {@code
 * LoopbackClient}; the table and the JSON document: {@code LoopbackReport}.
 */
public final class LoopbackLoad {
  private static final String USAGE =
      """
      LoopbackLoad [options]
        --chains N             index chains of 64 blocks (default 4096)
        --holders N            replicas holding each chain (default 4)
        --replicas N           replicas in all (default 16)
        --concurrency LIST     closed-loop concurrencies (default 1,16,64)
        --jit-warmup S         seconds of unrecorded load on both RPCs first (default 20)
        --warmup S             seconds of warm-up before each closed-loop step (default 3)
        --duration S           measured seconds of each closed-loop step (default 8)
        --open-rate R          open-loop calls/s (default: half the best closed-loop LookupRoute)
        --open-duration S      measured seconds of each open-loop step (default 15)
        --max-outstanding N    open loop: most calls in flight (default 10000)
        --max-calls N          hard bound on calls per step (default 5000000)
        --channels N           client connections (default 1)
        --executor-threads N   server handler threads (default: GrpcServerConfig's)
        --event-loop-threads N server Netty I/O threads (default: GrpcServerConfig's)
        --protobuf             bind the default protobuf LookupRoute path instead of zero-copy
        --out FILE             write the results as JSON
        --serve                run only the server (prints its port; --serve-seconds, default 600)
        --connect HOST:PORT    run only the client against a loopback server started with --serve
      """;

  // ------------------------------------------------------------------------------------------
  // Options

  static final class Options {
    int chains = 4096;
    int holders = 4;
    int replicas = 16;
    int[] concurrency = {1, 16, 64};
    double warmupSeconds = 3;
    double jitWarmupSeconds = 20;
    double durationSeconds = 8;
    double openRate;
    double openDurationSeconds = 15;
    int maxOutstanding = 10_000;
    long maxCalls = 5_000_000;
    int channels = 1;
    int executorThreads = GrpcServerConfig.EXECUTOR_THREADS_DEFAULT;
    int eventLoopThreads = GrpcServerConfig.EVENT_LOOP_THREADS_DEFAULT;
    boolean protobuf;
    Path out;
    boolean serve;
    double serveSeconds = 600;
    String connect;

    static Options parse(final String[] args) {
      final Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        final String a = args[i];
        switch (a) {
          case "--chains" -> o.chains = Integer.parseInt(args[++i]);
          case "--holders" -> o.holders = Integer.parseInt(args[++i]);
          case "--replicas" -> o.replicas = Integer.parseInt(args[++i]);
          case "--concurrency" ->
              o.concurrency =
                  Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
          case "--warmup" -> o.warmupSeconds = Double.parseDouble(args[++i]);
          case "--jit-warmup" -> o.jitWarmupSeconds = Double.parseDouble(args[++i]);
          case "--duration" -> o.durationSeconds = Double.parseDouble(args[++i]);
          case "--open-rate" -> o.openRate = Double.parseDouble(args[++i]);
          case "--open-duration" -> o.openDurationSeconds = Double.parseDouble(args[++i]);
          case "--max-outstanding" -> o.maxOutstanding = Integer.parseInt(args[++i]);
          case "--max-calls" -> o.maxCalls = Long.parseLong(args[++i]);
          case "--channels" -> o.channels = Integer.parseInt(args[++i]);
          case "--executor-threads" -> o.executorThreads = Integer.parseInt(args[++i]);
          case "--event-loop-threads" -> o.eventLoopThreads = Integer.parseInt(args[++i]);
          case "--protobuf" -> o.protobuf = true;
          case "--out" -> o.out = Path.of(args[++i]);
          case "--serve" -> o.serve = true;
          case "--serve-seconds" -> o.serveSeconds = Double.parseDouble(args[++i]);
          case "--connect" -> o.connect = args[++i];
          case "-h", "--help" -> {
            System.out.print(USAGE);
            System.exit(0);
          }
          default -> throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
        }
      }
      if (o.serve && o.connect != null) {
        throw new IllegalArgumentException("--serve and --connect exclude each other");
      }
      if (o.durationSeconds <= 0 || o.openDurationSeconds <= 0 || o.warmupSeconds < 0) {
        throw new IllegalArgumentException("durations must be positive");
      }
      if (o.durationSeconds + o.warmupSeconds > 120
          || o.openDurationSeconds > 120
          || o.jitWarmupSeconds > 300) {
        throw new IllegalArgumentException("a step is limited to 120 s");
      }
      if (o.serveSeconds <= 0 || o.serveSeconds > 3600) {
        throw new IllegalArgumentException("--serve-seconds must be in (0, 3600]");
      }
      if (o.channels < 1 || o.maxOutstanding < 1 || o.maxCalls < 1) {
        throw new IllegalArgumentException("--channels, --max-outstanding, --max-calls: >= 1");
      }
      return o;
    }
  }

  private LoopbackLoad() {}

  private static GrpcServer startServer(final Options o, final ServiceFixture f)
      throws IOException {
    return GrpcServer.builder(
            GrpcServerConfig.builder()
                .bindAddress("127.0.0.1:0")
                .executorThreads(o.executorThreads)
                .eventLoopThreads(o.eventLoopThreads)
                .shutdownDrainTimeout(Duration.ofMillis(500))
                .build())
        .addService(f.service.definition(!o.protobuf))
        .build()
        .start();
  }

  public static void main(final String[] args) throws Exception {
    final Options o = Options.parse(args);
    final long started = System.nanoTime();
    if (o.connect != null) {
      final int colon = o.connect.lastIndexOf(':');
      final String host = o.connect.substring(0, colon).replace("[", "").replace("]", "");
      if (!InetAddress.getByName(host).isLoopbackAddress()) {
        throw new IllegalArgumentException("--connect: only loopback addresses: " + o.connect);
      }
      final LoopbackClient load =
          new LoopbackClient(o, host, Integer.parseInt(o.connect.substring(colon + 1)));
      try {
        LoopbackReport.finish(
            o, load.run(), LoopbackReport.environment(o), started, "external (--serve)");
      } finally {
        load.close();
      }
      return;
    }
    System.out.printf(
        Locale.ROOT,
        "building the index: %d chains x %d blocks x %d holders%n",
        o.chains,
        ServiceFixture.BLOCKS,
        o.holders);
    try (ServiceFixture f = ServiceFixture.build(o.chains, o.holders, o.replicas);
        GrpcServer server = startServer(o, f)) {
      System.out.printf(
          Locale.ROOT,
          "server on 127.0.0.1:%d (%s), index %d holder-blocks%n",
          server.port(),
          server.transport(),
          f.index.totalEntries());
      if (o.serve) {
        Thread.sleep((long) (o.serveSeconds * 1000));
        return;
      }
      final LoopbackClient load = new LoopbackClient(o, "127.0.0.1", server.port());
      try {
        final Map<String, Object> env = LoopbackReport.environment(o);
        env.put("serverTransport", server.transport());
        LoopbackReport.finish(o, load.run(), env, started, "this JVM");
      } finally {
        load.close();
      }
    }
  }
}
