package io.inferencecache.perf.replication;

import io.inferencecache.natslocal.NatsServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * The replication figures of issue 20 that need real {@code serve} processes and a real broker
 * (perf/README.md, "Replication: catch-up, ingest, drills"): {@code catch-up} (figure 3), {@code
 * ingest} (figure 5) and {@code drills} (figure 4). Each starts its own {@code nats-server} on
 * loopback ({@link NatsServer}) and {@code java -jar inference-cache.jar serve} children, prints
 * one {@code key=value} line per measurement and a summary, and exits 1 when a check fails.
 */
@Command(
    name = "ReplicationDrills",
    mixinStandardHelpOptions = true,
    subcommands = {
      ReplicationDrills.CatchUpCommand.class,
      ReplicationDrills.IngestCommand.class,
      ReplicationDrills.DrillsCommand.class
    },
    description = "Replication catch-up times, ingest throughput and fault drills.")
public final class ReplicationDrills {
  /** The heap of ops/chaos/kill-restart.sh, whose ready time docs/reliability.md reports. */
  static final List<String> SERVE_JVM_OPTIONS = List.of("-Xmx512m");

  ReplicationDrills() {}

  /** Exit codes: 0 every check passed, 1 a check failed, 2 usage error. */
  public static void main(final String[] args) {
    System.exit(new CommandLine(new ReplicationDrills()).execute(args));
  }

  /** What every subcommand needs. */
  static final class Common {
    @Option(
        names = "--jar",
        defaultValue = "control-plane/launcher/target/inference-cache.jar",
        description = "the server jar (default: ${DEFAULT-VALUE})")
    String jar;

    @Option(
        names = "--perf-jar",
        defaultValue = "perf/target/benchmarks.jar",
        description = "this jar, for the IngestLoad client (default: ${DEFAULT-VALUE})")
    String perfJar;

    @Option(
        names = "--work",
        description = "working directory for configs, index files and logs (default: a temp dir)")
    Path work;

    @Option(
        names = "--ready-timeout",
        defaultValue = "PT600S",
        description = "bound of one start to /readyz (default: ${DEFAULT-VALUE})")
    Duration readyTimeout;

    Path work() throws java.io.IOException {
      if (work == null) {
        work = Files.createTempDirectory("replication-drills");
      }
      return Files.createDirectories(work);
    }
  }

  /** Figure 3. */
  @Command(
      name = "catch-up",
      mixinStandardHelpOptions = true,
      description =
          "Time to /readyz of a wiped replica replaying a stream of --entries holder-block entries, and"
              + " of a kill -9'd persisted replica that missed --missed updates; beside them, in the"
              + " same run, a replica on an empty stream and a kill -9'd one that missed nothing.")
  static final class CatchUpCommand implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--runs", defaultValue = "3", description = "repetitions (median reported)")
    int runs;

    @Option(
        names = "--entries",
        defaultValue = "1000000",
        description = "holder-block entries in the wiped replica's stream")
    long entries;

    @Option(
        names = "--missed",
        defaultValue = "100000",
        description = "updates (stream messages) the killed replica misses")
    long missed;

    @Option(
        names = "--base",
        defaultValue = "10000",
        description = "updates the killed replica applied before the kill")
    long base;

    @Option(names = "--blocks", defaultValue = "4", description = "blocks per chain")
    int blocks;

    @Option(
        names = "--wiped-chains-per-update",
        defaultValue = "64",
        description =
            "chains per update in the wiped replica's stream (the killed one misses one-chain"
                + " updates)")
    int wipedChainsPerUpdate;

    @Option(names = "--replicas", defaultValue = "16", description = "engine replicas (subjects)")
    int replicas;

    @Override
    public Integer call() throws Exception {
      return new CatchUp(this).run();
    }
  }

  /** Figure 5. */
  @Command(
      name = "ingest",
      mixinStandardHelpOptions = true,
      description =
          "ReportCacheState throughput of IngestLoad against a server without replication, then"
              + " against one of two replicated servers (forwarded through the broker, applied by"
              + " both), then a stream fill applied by both; one run, the phases back to back.")
  static final class IngestCommand implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--seconds", defaultValue = "20", description = "length of each load phase")
    int seconds;

    @Option(names = "--batch", defaultValue = "64", description = "updates per ReportCacheState")
    int batch;

    @Option(names = "--blocks", defaultValue = "4", description = "blocks per chain")
    int blocks;

    @Option(names = "--fill", defaultValue = "200000", description = "updates of the fill phase")
    long fill;

    @Override
    public Integer call() throws Exception {
      return new IngestThroughput(this).run();
    }
  }

  /** Figure 4. */
  @Command(
      name = "drills",
      mixinStandardHelpOptions = true,
      description =
          "With LookupRoute load on two replicated servers: the broker killed for --outage-seconds"
              + " and restarted, a subscriber restart (rollup) during ingest; then an in-process"
              + " replica's consumer rewound --rewind sequences. Every drill requires 0 LookupRoute"
              + " errors.")
  static final class DrillsCommand implements Callable<Integer> {
    @Mixin Common common;

    @Option(names = "--outage-seconds", defaultValue = "30", description = "broker down this long")
    int outageSeconds;

    @Option(names = "--rewind", defaultValue = "10000", description = "sequences to rewind")
    int rewind;

    @Option(names = "--chains", defaultValue = "20000", description = "chains in the stream")
    int chains;

    @Option(names = "--lookup-threads", defaultValue = "2", description = "LookupRoute threads")
    int lookupThreads;

    @Override
    public Integer call() throws Exception {
      return new Drills(this).run();
    }
  }

  /** The median of {@code values} (the lower middle one of an even count). */
  static long median(final List<Long> values) {
    final List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get((sorted.size() - 1) / 2);
  }

  /** The serve YAML of the drills: replication on {@code stream}, catch-up bounded by 15 min. */
  static String serveYaml(
      final String natsUrl, final String stream, final long maxEntries, final Path persistence) {
    return "replication:\n"
        + "  natsUrl: "
        + natsUrl
        + "\n"
        + "  stream: "
        + stream
        + "\n"
        + "  catchUpTimeout: 900s\n"
        + "index:\n"
        + "  maxEntries: "
        + maxEntries
        + "\n"
        + "  defaultTtl: 24h\n"
        + (persistence != null ? "  persistenceFile: " + persistence + "\n" : "");
  }

  /** The load average line of {@code /proc/loadavg} (1, 5, 15 min). */
  static String load() {
    try {
      final String[] p = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
      return p[0] + " " + p[1] + " " + p[2];
    } catch (java.io.IOException e) {
      return "unknown";
    }
  }
}
