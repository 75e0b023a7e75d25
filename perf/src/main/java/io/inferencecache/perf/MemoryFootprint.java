package io.inferencecache.perf;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.TenantPolicies;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Bytes per holder-block (storage entry) of each workload shape, for each index under test. Not a
 * JMH benchmark: it builds each shape once and reads
 *
 * <ul>
 *   <li>engine: {@code CacheIndex.footprintBytes()} ÷ holder-blocks (what the off-heap map and LFU
 *       arena occupy, and the block directory's heap table), plus, for context, the growth of the
 *       process' resident set and of the heap;
 *   <li>baseline: heap used after {@code System.gc()} (MemoryMXBean), minus the same before the
 *       build, ÷ holder-blocks.
 * </ul>
 *
 * <p>Run it with the off-heap JVM flags and a heap large enough for the on-heap baseline, e.g.
 * {@code java $(java -cp perf/target/benchmarks.jar io.inferencecache.perf.JvmFlags) -Xmx8g -cp
 * perf/target/benchmarks.jar io.inferencecache.perf.MemoryFootprint --shapes pinned}. Options:
 * {@code --shapes single,pinned,long,mooncake}, {@code --impls offheap,onheap}, {@code
 * --pinned-chains 12500}, {@code --long-chains 256}, {@code --single-keys 800000}, {@code --trace
 * PATH}, {@code --offheap-hint H} (adds a row of each off-heap impl sized with
 * averageHoldersPerKey=H), {@code --lfu true} (adds a row of the engine with every tenant evicting
 * by LFU, so every holder-block has an LFU counter; the other rows' tenants are LRU, the default),
 * {@code --out FILE.json}.
 */
public final class MemoryFootprint {
  private static final MemoryMXBean MEMORY = ManagementFactory.getMemoryMXBean();

  private MemoryFootprint() {}

  public static void main(final String[] args) throws Exception {
    final Map<String, String> opt = parse(args);
    final List<String> shapes =
        List.of(opt.getOrDefault("shapes", "single,pinned,long,mooncake").split(","));
    final List<String> impls = List.of(opt.getOrDefault("impls", "offheap,onheap").split(","));
    final String hint = opt.get("offheap-hint");
    final List<Map<String, Object>> rows = new ArrayList<>();
    System.out.printf(
        Locale.ROOT,
        "%-9s %-18s %12s %10s %14s %10s %10s %10s %8s%n",
        "shape",
        "impl",
        "holderBlks",
        "keys",
        "bytes",
        "B/hblk",
        "rss B/hb",
        "heap B/hb",
        "build s");
    for (String shape : shapes) {
      final Workload w = workload(shape, opt);
      for (String impl : impls) {
        rows.add(measure(w, impl, impl, IndexUnderTest.configFor(w)));
        if (impl.equals(IndexUnderTest.OFFHEAP) && Boolean.parseBoolean(opt.get("lfu"))) {
          rows.add(
              measure(
                  w,
                  impl,
                  impl + "(lfu)",
                  IndexUnderTest.configFor(w).policies(TenantPolicies.ALL_LFU)));
        }
        if (!impl.equals(IndexUnderTest.ONHEAP) && hint != null) {
          final IndexConfig cfg =
              IndexUnderTest.configFor(w).averageHoldersPerKey(Double.parseDouble(hint));
          rows.add(measure(w, impl, impl + "(hint=" + hint + ")", cfg));
        }
      }
    }
    final String out = opt.get("out");
    if (out != null) {
      final Path p = Path.of(out);
      if (p.getParent() != null) {
        Files.createDirectories(p.getParent());
      }
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(p.toFile(), rows);
      System.out.println("wrote " + p);
    }
  }

  static Workload workload(final String shape, final Map<String, String> opt) {
    return switch (shape) {
      case "single" ->
          SyntheticChains.singleHolder(Integer.parseInt(opt.getOrDefault("single-keys", "800000")));
      case "pinned" ->
          SyntheticChains.pinned(
              Integer.parseInt(
                  opt.getOrDefault(
                      "pinned-chains", String.valueOf(SyntheticChains.PINNED_CHAINS))));
      case "long" ->
          SyntheticChains.longChains(Integer.parseInt(opt.getOrDefault("long-chains", "256")));
      case "mooncake" -> MooncakeTrace.load(MooncakeTrace.resolve(opt.get("trace")));
      default -> throw new IllegalArgumentException("unknown shape " + shape);
    };
  }

  private static Map<String, Object> measure(
      final Workload w, final String impl, final String label, final IndexConfig cfg)
      throws IOException, InterruptedException {
    final long heapBefore = heapUsedAfterGc();
    final long rssBefore = rssBytes();
    final long t0 = System.nanoTime();
    IndexUnderTest index = IndexUnderTest.build(impl, w, cfg);
    final double buildSeconds = (System.nanoTime() - t0) / 1e9;
    final long heapAfter = heapUsedAfterGc();
    final long rssAfter = rssBytes();
    final long blocks = w.holderBlocks();
    final long heapDelta = heapAfter - heapBefore;
    final long rssDelta = rssAfter - rssBefore;
    final boolean offHeap = !impl.equals(IndexUnderTest.ONHEAP);
    final long bytes = offHeap ? index.offHeapBytes() : heapDelta;
    index.close();
    index = null;
    heapUsedAfterGc();

    final Map<String, Object> row = new LinkedHashMap<>();
    row.put("shape", w.name());
    row.put("impl", label);
    row.put("holderBlocks", blocks);
    row.put("distinctKeys", w.distinctKeys());
    row.put("measure", offHeap ? "footprintBytes()" : "heap after GC");
    row.put("bytes", bytes);
    row.put("bytesPerHolderBlock", (double) bytes / blocks);
    row.put("rssDeltaPerHolderBlock", (double) rssDelta / blocks);
    row.put("heapDeltaPerHolderBlock", (double) heapDelta / blocks);
    row.put("buildSeconds", buildSeconds);
    row.put("buildBlocksPerSecond", blocks / buildSeconds);
    System.out.printf(
        Locale.ROOT,
        "%-9s %-18s %12d %10d %14d %10.1f %10.1f %10.1f %8.1f%n",
        w.name(),
        label,
        blocks,
        w.distinctKeys(),
        bytes,
        (double) bytes / blocks,
        (double) rssDelta / blocks,
        (double) heapDelta / blocks,
        buildSeconds);
    return row;
  }

  /** Heap in use after full collections (several, to let G1 settle). */
  static long heapUsedAfterGc() throws InterruptedException {
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 3; i++) {
      System.gc();
      Thread.sleep(100);
      used = Math.min(used, MEMORY.getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  /** Resident set size of this process (Linux /proc), or 0 where unavailable. */
  static long rssBytes() throws IOException {
    final Path status = Path.of("/proc/self/status");
    if (!Files.exists(status)) {
      return 0;
    }
    for (String line : Files.readAllLines(status)) {
      if (line.startsWith("VmRSS:")) {
        final String[] parts = line.trim().split("\\s+");
        return Long.parseLong(parts[1]) * 1024L;
      }
    }
    return 0;
  }

  private static Map<String, String> parse(final String[] args) {
    final Map<String, String> opt = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      if (!args[i].startsWith("--") || i + 1 >= args.length) {
        throw new IllegalArgumentException("expected --name value pairs, got " + args[i]);
      }
      opt.put(args[i].substring(2), args[++i]);
    }
    return opt;
  }
}
