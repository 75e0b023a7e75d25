package io.inferencecache.perf.service;

import io.inferencecache.engine.RouteCall;
import io.inferencecache.engine.RouteRequest;
import io.inferencecache.engine.RouteResult;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import io.inferencecache.service.lookup.InProcessLookupPath;
import io.inferencecache.service.lookup.ProtoLookupCodec;
import java.io.IOException;
import java.util.Comparator;
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
 * One LookupRoute through the handler in process, wire bytes to wire bytes, on the zero-copy path
 * and on the default protobuf path, in the same JMH run. Each operation answers one of 1,024
 * pre-serialized LookupRouteRequests (a whole 64-block chain, 8-byte hashes, 16 tokens/block,
 * picked at random from the {@code chains} of a {@link ServiceFixture}; every one a full
 * PREFIX_MATCH by its {@code holders} replicas):
 *
 * <ul>
 *   <li>{@link #zeroCopyDirect}: the request in a direct buffer behind a {@code KnownLength} +
 *       {@code HasByteBuffer} stream (what grpc-netty hands the marshaller), parsed in place;
 *       handler; encode; response drained into a reusable sink; the call back in its pool.
 *   <li>{@link #zeroCopyHeap}: the same with a plain {@code KnownLength} stream over a byte array
 *       (the parser copies it into the call's own array first).
 *   <li>{@link #protobuf}: {@code LookupRouteRequest.parseFrom(bytes)}, {@code
 *       ProtoLookupCodec.fill}, handler, {@code ProtoLookupCodec.toProto(...).writeTo(sink)}.
 * </ul>
 *
 * Sample mode (p50/p99 in the JSON); run with {@code -prof gc} for {@code gc.alloc.rate.norm}.
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
public class LookupRoutePathBenchmark {
  private static final int REQUESTS = 1024;

  /** 4,096 chains × 64 blocks × 4 holders = 1,048,576 holder-blocks. */
  @Param({"4096"})
  public int chains;

  @Param({"4"})
  public int holders;

  @Param({"16"})
  public int replicas;

  /**
   * When above 0, the index holds about this many holder-blocks whatever {@code holders} is: {@code
   * holderBlocks ÷ (64 × holders)} chains instead of {@code chains} (the wide-fleet shapes of issue
   * 41: {@code -p holderBlocks=983040 -p replicas=1024 -p holders=16,64,128,256,512}).
   */
  @Param({"0"})
  public long holderBlocks;

  /** The requests' {@code max_replicas} (0: not sent, every holder answers). */
  @Param({"0"})
  public int maxReplicas;

  private ServiceFixture fixture;
  private InProcessLookupPath zeroCopy;
  private byte[][] requests;
  private RequestStreams.Direct direct;
  private RequestStreams.Heap heap;
  private final RequestStreams.Sink sink = new RequestStreams.Sink();
  private final RouteRequest protoIn = new RouteRequest();
  private final RouteResult protoOut = new RouteResult();
  private int next;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    final int shapeChains =
        holderBlocks > 0
            ? (int) Math.max(1, holderBlocks / ((long) ServiceFixture.BLOCKS * holders))
            : chains;
    fixture = ServiceFixture.build(shapeChains, holders, replicas);
    zeroCopy = InProcessLookupPath.of(fixture.service.zeroCopy());
    requests = fixture.requests(REQUESTS, 42, maxReplicas);
    final int answered = maxReplicas > 0 ? Math.min(maxReplicas, holders) : holders;
    direct = new RequestStreams.Direct(requests);
    heap = new RequestStreams.Heap(requests);
    // Every path answers every request the same way (latency aside).
    for (int i = 0; i < REQUESTS; i++) {
      next = i;
      zeroCopyDirect();
      final LookupRouteResponse a = LookupRouteResponse.parseFrom(sink.bytes());
      next = i;
      zeroCopyHeap();
      final LookupRouteResponse b = LookupRouteResponse.parseFrom(sink.bytes());
      next = i;
      protobuf();
      final LookupRouteResponse c = LookupRouteResponse.parseFrom(sink.bytes());
      ServiceFixture.check(a, answered, "zero-copy (direct) request " + i);
      if (!same(a, b) || !same(a, c)) {
        throw new IllegalStateException(
            "paths disagree on request " + i + ":\n" + a + "\n" + b + "\n" + c);
      }
    }
    next = 0;
    zeroCopyDirect();
    // The answer's size, for the report (JMH prints the fork's output).
    System.out.println(
        "response: "
            + sink.size
            + " B, "
            + LookupRouteResponse.parseFrom(sink.bytes()).getReplicaScoresCount()
            + " replicas (holders "
            + holders
            + ", max_replicas "
            + maxReplicas
            + ")");
    next = 0;
  }

  /**
   * Same reason, same replicas with the same matched tokens and tiers, scores and probabilities
   * within 1e-3 (they move with the entries' age and LFU credit between the calls, which can also
   * swap near-tied replicas, so replicas are compared by name); latency ignored.
   */
  private static boolean same(final LookupRouteResponse x, final LookupRouteResponse y) {
    if (!x.getReasonCode().equals(y.getReasonCode())
        || x.getReplicaScoresCount() != y.getReplicaScoresCount()
        || !x.getTokenIdsList().equals(y.getTokenIdsList())
        || !x.getAdapterId().equals(y.getAdapterId())) {
      return false;
    }
    final Comparator<ReplicaScore> byName = Comparator.comparing(ReplicaScore::getReplicaId);
    final List<ReplicaScore> xs = x.getReplicaScoresList().stream().sorted(byName).toList();
    final List<ReplicaScore> ys = y.getReplicaScoresList().stream().sorted(byName).toList();
    for (int i = 0; i < xs.size(); i++) {
      final ReplicaScore a = xs.get(i);
      final ReplicaScore b = ys.get(i);
      if (!a.getReplicaId().equals(b.getReplicaId())
          || a.getMatchedTokens() != b.getMatchedTokens()
          || a.getTier() != b.getTier()
          || Math.abs(a.getScore() - b.getScore()) > 1e-3 * Math.abs(a.getScore())
          || Math.abs(a.getEstimatedCacheHitProb() - b.getEstimatedCacheHitProb()) > 1e-3) {
        return false;
      }
    }
    return true;
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    fixture.close();
  }

  @Benchmark
  public int zeroCopyDirect() {
    return zeroCopy.answer(direct.select(next++ & (REQUESTS - 1)), sink.reset());
  }

  @Benchmark
  public int zeroCopyHeap() {
    return zeroCopy.answer(heap.select(next++ & (REQUESTS - 1)), sink.reset());
  }

  @Benchmark
  public int protobuf() throws IOException {
    final long start = System.nanoTime();
    final LookupRouteRequest req = LookupRouteRequest.parseFrom(requests[next++ & (REQUESTS - 1)]);
    ProtoLookupCodec.fill(req, protoIn);
    fixture.handler.handle(protoIn, protoOut, RouteCall.NONE, start);
    ProtoLookupCodec.toProto(protoOut, req.getAdapterId()).writeTo(sink.reset());
    return sink.size;
  }
}
