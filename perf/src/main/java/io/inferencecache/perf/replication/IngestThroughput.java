package io.inferencecache.perf.replication;

import io.inferencecache.natslocal.NatsServer;
import io.inferencecache.servelocal.ServeChild;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Figure 5 ({@code ReplicationDrills ingest}): ingest throughput per replica, direct gRPC against
 * through the broker, in one run. The client is the chaos test's {@code IngestLoad load} (its own
 * JVM; ReportCacheState calls of {@code --batch} one-chain updates, each call waiting for its Ack),
 * run for {@code --seconds} per phase:
 *
 * <ol>
 *   <li><b>direct</b>: a server without replication; chains acknowledged per second (each is
 *       indexed before the Ack);
 *   <li><b>forwarded</b>: replica A of two replicated servers; A publishes each update to the
 *       stream (one acknowledged publish each) before its Ack, and both A and B apply it from the
 *       stream: chains acknowledged per second, and each replica's applied messages per second over
 *       the phase plus the drain time after it;
 *   <li><b>stream fill</b>: {@code --fill} updates published straight to the stream with {@code
 *       publishAsync} (a subscriber fleet's aggregate), the time until both replicas applied the
 *       last: each replica's apply rate when the broker side is not the bound.
 * </ol>
 */
final class IngestThroughput {
  private static final Pattern ACKED = Pattern.compile("acked_chains=(\\d+)");

  private final ReplicationDrills.IngestCommand o;

  IngestThroughput(final ReplicationDrills.IngestCommand o) {
    this.o = o;
  }

  int run() throws Exception {
    final Path work = o.common.work();
    final Duration bound = o.common.readyTimeout;
    final long maxEntries = 8_000_000;
    System.out.println("load_start=\"" + ReplicationDrills.load() + "\"");
    final double direct;
    try (ServeChild d =
        new ServeChild(
            o.common.jar,
            ReplicationDrills.SERVE_JVM_OPTIONS,
            work.resolve("direct"),
            "index:\n  maxEntries: " + maxEntries + "\n  defaultTtl: 24h\n")) {
      d.start().awaitReadyMillis(bound);
      final long acked = ingestLoad(d.grpcTarget(), work.resolve("direct-acked.txt"), () -> {});
      direct = acked / (double) o.seconds;
      System.out.printf(
          "direct acked_chains=%d chains_per_s=%.0f index_entries=%.0f load=\"%s\"%n",
          acked,
          direct,
          d.metric("inferencecache_index_storage_entries"),
          ReplicationDrills.load());
    }
    boolean ok = true;
    try (NatsServer nats = NatsServer.create().start()) {
      final String stream = "ingest-" + System.currentTimeMillis();
      try (StreamFill fill = new StreamFill(nats.url(), stream, o.blocks, 8);
          ServeChild a =
              new ServeChild(
                  o.common.jar,
                  ReplicationDrills.SERVE_JVM_OPTIONS,
                  work.resolve("a"),
                  ReplicationDrills.serveYaml(nats.url(), stream, maxEntries, null));
          ServeChild b =
              new ServeChild(
                  o.common.jar,
                  ReplicationDrills.SERVE_JVM_OPTIONS,
                  work.resolve("b"),
                  ReplicationDrills.serveYaml(nats.url(), stream, maxEntries, null))) {
        a.start();
        b.start();
        a.awaitReadyMillis(bound);
        b.awaitReadyMillis(bound);
        final long[] first = new long[2];
        final long acked =
            ingestLoad(
                a.grpcTarget(),
                work.resolve("forwarded-acked.txt"),
                () -> {
                  if (first[0] == 0 && a.appliedSequence() > 0) {
                    first[0] = System.nanoTime();
                  }
                  if (first[1] == 0 && b.appliedSequence() > 0) {
                    first[1] = System.nanoTime();
                  }
                });
        a.awaitApplied(acked, bound);
        final long doneA = System.nanoTime();
        b.awaitApplied(acked, bound);
        final long doneB = System.nanoTime();
        System.out.printf(
            "forwarded acked_chains=%d chains_per_s=%.0f applied_per_s_a=%.0f applied_per_s_b=%.0f"
                + " (first applied to last applied) load=\"%s\"%n",
            acked,
            acked / (double) o.seconds,
            acked / ((doneA - first[0]) / 1e9),
            acked / ((doneB - first[1]) / 1e9),
            ReplicationDrills.load());
        if (a.metric("inferencecache_replication_applied_locally_total") > 0) {
          System.out.println("FAIL forwarded updates were applied locally (broker unreachable)");
          ok = false;
        }
        final long before = acked;
        final long f0 = System.nanoTime();
        final long last = fill.publish(1L << 32, o.fill);
        final double publishS = (System.nanoTime() - f0) / 1e9;
        final long fillA = a.awaitApplied(last, bound);
        final double sa = publishS + fillA / 1e3;
        final long fillB = b.awaitApplied(last, bound);
        final double sb = publishS + (fillA + fillB) / 1e3;
        System.out.printf(
            "stream_fill messages=%d publish_per_s=%.0f applied_per_s_a=%.0f applied_per_s_b=%.0f"
                + " (publish start to applied) entries_a=%.0f load=\"%s\"%n",
            last - before,
            o.fill / publishS,
            o.fill / sa,
            o.fill / sb,
            a.metric("inferencecache_index_storage_entries"),
            ReplicationDrills.load());
        System.out.printf(
            "summary direct_chains_per_s=%.0f forwarded_chains_per_s=%.0f ratio=%.2f%n",
            direct, acked / (double) o.seconds, acked / (double) o.seconds / direct);
      }
    }
    return ok ? 0 : 1;
  }

  /**
   * Runs {@code IngestLoad load} against {@code target}, calling {@code poll} every 100 ms while it
   * runs; returns the chains it acknowledged.
   */
  private long ingestLoad(final String target, final Path acked, final Runnable poll)
      throws IOException, InterruptedException {
    final String java =
        System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
    final Path out = acked.resolveSibling(acked.getFileName() + ".out");
    final Process p =
        new ProcessBuilder(
                List.of(
                    java,
                    "-Xmx256m",
                    "-cp",
                    o.common.perfJar,
                    "io.inferencecache.perf.chaos.IngestLoad",
                    "load",
                    "--target",
                    target,
                    "--batch",
                    Integer.toString(o.batch),
                    "--blocks",
                    Integer.toString(o.blocks),
                    "--replicas",
                    "8",
                    "--max-seconds",
                    Integer.toString(o.seconds),
                    "--acked",
                    acked.toString()))
            .redirectErrorStream(true)
            .redirectOutput(out.toFile())
            .start();
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(o.seconds + 120L);
    while (!p.waitFor(100, TimeUnit.MILLISECONDS) && System.nanoTime() < deadline) {
      poll.run();
    }
    if (p.isAlive()) {
      p.destroyForcibly();
      throw new IllegalStateException("IngestLoad did not end; output " + out);
    }
    final String text = Files.readString(out, StandardCharsets.UTF_8);
    final Matcher m = ACKED.matcher(text);
    if (!m.find()) {
      throw new IllegalStateException("IngestLoad printed no acked_chains: " + text);
    }
    return Long.parseLong(m.group(1));
  }
}
