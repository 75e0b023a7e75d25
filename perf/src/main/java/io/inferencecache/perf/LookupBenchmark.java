package io.inferencecache.perf;

import io.inferencecache.engine.LookupRequest;
import java.util.SplittableRandom;
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
import org.openjdk.jmh.infra.Blackhole;

/**
 * LookupRoute latency (the index part, step 11 of docs/behaviour.md#lookup-route) of the engine
 * ({@code impl=offheap}) and the on-heap baseline ({@code impl=onheap}) on one workload shape,
 * chosen by the concrete subclass. Each call looks up a random chain of the workload (all of them
 * hit): it fills the reusable {@link LookupRequest} from the chain's raw hash bytes (as the service
 * fills it from the wire) and runs the lookup. Sample mode, so the JSON carries p50/p99; run with
 * {@code -prof gc} for gc.alloc.rate.norm (bytes per lookup).
 *
 * <p>The JVM flags the engine needs are added to the fork by {@link BenchmarkMain}; the heap is
 * sized for the full pinned shape of the on-heap baseline.
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms1g", "-Xmx8g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 3)
@Threads(1)
@State(Scope.Benchmark)
public abstract class LookupBenchmark {
  private static final int ORDER = 1 << 16;

  @Param({IndexUnderTest.OFFHEAP, IndexUnderTest.ONHEAP})
  public String impl;

  private Workload workload;
  private IndexUnderTest index;
  private final LookupRequest request = new LookupRequest();
  private final int[] order = new int[ORDER];
  private int next;

  /** The workload of this benchmark, from its parameters. */
  protected abstract Workload workload();

  /** Scored replicas every lookup must return (checked once at setup), or -1 for "at least 1". */
  protected abstract int expectedHolders();

  @Setup(Level.Trial)
  public void setUp() {
    workload = workload();
    index = IndexUnderTest.build(impl, workload);
    final SplittableRandom rnd = new SplittableRandom(42);
    for (int i = 0; i < ORDER; i++) {
      order[i] = rnd.nextInt(workload.lookups());
    }
    for (int i = 0; i < Math.min(ORDER, 256); i++) {
      workload.fillLookup(order[i], request);
      final int n = index.lookupRoute(request);
      final int want = expectedHolders();
      if (want >= 0 ? n != want : n < 1) {
        throw new IllegalStateException(
            impl + " " + workload.name() + " lookup " + order[i] + " scored " + n + " replicas");
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    index.close();
  }

  @Benchmark
  public int lookupRoute(final Blackhole bh) {
    workload.fillLookup(order[next++ & (ORDER - 1)], request);
    final int n = index.lookupRoute(request);
    bh.consume(index.lastResult());
    return n;
  }
}
