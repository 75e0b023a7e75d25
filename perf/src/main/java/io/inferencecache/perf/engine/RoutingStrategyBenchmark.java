package io.inferencecache.perf.engine;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.RouteCall;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.engine.RouteResult;
import io.inferencecache.engine.policy.CostModelSpec;
import io.inferencecache.engine.policy.LoadAwareSpec;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.perf.workload.Workload;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One whole LookupRoute decision in process ({@link LookupRouter#route}, no gRPC) under each
 * routing strategy of the tenant's policy, in the same run: {@code upstream} (no policy), {@code
 * loadAware} ({@code loadAwareRouting} with {@code hintPressure} 0.125) and {@code costModel}
 * ({@code loadAwareRouting.costModel} at its defaults). {@code replicas} replicas serve the scope,
 * each with a stats row (pressures 0 to 1.8); 256 chains of 24 blocks (8-byte hashes, 512 tokens a
 * block) start with a block every replica holds, and chain {@code c} is held in full by replica
 * {@code c}, its first 12 blocks by the next and its first 4 by the one after. Each operation
 * routes the next request of 1,024 in turn:
 *
 * <ul>
 *   <li>{@code shape=prefix}: a held chain plus one new block (PREFIX_MATCH, three depths);
 *   <li>{@code shape=shared}: the shared block and 23 new ones (every replica holds the same: the
 *       affinity fallback, or the cost model's load rule).
 * </ul>
 *
 * The request is rebuilt into a reused {@link RouteRequest} each time, as a transport does. Run
 * with {@code -prof gc}: {@code gc.alloc.rate.norm} is the allocation per call.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms1g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Threads(1)
@State(Scope.Thread)
public class RoutingStrategyBenchmark {
  private static final String TENANT = Workload.TENANT;
  private static final String MODEL = Workload.MODEL;
  private static final String SCHEME = Workload.SCHEME;
  private static final int CHAINS = 256;
  private static final int BLOCKS = 24;
  private static final int TOKENS = 512;
  private static final int REQUESTS = 1024;

  @Param({"upstream", "loadAware", "costModel"})
  public String strategy;

  @Param({"prefix", "shared"})
  public String shape;

  @Param({"16"})
  public int replicas;

  private CacheIndex index;
  private LookupRouter router;
  private byte[][][] requests;
  private final RouteRequest in = new RouteRequest();
  private final RouteResult out = new RouteResult();
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    index = CacheIndex.open(new IndexConfig().maxEntries(1L << 20));
    router = new LookupRouter(index, null, 16, System::nanoTime);
    final long shared = 1L << 40;
    for (int c = 0; c < CHAINS; c++) {
      final byte[][] chain = chain(c, shared, BLOCKS);
      ingest(replica(c % replicas), chain, BLOCKS);
      ingest(replica((c + 1) % replicas), chain, BLOCKS / 2);
      ingest(replica((c + 2) % replicas), chain, 4);
    }
    for (int r = 0; r < replicas; r++) {
      index.ingest(
          new IngestUpdate(
              replica(r),
              MODEL,
              TENANT,
              SCHEME,
              0,
              "",
              List.of(),
              new IngestStats(0, 0f, (r % 7) * 0.3f, 0, 0)));
    }
    final PolicySpec.Builder policy = PolicySpec.builder(TENANT).minimumMatchedTokens(64);
    switch (strategy) {
      case "upstream" -> {}
      case "loadAware" ->
          index
              .policyStore()
              .replace(
                  snapshot(policy.loadAwareRouting(new LoadAwareSpec(null, null, null, 0.125f))));
      case "costModel" ->
          index
              .policyStore()
              .replace(
                  snapshot(
                      policy.loadAwareRouting(LoadAwareSpec.costModel(CostModelSpec.DEFAULTS))));
      default -> throw new IllegalArgumentException("strategy " + strategy);
    }
    requests = new byte[REQUESTS][][];
    for (int i = 0; i < REQUESTS; i++) {
      final int c = (int) ((i * 0x9E3779B97F4A7C15L >>> 40) % CHAINS);
      final byte[][] held = chain(c, shared, BLOCKS);
      final byte[][] q =
          shape.equals("prefix") ? Arrays.copyOf(held, BLOCKS + 1) : new byte[BLOCKS][];
      if (shape.equals("prefix")) {
        q[BLOCKS] = Workload.hashOf((2L << 40) + i);
      } else {
        q[0] = Workload.hashOf(shared);
        for (int b = 1; b < BLOCKS; b++) {
          q[b] = Workload.hashOf((3L << 40) + (long) i * BLOCKS + b);
        }
      }
      requests[i] = q;
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    index.close();
  }

  @Benchmark
  public int route() {
    final byte[][] q = requests[next];
    next = (next + 1) & (REQUESTS - 1);
    in.reset();
    final LookupRequest r = in.request();
    r.keys(TENANT, MODEL, SCHEME, "");
    for (byte[] h : q) {
      r.addBlockHash(h, 0, h.length).addBlockTokenCount(TOKENS);
    }
    router.route(in, out, RouteCall.NONE, System.nanoTime());
    return out.scoreCount() + out.reasonCode().length();
  }

  private static PolicySnapshot snapshot(final PolicySpec.Builder b) {
    return new PolicySnapshot(PolicySnapshot.PROPAGATION_VERSION, List.of(b.build()), List.of())
        .normalized();
  }

  private static String replica(final int r) {
    return "replica-" + r;
  }

  private static byte[][] chain(final int c, final long shared, final int blocks) {
    final byte[][] out = new byte[blocks][];
    out[0] = Workload.hashOf(shared);
    for (int b = 1; b < blocks; b++) {
      out[b] = Workload.hashOf(((long) c << 8) + b);
    }
    return out;
  }

  private void ingest(final String replica, final byte[][] chain, final int depth) {
    final List<byte[]> hashes = new ArrayList<>(Arrays.asList(chain).subList(0, depth));
    final int[] counts = new int[depth];
    Arrays.fill(counts, TOKENS);
    index.ingest(Workload.chainUpdate(replica, hashes, counts));
  }
}
