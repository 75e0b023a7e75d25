package io.inferencecache.perf;

import io.inferencecache.engine.LookupRequest;
import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

/**
 * Bytes allocated per lookup, counted exactly by the JVM for the calling thread ({@code
 * com.sun.management.ThreadMXBean#getCurrentThreadAllocatedBytes}) after a JIT warm-up: a
 * cross-check of JMH's {@code gc.alloc.rate.norm}, which in sample mode also divides the harness'
 * own background allocation by the number of operations. Run with the off-heap JVM flags, e.g.
 * {@code java $(java -cp perf/target/benchmarks.jar io.inferencecache.perf.JvmFlags) -cp
 * perf/target/benchmarks.jar io.inferencecache.perf.AllocationProbe}.
 */
public final class AllocationProbe {
  private AllocationProbe() {}

  public static void main(final String[] args) {
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    final List<Workload> shapes =
        List.of(
            SyntheticChains.singleHolder(100_000),
            SyntheticChains.pinned(195),
            SyntheticChains.longChains(32),
            MooncakeTrace.load(MooncakeTrace.resolve(args.length > 0 ? args[0] : null)));
    System.out.printf(
        Locale.ROOT, "%-9s %-11s %10s %14s%n", "shape", "impl", "lookups", "B/lookup");
    for (Workload w : shapes) {
      final int lookups = w.name().equals("long") ? 4_000 : 100_000;
      for (String impl : List.of(IndexUnderTest.OFFHEAP, IndexUnderTest.ONHEAP)) {
        try (IndexUnderTest index = IndexUnderTest.build(impl, w)) {
          final LookupRequest q = new LookupRequest();
          final SplittableRandom rnd = new SplittableRandom(1);
          long sink = 0;
          for (int i = 0; i < lookups; i++) {
            w.fillLookup(rnd.nextInt(w.lookups()), q);
            sink += index.lookupRoute(q);
          }
          final long before = threads.getCurrentThreadAllocatedBytes();
          for (int i = 0; i < lookups; i++) {
            w.fillLookup(rnd.nextInt(w.lookups()), q);
            sink += index.lookupRoute(q);
          }
          final long bytes = threads.getCurrentThreadAllocatedBytes() - before;
          System.out.printf(
              Locale.ROOT,
              "%-9s %-11s %10d %14.2f%s%n",
              w.name(),
              impl,
              lookups,
              (double) bytes / lookups,
              sink == 0 ? " (no hits!)" : "");
        }
      }
    }
  }
}
