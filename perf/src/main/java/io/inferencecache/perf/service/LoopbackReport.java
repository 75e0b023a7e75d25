package io.inferencecache.perf.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The results of {@link LoopbackLoad}: the run's environment, the Markdown table printed at the end
 * and the JSON document of {@code --out}.
 */
final class LoopbackReport {
  private LoopbackReport() {}

  /** {@code v} rounded to {@code digits} decimals (half up). */
  static double round(final double v, final int digits) {
    final double m = Math.pow(10, digits);
    return Math.round(v * m) / m;
  }

  static Map<String, Object> environment(final LoopbackLoad.Options o) {
    final Map<String, Object> env = new LinkedHashMap<>();
    env.put("date", Instant.now().toString());
    env.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    env.put("cores", Runtime.getRuntime().availableProcessors());
    env.put(
        "loadAvg1m", round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), 2));
    env.put("chains", o.chains);
    env.put("holders", o.holders);
    env.put("replicas", o.replicas);
    env.put("holderBlocks", (long) o.chains * ServiceFixture.BLOCKS * o.holders);
    env.put("lookupPath", o.protobuf ? "protobuf" : "zero-copy");
    env.put("channels", o.channels);
    env.put("serverExecutorThreads", o.executorThreads);
    env.put("serverEventLoopThreads", o.eventLoopThreads);
    env.put("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments());
    return env;
  }

  static void finish(
      final LoopbackLoad.Options o,
      final Map<String, Object> result,
      final Map<String, Object> env,
      final long started,
      final String server)
      throws IOException {
    env.put("server", server);
    env.put("wallSeconds", round((System.nanoTime() - started) / 1e9, 1));
    env.put(
        "loadAvg1mAfter",
        round(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(), 2));
    final Map<String, Object> all = new LinkedHashMap<>();
    all.put("environment", env);
    all.putAll(result);
    System.out.println(table(result));
    if (o.out != null) {
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(o.out.toFile(), all);
      System.out.println("results: " + o.out);
    }
  }

  /** A Markdown table of the rows, LookupRoute beside Health/Check with the throughput ratio. */
  @SuppressWarnings("unchecked")
  static String table(final Map<String, Object> result) {
    final List<Map<String, Object>> rows = (List<Map<String, Object>>) result.get("rows");
    final StringBuilder b = new StringBuilder();
    b.append(
        "| step | LookupRoute calls/s | Health/Check calls/s | ratio | LookupRoute p50 / p99 µs |"
            + " Health/Check p50 / p99 µs | server B/call (LR / HC) | other load (cores) |\n");
    b.append("|---|---:|---:|---:|---:|---:|---:|---:|\n");
    for (int i = 0; i + 1 < rows.size(); i += 2) {
      final Map<String, Object> l = rows.get(i);
      final Map<String, Object> h = rows.get(i + 1);
      final String step =
          "closed".equals(l.get("mode"))
              ? "closed loop, concurrency " + l.get("concurrency")
              : "open loop at " + l.get("rate") + "/s";
      final double lt = ((Number) l.get("throughput")).doubleValue();
      final double ht = ((Number) h.get("throughput")).doubleValue();
      b.append(
          String.format(
              Locale.ROOT,
              "| %s | %.0f | %.0f | %.2f | %s / %s | %s / %s | %s / %s | %s / %s |%n",
              step,
              lt,
              ht,
              ht > 0 ? lt / ht : Double.NaN,
              l.get("p50us"),
              l.get("p99us"),
              h.get("p50us"),
              h.get("p99us"),
              l.getOrDefault("serverBytesPerCall", "-"),
              h.getOrDefault("serverBytesPerCall", "-"),
              l.getOrDefault("otherBusyCores", "-"),
              h.getOrDefault("otherBusyCores", "-")));
    }
    return b.toString();
  }
}
