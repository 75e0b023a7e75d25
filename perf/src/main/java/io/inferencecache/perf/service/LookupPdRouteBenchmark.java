package io.inferencecache.perf.service;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.PdRouteRequest;
import io.inferencecache.engine.PdRouteResult;
import io.inferencecache.engine.PdRouter;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.engine.pd.AcceleratorType;
import io.inferencecache.engine.pd.PdMember;
import io.inferencecache.engine.pd.PdPool;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import io.inferencecache.proto.v1alpha1.LookupPDRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupPDRouteResponse;
import io.inferencecache.service.pd.LookupPdRoutes;
import java.io.IOException;
import java.util.ArrayList;
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
 * One LookupPDRoute in process, in the same run: {@link #engine} ({@link PdRouter#route} alone, the
 * request rebuilt into a reused {@link PdRouteRequest} each time, as a transport does) and {@link
 * #service} (wire bytes to wire bytes: {@code LookupPDRouteRequest.parseFrom}, {@link
 * LookupPdRoutes#answer}, {@code writeTo} a reusable sink). The fleet: {@code pools} prefill and
 * {@code pools} decode replicas (pf-i and dc-i on node-i, one vendor), every one with a stats row
 * (pressures 0 to 0.7), 256 chains of 64 blocks (8-byte hashes, 16 tokens a block): chain {@code c}
 * held in full by pf-(c mod pools), its first 32 blocks by the next prefill replica and its first
 * 56 by dc-(c mod pools). Each operation routes the next of 1,024 requests, each a 64-block chain
 * whose last 8 (odd requests: 128 uncached tokens on dc-(c mod pools), below the topology's 256:
 * PD_DECODE_LOCAL where that is no dearer than the pair) or 32 blocks (even: PD_PAIR) are new.
 *
 * <p>Sample mode (p50/p99 in the JSON); run with {@code -prof gc} for {@code gc.alloc.rate.norm}.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms1g", "-Xmx2g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 3)
@Threads(1)
@State(Scope.Thread)
public class LookupPdRouteBenchmark {
  static final String TENANT = "team-pd";
  static final String MODEL = "llama-3.1-8b";
  static final String SCHEME = "vllm";
  static final int CHAINS = 256;
  static final int BLOCKS = 64;
  static final int TOKENS = 16;
  static final int REQUESTS = 1024;

  /** Replicas per role. */
  @Param({"8"})
  public int pools;

  private CacheIndex index;
  private PdRouter router;
  private LookupPdRoutes service;
  private byte[][][] chains;
  private byte[][] wire;
  private final PdRouteRequest in = new PdRouteRequest();
  private final PdRouteResult out = new PdRouteResult();
  private final RequestStreams.Sink sink = new RequestStreams.Sink();
  private int next;

  static byte[] hash(final int chain, final int block, final boolean fresh) {
    final int v = chain * 1000 + block;
    return new byte[] {
      (byte) (fresh ? 0x5A : 0x3C),
      7,
      (byte) (v >>> 24),
      (byte) (v >>> 16),
      (byte) (v >>> 8),
      (byte) v,
      1,
      2
    };
  }

  static IngestUpdate held(final String replica, final int chain, final int blocks, float p) {
    final List<byte[]> hs = new ArrayList<>();
    final int[] counts = new int[blocks];
    for (int b = 0; b < blocks; b++) {
      hs.add(hash(chain, b, false));
      counts[b] = TOKENS;
    }
    return new IngestUpdate(
        replica,
        MODEL,
        TENANT,
        SCHEME,
        0,
        "",
        List.of(IngestPrefix.chain(hs, counts, 0)),
        new IngestStats(1 << 30, 0.5f, p, 0, 0));
  }

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    index = CacheIndex.open(new IndexConfig().maxEntries(1_000_000));
    index.start();
    final List<PdMember> pf = new ArrayList<>();
    final List<PdMember> dc = new ArrayList<>();
    for (int i = 0; i < pools; i++) {
      pf.add(new PdMember("pf-" + i, "node-" + i));
      dc.add(new PdMember("dc-" + i, "node-" + i));
    }
    index
        .pdTopologies()
        .replace(
            new PdTopologySnapshot(
                1,
                List.of(
                    new PdTopology(
                        TENANT,
                        "llama-pd",
                        "NIXL",
                        256,
                        null,
                        0,
                        List.of(new PdPool("prefill", "h100", pf)),
                        List.of(new PdPool("decode", "h100", dc)),
                        List.of(new AcceleratorType("h100", "nvidia", "H100"))))));
    for (int c = 0; c < CHAINS; c++) {
      final float p = (c % 8) * 0.1f;
      index.ingest(held("pf-" + (c % pools), c, BLOCKS, p));
      index.ingest(held("pf-" + ((c + 1) % pools), c, 32, p));
      index.ingest(held("dc-" + (c % pools), c, 56, p));
    }
    router = new PdRouter(index, System::nanoTime);
    service = new LookupPdRoutes(index, System::nanoTime);
    chains = new byte[REQUESTS][][];
    wire = new byte[REQUESTS][];
    for (int r = 0; r < REQUESTS; r++) {
      final int c = (r * 37) % CHAINS;
      final int fresh = (r & 1) == 1 ? 8 : 32;
      final LookupPDRouteRequest.Builder q =
          LookupPDRouteRequest.newBuilder()
              .setTenantId(TENANT)
              .setModelId(MODEL)
              .setHashScheme(SCHEME);
      chains[r] = new byte[BLOCKS][];
      for (int b = 0; b < BLOCKS; b++) {
        chains[r][b] = hash(c, b, b >= BLOCKS - fresh);
        q.addBlockHashes(com.google.protobuf.ByteString.copyFrom(chains[r][b]))
            .addBlockTokenCounts(TOKENS);
      }
      wire[r] = q.build().toByteArray();
    }
    // Both paths answer a pair on every request, the decode-local and the pair case both occur
    // (the two routers count their own answers, and the load estimate ages with the clock, so
    // near-ties may go either way: the paths are not compared answer for answer).
    int pairs = 0;
    int local = 0;
    for (int r = 0; r < REQUESTS; r++) {
      next = r;
      engine();
      final String reason = out.reasonCode();
      next = r;
      service();
      final String viaService = LookupPDRouteResponse.parseFrom(sink.bytes()).getReasonCode();
      for (final String answer : List.of(reason, viaService)) {
        if (!ReasonCodes.PD_PAIR.equals(answer) && !ReasonCodes.PD_DECODE_LOCAL.equals(answer)) {
          throw new IllegalStateException("request " + r + " answered " + answer);
        }
      }
      pairs += ReasonCodes.PD_PAIR.equals(reason) ? 1 : 0;
      local += ReasonCodes.PD_DECODE_LOCAL.equals(reason) ? 1 : 0;
    }
    if (pairs == 0 || local == 0) {
      throw new IllegalStateException("pairs " + pairs + ", decode-local " + local);
    }
    System.out.println("answers: " + pairs + " PD_PAIR, " + local + " PD_DECODE_LOCAL");
    next = 0;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    index.close();
  }

  /** PdRouter alone: the request rebuilt from its hashes, one decision. */
  @Benchmark
  public int engine() {
    final byte[][] chain = chains[next++ & (REQUESTS - 1)];
    in.reset().request().keys(TENANT, MODEL, SCHEME, "");
    for (final byte[] h : chain) {
      in.request().addBlockHash(h).addBlockTokenCount(TOKENS);
    }
    router.route(in, out, System.nanoTime(), Long.MAX_VALUE);
    return out.prefillMatchedTokens();
  }

  /** The service's in-process path: parse, answer, encode. */
  @Benchmark
  public int service() throws IOException {
    final byte[] bytes = wire[next++ & (REQUESTS - 1)];
    final LookupPDRouteResponse r =
        service.answer(LookupPDRouteRequest.parseFrom(bytes), System.nanoTime(), Long.MAX_VALUE);
    r.writeTo(sink.reset());
    return sink.size;
  }
}
