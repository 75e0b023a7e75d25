package io.inferencecache.perf.chaos;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.inferencecache.perf.AckFuture;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import java.io.BufferedWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The crash/restart test's client ({@code ops/chaos/kill-restart.sh}, the {@code KillRestartIT}).
 *
 * <p>{@code load}: streams ReportCacheState calls of {@code --batch} updates each, one chain per
 * update (chain {@code k} of {@code --blocks} blocks, held by replica {@code chaos-(k %
 * replicas)}), and appends the range of chains of every call the server acknowledged to {@code
 * --acked}, until {@code --max-chains} or {@code --max-seconds}, or until the server goes away (the
 * expected end under SIGKILL). With {@code --lookups N}, N threads run LookupRoute alongside and
 * count statuses.
 *
 * <p>{@code check}: looks up acknowledged chains (all, or a sample plus the newest) and chains that
 * were never reported. Every replica a response credits with matched tokens must be the chain's own
 * replica (anything else is a wrong hint, e.g. from a torn entry) and a found chain is a
 * PREFIX_MATCH on its own replica over the whole chain; a never-reported chain must get no
 * PREFIX_MATCH and no matched tokens (AFFINITY_HINT suggestions, which claim no cache, are fine).
 * Prints one {@code key=value} line; exits 1 on a wrong hint, 0 otherwise (missing chains are
 * counted, the script judges them).
 */
public final class IngestLoad {
  public static final String TENANT = "chaos";
  public static final String MODEL = "chaos-model";
  public static final String SCHEME = "vllm";
  static final long NEVER_OFFSET = 1L << 50;

  private IngestLoad() {}

  /** The wire hash of block {@code b} of chain {@code k}. */
  public static ByteString hash(final long k, final int b) {
    return ByteString.copyFrom(
        ByteBuffer.allocate(8).putLong(0x4300_0000_0000_0000L | (k << 4) | b).array());
  }

  public static String replicaOf(final long k, final int replicas) {
    return "chaos-" + (k % replicas);
  }

  public static CacheStateUpdate update(final long k, final int blocks, final int replicas) {
    final PrefixEntry.Builder e = PrefixEntry.newBuilder();
    for (int b = 0; b < blocks; b++) {
      e.addBlockHashes(hash(k, b)).addBlockTokenCounts(16);
    }
    return CacheStateUpdate.newBuilder()
        .setReplicaId(replicaOf(k, replicas))
        .setTenantId(TENANT)
        .setModelId(MODEL)
        .setHashScheme(SCHEME)
        .addPrefixes(e)
        .build();
  }

  public static LookupRouteRequest lookup(final long k, final int blocks) {
    final LookupRouteRequest.Builder r =
        LookupRouteRequest.newBuilder().setTenantId(TENANT).setModelId(MODEL).setHashScheme(SCHEME);
    for (int b = 0; b < blocks; b++) {
      r.addBlockHashes(hash(k, b)).addBlockTokenCounts(16);
    }
    return r.build();
  }

  static ManagedChannel channel(final String target) {
    return NettyChannelBuilder.forTarget(target).usePlaintext().build();
  }

  /** The command line: {@code IngestLoad load|check}, each with {@code --help}. */
  @Command(
      name = "IngestLoad",
      mixinStandardHelpOptions = true,
      subcommands = {LoadFlags.class, CheckFlags.class},
      description =
          "ReportCacheState ingest load for the kill-restart chaos test, and the check of what was acknowledged.")
  static final class Tool {}

  /** Exit codes: 0 success, 1 failure found, 2 usage error. */
  public static void main(final String[] args) {
    System.exit(new CommandLine(new Tool()).execute(args));
  }

  /** The flags of {@code load}. */
  @Command(
      name = "load",
      mixinStandardHelpOptions = true,
      description = "Drives ReportCacheState ingest and records every acknowledged chain range.")
  static final class LoadFlags implements Callable<Integer> {
    @Option(names = "--start", defaultValue = "0", paramLabel = "N")
    long start;

    @Option(names = "--batch", defaultValue = "64", paramLabel = "N")
    int batch;

    @Option(names = "--blocks", defaultValue = "4", paramLabel = "N")
    int blocks;

    @Option(names = "--replicas", defaultValue = "8", paramLabel = "N")
    int replicas;

    @Option(names = "--max-chains", defaultValue = "1000000000", paramLabel = "N")
    long maxChains;

    @Option(names = "--max-seconds", defaultValue = "60", paramLabel = "N")
    double maxSeconds;

    @Option(names = "--lookups", defaultValue = "0", paramLabel = "N")
    int lookups;

    @Option(names = "--rate", defaultValue = "0", paramLabel = "N")
    double rate;

    @Option(names = "--target", required = true, paramLabel = "VALUE")
    String target;

    @Option(names = "--acked", required = true, paramLabel = "VALUE")
    String acked;

    @Override
    public Integer call() throws Exception {
      return load(this);
    }
  }

  /** The flags of {@code check}. */
  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = "Checks that every acknowledged chain is still answered PREFIX_MATCH.")
  static final class CheckFlags implements Callable<Integer> {
    @Option(names = "--blocks", defaultValue = "4", paramLabel = "N")
    int blocks;

    @Option(names = "--replicas", defaultValue = "8", paramLabel = "N")
    int replicas;

    @Option(names = "--sample", defaultValue = "3000", paramLabel = "N")
    int sample;

    @Option(names = "--never", defaultValue = "200", paramLabel = "N")
    int never;

    @Option(names = "--target", required = true, paramLabel = "VALUE")
    String target;

    @Option(names = "--acked", required = true, paramLabel = "VALUE")
    String acked;

    @Override
    public Integer call() throws Exception {
      return check(this);
    }
  }

  // ---- load

  static int load(final LoadFlags o) throws Exception {
    final String target = o.target;
    final Path acked = Path.of(o.acked);
    long next = o.start;
    final int batch = o.batch;
    final int blocks = o.blocks;
    final int replicas = o.replicas;
    final long maxChains = o.maxChains;
    final double maxSeconds = o.maxSeconds;
    final int lookupThreads = o.lookups;
    final double rate = o.rate; // chains/s, 0 = unpaced
    final long begin = System.nanoTime();
    final long end = System.nanoTime() + (long) (maxSeconds * 1e9);
    final long first = next;
    long ackedChains = 0;
    String stop = "limit";
    final ManagedChannel ch = channel(target);
    final AtomicBoolean running = new AtomicBoolean(true);
    final LookupCounts counts = new LookupCounts();
    final List<Thread> lookers = new ArrayList<>();
    for (int t = 0; t < lookupThreads; t++) {
      final long seed = t;
      final Thread th =
          new Thread(() -> lookups(ch, blocks, first, running, counts, seed), "lookups-" + t);
      th.setDaemon(true);
      th.start();
      lookers.add(th);
    }
    try (BufferedWriter w =
        Files.newBufferedWriter(
            acked,
            StandardCharsets.US_ASCII,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND)) {
      final InferenceCacheGrpc.InferenceCacheStub stub = InferenceCacheGrpc.newStub(ch);
      while (next - first < maxChains && System.nanoTime() < end) {
        final AckFuture done = new AckFuture();
        final StreamObserver<CacheStateUpdate> in =
            stub.withDeadlineAfter(20, TimeUnit.SECONDS).reportCacheState(done);
        final int n = (int) Math.min(batch, maxChains - (next - first));
        try {
          for (int i = 0; i < n; i++) {
            in.onNext(update(next + i, blocks, replicas));
          }
          in.onCompleted();
        } catch (RuntimeException e) {
          stop = "send_failed";
          break;
        }
        final Ack ack;
        try {
          ack = done.get(25, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
          stop = "server_gone";
          break;
        }
        if (ack == null || !ack.getAccepted()) {
          stop = "not_accepted";
          break;
        }
        w.write(next + " " + (next + n) + "\n");
        w.flush();
        next += n;
        ackedChains += n;
        if (rate > 0) {
          final long due = begin + (long) ((next - first) / rate * 1e9);
          final long wait = due - System.nanoTime();
          if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
          }
        }
      }
    } finally {
      running.set(false);
      for (Thread t : lookers) {
        t.join(5_000);
      }
      ch.shutdownNow();
      ch.awaitTermination(5, TimeUnit.SECONDS);
    }
    System.out.println(
        "load acked_chains="
            + ackedChains
            + " next="
            + next
            + " stop="
            + stop
            + (lookupThreads > 0 ? " " + counts : ""));
    return 0;
  }

  /** LookupRoute status counts of the load's lookup threads. */
  static final class LookupCounts {
    final AtomicLong ok = new AtomicLong();
    final AtomicLong unavailable = new AtomicLong();
    final AtomicLong other = new AtomicLong();
    final Map<String, AtomicLong> otherCodes = new java.util.concurrent.ConcurrentHashMap<>();

    @Override
    public String toString() {
      return "lookups_ok="
          + ok
          + " lookups_unavailable="
          + unavailable
          + " lookups_failed="
          + other
          + (otherCodes.isEmpty() ? "" : " failed_codes=" + otherCodes.keySet());
    }
  }

  private static void lookups(
      final ManagedChannel ch,
      final int blocks,
      final long first,
      final AtomicBoolean running,
      final LookupCounts counts,
      final long seed) {
    final SplittableRandom rnd = new SplittableRandom(seed);
    final InferenceCacheGrpc.InferenceCacheBlockingStub stub =
        InferenceCacheGrpc.newBlockingStub(ch);
    while (running.get()) {
      final long k = first + rnd.nextLong(Math.max(1, 1000));
      try {
        stub.withDeadlineAfter(5, TimeUnit.SECONDS).lookupRoute(lookup(k, blocks));
        counts.ok.incrementAndGet();
      } catch (StatusRuntimeException e) {
        final Status.Code c = e.getStatus().getCode();
        if (c == Status.Code.UNAVAILABLE) {
          counts.unavailable.incrementAndGet();
          try {
            Thread.sleep(5);
          } catch (InterruptedException ie) {
            return;
          }
        } else {
          counts.other.incrementAndGet();
          counts.otherCodes.computeIfAbsent(c.name(), x -> new AtomicLong()).incrementAndGet();
        }
      }
    }
  }

  // ---- check

  static int check(final CheckFlags o) throws Exception {
    final String target = o.target;
    final Path acked = Path.of(o.acked);
    final int blocks = o.blocks;
    final int replicas = o.replicas;
    final int sample = o.sample;
    final int never = o.never;
    final List<long[]> ranges = new ArrayList<>();
    long total = 0;
    if (Files.exists(acked)) {
      for (String line : Files.readAllLines(acked, StandardCharsets.US_ASCII)) {
        final String[] p = line.trim().split(" ");
        if (p.length == 2) {
          final long a = Long.parseLong(p[0]);
          final long b = Long.parseLong(p[1]);
          ranges.add(new long[] {a, b});
          total += b - a;
        }
      }
    }
    final List<Long> ids = new ArrayList<>();
    if (total <= sample) {
      for (long[] r : ranges) {
        for (long k = r[0]; k < r[1]; k++) {
          ids.add(k);
        }
      }
    } else {
      // The newest acknowledged chains (written just before a kill) and a uniform sample.
      int newest = Math.min(500, sample / 2);
      for (int i = ranges.size() - 1; i >= 0 && newest > 0; i--) {
        for (long k = ranges.get(i)[1] - 1; k >= ranges.get(i)[0] && newest > 0; k--, newest--) {
          ids.add(k);
        }
      }
      final SplittableRandom rnd = new SplittableRandom(42);
      while (ids.size() < sample) {
        long pick = rnd.nextLong(total);
        for (long[] r : ranges) {
          if (pick < r[1] - r[0]) {
            ids.add(r[0] + pick);
            break;
          }
          pick -= r[1] - r[0];
        }
      }
    }
    final ManagedChannel ch = channel(target);
    long found = 0;
    long missing = 0;
    long wrong = 0;
    long neverHint = 0;
    long errors = 0;
    final List<String> examples = new ArrayList<>();
    try {
      final InferenceCacheGrpc.InferenceCacheBlockingStub stub =
          InferenceCacheGrpc.newBlockingStub(ch);
      for (long k : ids) {
        final LookupRouteResponse r;
        try {
          r = stub.withDeadlineAfter(10, TimeUnit.SECONDS).lookupRoute(lookup(k, blocks));
        } catch (StatusRuntimeException e) {
          errors++;
          continue;
        }
        // A replica with matched tokens claims to hold (part of) the chain; AFFINITY_HINT /
        // TENANT_HOT suggestions carry none. Every claim must be the chain's own replica.
        final String expected = replicaOf(k, replicas);
        boolean full = false;
        boolean bad = false;
        for (ReplicaScore s : r.getReplicaScoresList()) {
          if (s.getMatchedTokens() == 0) {
            continue;
          }
          if (!s.getReplicaId().equals(expected) || s.getMatchedTokens() > 16 * blocks) {
            bad = true;
            if (examples.size() < 5) {
              examples.add("wrong:" + k + ":" + s.getReplicaId() + ":" + s.getMatchedTokens());
            }
          } else if (s.getMatchedTokens() == 16 * blocks) {
            full = true;
          }
        }
        if (bad) {
          wrong++;
        } else if (full && "PREFIX_MATCH".equals(r.getReasonCode())) {
          found++;
        } else {
          missing++;
          if (examples.size() < 5) {
            examples.add("missing:" + k + ":" + r.getReasonCode());
          }
        }
      }
      for (int i = 0; i < never; i++) {
        final LookupRouteResponse r;
        try {
          r =
              stub.withDeadlineAfter(10, TimeUnit.SECONDS)
                  .lookupRoute(lookup(NEVER_OFFSET + i, blocks));
        } catch (StatusRuntimeException e) {
          errors++;
          continue;
        }
        if ("PREFIX_MATCH".equals(r.getReasonCode())
            || r.getReplicaScoresList().stream().anyMatch(x -> x.getMatchedTokens() > 0)) {
          neverHint++;
        }
      }
    } finally {
      ch.shutdownNow();
      ch.awaitTermination(5, TimeUnit.SECONDS);
    }
    System.out.println(
        "check acked_total="
            + total
            + " checked="
            + ids.size()
            + " found="
            + found
            + " missing="
            + missing
            + " wrong_hint="
            + wrong
            + " never_reported_hint="
            + neverHint
            + " errors="
            + errors
            + (examples.isEmpty() ? "" : " examples=" + examples));
    return wrong > 0 || neverHint > 0 ? 1 : 0;
  }
}
