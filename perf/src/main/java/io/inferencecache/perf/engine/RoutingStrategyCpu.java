package io.inferencecache.perf.engine;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Locale;

/**
 * {@link RoutingStrategyBenchmark}'s three strategies timed by the calling thread's CPU time, in
 * interleaved rounds of one JVM (each round runs every strategy, in an order that rotates), so a
 * loaded machine's preemption does not count and every strategy sees the same conditions. Prints,
 * per shape and strategy, the median CPU ns per call over the rounds with the lowest and highest
 * round, and the median of the per-round differences against {@code loadAware}.
 *
 * <p>{@code RoutingStrategyCpu [rounds=31] [callsPerRound=20000] [warmupRounds=10]}
 */
public final class RoutingStrategyCpu {
  private static final String[] STRATEGIES = {"upstream", "loadAware", "costModel"};

  private RoutingStrategyCpu() {}

  public static void main(final String[] args) {
    final int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 31;
    final int calls = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
    final int warmup = args.length > 2 ? Integer.parseInt(args[2]) : 10;
    final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    for (String shape : new String[] {"prefix", "shared"}) {
      final RoutingStrategyBenchmark[] b = new RoutingStrategyBenchmark[STRATEGIES.length];
      for (int s = 0; s < b.length; s++) {
        b[s] = new RoutingStrategyBenchmark();
        b[s].strategy = STRATEGIES[s];
        b[s].shape = shape;
        b[s].replicas = 16;
        b[s].setUp();
      }
      final double[][] ns = new double[b.length][rounds];
      long sink = 0;
      for (int round = -warmup; round < rounds; round++) {
        for (int k = 0; k < b.length; k++) {
          final int s = (k + Math.floorMod(round, b.length)) % b.length;
          final long t0 = threads.getCurrentThreadCpuTime();
          for (int i = 0; i < calls; i++) {
            sink += b[s].route();
          }
          final long t = threads.getCurrentThreadCpuTime() - t0;
          if (round >= 0) {
            ns[s][round] = (double) t / calls;
          }
        }
      }
      for (RoutingStrategyBenchmark x : b) {
        x.tearDown();
      }
      for (int s = 0; s < b.length; s++) {
        final double[] diff = new double[rounds];
        for (int r = 0; r < rounds; r++) {
          diff[r] = ns[s][r] - ns[1][r];
        }
        final double[] sorted = ns[s].clone();
        Arrays.sort(sorted);
        Arrays.sort(diff);
        System.out.printf(
            Locale.ROOT,
            "shape %-6s %-9s CPU ns/call median %7.0f (rounds %7.0f .. %7.0f); vs loadAware"
                + " median %+6.0f ns (%+6.0f .. %+6.0f)%n",
            shape,
            STRATEGIES[s],
            sorted[rounds / 2],
            sorted[0],
            sorted[rounds - 1],
            diff[rounds / 2],
            diff[0],
            diff[rounds - 1]);
      }
      if (sink == 42) {
        System.out.println();
      }
    }
  }
}
