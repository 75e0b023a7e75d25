package io.inferencecache.perf.replay;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** JVM heap and GC counters at one instant; {@link #minus} gives a replay's {@code jvm} figures. */
record JvmSample(
    long heapUsed,
    long heapPeak,
    long heapMax,
    List<String> gcNames,
    long[] gcCount,
    long[] gcMillis) {
  /** Resets the heap pools' peak usage, so that the next samples' peak is the replay's. */
  static void resetPeaks() {
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        p.resetPeakUsage();
      }
    }
  }

  static JvmSample sample() {
    long used = 0;
    long peak = 0;
    for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
      if (p.getType() == MemoryType.HEAP) {
        used += p.getUsage().getUsed();
        peak += p.getPeakUsage().getUsed();
      }
    }
    final List<GarbageCollectorMXBean> gcs = ManagementFactory.getGarbageCollectorMXBeans();
    final List<String> names = new ArrayList<>();
    final long[] count = new long[gcs.size()];
    final long[] millis = new long[gcs.size()];
    for (int i = 0; i < gcs.size(); i++) {
      names.add(gcs.get(i).getName());
      count[i] = Math.max(0, gcs.get(i).getCollectionCount());
      millis[i] = Math.max(0, gcs.get(i).getCollectionTime());
    }
    return new JvmSample(used, peak, Runtime.getRuntime().maxMemory(), names, count, millis);
  }

  Map<String, Object> minus(final JvmSample before) {
    final Map<String, Object> m = new LinkedHashMap<>();
    m.put("heapUsedEndMiB", ReplayRunner.round(heapUsed / 1048576.0, 1));
    m.put("heapPeakMiB", ReplayRunner.round(heapPeak / 1048576.0, 1));
    m.put("heapMaxMiB", ReplayRunner.round(heapMax / 1048576.0, 1));
    long count = 0;
    long millis = 0;
    final List<Map<String, Object>> per = new ArrayList<>();
    for (int i = 0; i < gcNames.size(); i++) {
      final long c = gcCount[i] - before.gcCount[i];
      final long t = gcMillis[i] - before.gcMillis[i];
      count += c;
      millis += t;
      final Map<String, Object> g = new LinkedHashMap<>();
      g.put("name", gcNames.get(i));
      g.put("collections", c);
      g.put("timeMs", t);
      per.add(g);
    }
    m.put("gcCollections", count);
    m.put("gcTimeMs", millis);
    m.put("collectors", per);
    return m;
  }
}
