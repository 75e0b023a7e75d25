package io.inferencecache.perf;

import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.TenantPolicies;
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
 * The cost of LFU credits: a pinned-shape lookup (64 blocks × 16 holders = 1,024 matched
 * holder-blocks) of an LFU tenant, with ({@code lookupAndCredit}) and without ({@code lookupOnly})
 * crediting the delivered answer. {@code (lookupAndCredit − lookupOnly) ÷ 1,024} is the credit cost
 * per matched holder-block (one lock-free CAS on a counter word each, in the engine).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgs = {"-Xms1g", "-Xmx8g"})
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 3, time = 3)
@Threads(1)
@State(Scope.Benchmark)
public class LfuCreditBenchmark {
  private static final int ORDER = 1 << 16;

  @Param({IndexUnderTest.OFFHEAP, IndexUnderTest.ONHEAP})
  public String impl;

  @Param({"781"})
  public int pinnedChains;

  private Workload workload;
  private IndexUnderTest index;
  private final LookupRequest request = new LookupRequest();
  private final int[] order = new int[ORDER];
  private int next;

  @Setup(Level.Trial)
  public void setUp() {
    workload = SyntheticChains.pinned(pinnedChains);
    index =
        IndexUnderTest.build(
            impl, workload, IndexUnderTest.configFor(workload).policies(TenantPolicies.ALL_LFU));
    final SplittableRandom rnd = new SplittableRandom(42);
    for (int i = 0; i < ORDER; i++) {
      order[i] = rnd.nextInt(workload.lookups());
    }
    workload.fillLookup(order[0], request);
    index.lookupRoute(request);
    final int credited = index.creditLast();
    if (credited != SyntheticChains.PINNED_HOLDERS * SyntheticChains.PINNED_BLOCKS) {
      throw new IllegalStateException(impl + " credited " + credited + " holder-blocks");
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    index.close();
  }

  @Benchmark
  public int lookupOnly(final Blackhole bh) {
    workload.fillLookup(order[next++ & (ORDER - 1)], request);
    final int n = index.lookupRoute(request);
    bh.consume(index.lastResult());
    return n;
  }

  @Benchmark
  public int lookupAndCredit(final Blackhole bh) {
    workload.fillLookup(order[next++ & (ORDER - 1)], request);
    index.lookupRoute(request);
    bh.consume(index.lastResult());
    return index.creditLast();
  }
}
