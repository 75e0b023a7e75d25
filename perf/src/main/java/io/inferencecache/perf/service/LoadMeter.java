package io.inferencecache.perf.service;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * Machine and process accounting for one measurement window of {@link LoopbackLoad}: CPU seconds of
 * this process, the machine's busy share and load (so a run on a shared machine says how shared it
 * was), and bytes allocated by the server's and the client's threads per call.
 */

/** CPU seconds of this process, machine busy share, load and server allocation for a window. */
final class LoadMeter {
  private final com.sun.management.OperatingSystemMXBean os =
      (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
  private final com.sun.management.ThreadMXBean threads =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
  private long wall0;
  private long cpu0;
  private long[] stat0;
  private long serverAlloc0;
  private long clientAlloc0;

  void start() {
    wall0 = System.nanoTime();
    cpu0 = os.getProcessCpuTime();
    stat0 = procStat();
    serverAlloc0 = allocated(true);
    clientAlloc0 = allocated(false);
  }

  /** Adds this window's figures to {@code row}; allocation divided by {@code calls}. */
  void stop(final Map<String, Object> row, final long calls) {
    final long wall = System.nanoTime() - wall0;
    final long cpu = os.getProcessCpuTime() - cpu0;
    final long[] stat1 = procStat();
    final int cores = Runtime.getRuntime().availableProcessors();
    row.put("processCpuCores", LoopbackReport.round((double) cpu / wall, 2));
    if (stat0 != null && stat1 != null) {
      final double total = stat1[0] - stat0[0];
      final double idle = stat1[1] - stat0[1];
      row.put("machineBusyPct", LoopbackReport.round(100 * (1 - idle / Math.max(1, total)), 1));
      // Share of the machine's busy time that was not this process (other engineers' builds).
      final double busyCores = cores * (1 - idle / Math.max(1, total));
      row.put(
          "otherBusyCores", LoopbackReport.round(Math.max(0, busyCores - (double) cpu / wall), 2));
    }
    row.put("loadAvg1m", LoopbackReport.round(os.getSystemLoadAverage(), 2));
    if (calls > 0) {
      final long server = allocated(true) - serverAlloc0;
      final long client = allocated(false) - clientAlloc0;
      if (serverAlloc0 >= 0 && server > 0) {
        row.put("serverBytesPerCall", Math.round((double) server / calls));
      }
      row.put("clientBytesPerCall", Math.round((double) client / calls));
    }
  }

  /** Bytes allocated so far by the server's threads (or every other live thread), or -1. */
  private long allocated(final boolean server) {
    long sum = 0;
    boolean any = false;
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      final boolean isServer = t.getName().startsWith("inferencecache-grpc-");
      if (isServer == server) {
        final long b = threads.getThreadAllocatedBytes(t.getId());
        if (b > 0) {
          sum += b;
          any |= isServer;
        }
      }
    }
    return server && !any ? -1 : sum;
  }

  /** {total, idle} jiffies from /proc/stat, or null. */
  private static long[] procStat() {
    try {
      final String cpu = Files.readAllLines(Path.of("/proc/stat")).get(0);
      final String[] f = cpu.trim().split("\\s+");
      long total = 0;
      for (int i = 1; i < f.length && i <= 8; i++) {
        total += Long.parseLong(f[i]);
      }
      return new long[] {total, Long.parseLong(f[4]) + Long.parseLong(f[5])};
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }
}
