package io.inferencecache.perf.service;

import java.lang.management.ManagementFactory;
import java.util.Locale;
import java.util.function.IntSupplier;

/**
 * Bytes allocated per LookupRoute on each in-process path of {@link LookupRoutePathBenchmark},
 * counted exactly for the calling thread ({@code ThreadMXBean#getCurrentThreadAllocatedBytes})
 * after a JIT warm-up: the cross-check of JMH's {@code gc.alloc.rate.norm}. Run with the off-heap
 * JVM flags: {@code java $(java -cp perf/target/benchmarks.jar io.inferencecache.perf.JvmFlags) -cp
 * perf/target/benchmarks.jar io.inferencecache.perf.service.LookupPathAllocation [calls]}.
 */
public final class LookupPathAllocation {
  private LookupPathAllocation() {}

  public static void main(final String[] args) throws Exception {
    final int calls = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    final LookupRoutePathBenchmark b = new LookupRoutePathBenchmark();
    b.chains = 4096;
    b.holders = 4;
    b.replicas = 16;
    b.setUp();
    try {
      final String[] names = {"zeroCopyDirect", "zeroCopyHeap", "protobuf"};
      final IntSupplier[] paths = {
        b::zeroCopyDirect,
        b::zeroCopyHeap,
        () -> {
          try {
            return b.protobuf();
          } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
          }
        }
      };
      System.out.printf(Locale.ROOT, "%-16s %10s %12s%n", "path", "calls", "B/call");
      for (int round = 0; round < 2; round++) { // round 0 warms up every path
        for (int p = 0; p < paths.length; p++) {
          long sink = 0;
          final long before = threads.getCurrentThreadAllocatedBytes();
          for (int i = 0; i < calls; i++) {
            sink += paths[p].getAsInt();
          }
          final long bytes = threads.getCurrentThreadAllocatedBytes() - before;
          if (round == 1) {
            System.out.printf(
                Locale.ROOT,
                "%-16s %10d %12.2f%s%n",
                names[p],
                calls,
                (double) bytes / calls,
                sink == 0 ? " (empty responses!)" : "");
          }
        }
      }
    } finally {
      b.tearDown();
    }
  }
}
