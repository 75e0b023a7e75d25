package io.inferencecache.perf.reliability;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Overload drivers against a running server (docs/reliability.md), loopback only, bounded in time.
 *
 * <pre>
 * Overload lookups     --grpc H:P --http H:P [--seconds 10] [--preload 20000] [--channels 4]
 *                      [--deadline-ms 10000] [--in-flight 64]
 * Overload ingest-flood --grpc H:P --http H:P --snapshot H:P [--seconds 10] [--rate 500] [--streams 4]
 * </pre>
 *
 * <p>{@code lookups}: preloads chains, measures the closed-loop maximum LookupRoute rate (64 in
 * flight, after a warm-up), then drives LookupRoute open-loop at 1×, 2× and 10× that rate (latency
 * from each call's scheduled send time, so queueing counts). 80 % of the requests name a preloaded
 * chain (they get a hint unless shed), 20 % an unknown one. Reports p50/p99, the share of the
 * would-hit requests answered with a hint, server heap/GC from {@code /metrics}, and every non-OK
 * status; exits 1 if any call ended non-OK. Every call carries a {@code --deadline-ms} deadline.
 * From the server's own counters it also reports, per phase, the LookupRoutes the server answered
 * and the calls it shed: a call the client saw end {@code DEADLINE_EXCEEDED} that the server never
 * answered was still waiting in the transport (kernel buffers, HTTP/2 flow control) when the client
 * gave up.
 *
 * <p>{@code ingest-flood}: lookups open-loop at {@code --rate} idle, then the same while {@code
 * --streams} ReportCacheState streams ingest as fast as the server takes them; reports lookup p99
 * idle vs under the flood, the server's max heap, and compares the chains the server acknowledged
 * with the growth of {@code /snapshot} totalPrefixes (nothing accepted lost). Exits 1 on loss or a
 * non-OK lookup.
 */
public final class Overload {
  private Overload() {}

  /** The command line: {@code Overload lookups|ingest-flood}, each with {@code --help}. */
  @Command(
      name = "Overload",
      mixinStandardHelpOptions = true,
      subcommands = {LookupsFlags.class, IngestFloodFlags.class},
      description = "LookupRoute and ingest overload against a running server.")
  static final class Tool {}

  /** Exit codes: 0 success, 1 failure found, 2 usage error. */
  public static void main(final String[] args) {
    System.exit(new CommandLine(new Tool()).execute(args));
  }

  /** The flags of {@code lookups}. */
  @Command(
      name = "lookups",
      mixinStandardHelpOptions = true,
      description = "Closed-loop maximum, then open-loop LookupRoute at 1x/2x/10x of it.")
  static final class LookupsFlags implements Callable<Integer> {
    @Option(names = "--seconds", defaultValue = "10", paramLabel = "N")
    double seconds;

    @Option(names = "--preload", defaultValue = "20000", paramLabel = "N")
    long preload;

    @Option(names = "--channels", defaultValue = "4", paramLabel = "N")
    int channels;

    @Option(names = "--max-outstanding", defaultValue = "20000", paramLabel = "N")
    int maxOutstanding;

    @Option(names = "--deadline-ms", defaultValue = "10000", paramLabel = "N")
    long deadlineMs;

    @Option(names = "--in-flight", defaultValue = "64", paramLabel = "N")
    int inFlight;

    @Option(names = "--grpc", required = true, paramLabel = "VALUE")
    String grpc;

    @Option(names = "--http", required = true, paramLabel = "VALUE")
    String http;

    @Override
    public Integer call() throws Exception {
      return lookups(this);
    }
  }

  /** The flags of {@code ingest-flood}. */
  @Command(
      name = "ingest-flood",
      mixinStandardHelpOptions = true,
      description = "Lookup p99 idle vs under a ReportCacheState flood; nothing accepted lost.")
  static final class IngestFloodFlags implements Callable<Integer> {
    @Option(names = "--seconds", defaultValue = "10", paramLabel = "N")
    double seconds;

    @Option(names = "--rate", defaultValue = "500", paramLabel = "N")
    double rate;

    @Option(names = "--streams", defaultValue = "4", paramLabel = "N")
    int streams;

    @Option(names = "--preload", defaultValue = "20000", paramLabel = "N")
    long preload;

    @Option(names = "--grpc", required = true, paramLabel = "VALUE")
    String grpc;

    @Option(names = "--http", required = true, paramLabel = "VALUE")
    String http;

    @Option(names = "--snapshot", required = true, paramLabel = "VALUE")
    String snapshot;

    @Override
    public Integer call() throws Exception {
      return ingestFlood(this);
    }
  }

  /** Outcome of one driven phase. */
  static final class Phase {
    final Load.Latencies lat;
    final AtomicLong ok = new AtomicLong();
    final AtomicLong nonOk = new AtomicLong();
    final AtomicLong wouldHit = new AtomicLong();
    final AtomicLong hinted = new AtomicLong();
    final AtomicLong dropped = new AtomicLong();
    final Map<String, AtomicLong> codes = new ConcurrentHashMap<>();
    final AtomicInteger outstanding = new AtomicInteger();
    long sent;
    double seconds;

    Phase(final int capacity) {
      lat = new Load.Latencies(capacity);
    }

    String row(final String name, final double target) {
      return String.format(
          Locale.ROOT,
          "| %s | %.0f | %.0f | %.2f | %.2f | %.1f %% | %d | %d |",
          name,
          target,
          sent / seconds,
          lat.pct(50),
          lat.pct(99),
          wouldHit.get() == 0 ? 0.0 : 100.0 * hinted.get() / wouldHit.get(),
          nonOk.get(),
          dropped.get());
    }
  }

  static LookupRouteRequest[] requests(final long preloaded, final long seed) {
    final SplittableRandom rnd = new SplittableRandom(seed);
    final LookupRouteRequest[] r = new LookupRouteRequest[4096];
    for (int i = 0; i < r.length; i++) {
      r[i] =
          i % 5 == 4
              ? Load.lookup((1L << 40) + rnd.nextLong(1_000_000)) // never reported
              : Load.lookup(rnd.nextLong(preloaded));
    }
    return r;
  }

  private static StreamObserver<LookupRouteResponse> observer(
      final Phase p, final long intended, final boolean wouldHit) {
    return new StreamObserver<>() {
      @Override
      public void onNext(final LookupRouteResponse r) {
        p.ok.incrementAndGet();
        if (wouldHit) {
          p.wouldHit.incrementAndGet();
          if (r.getReplicaScoresCount() > 0 && "PREFIX_MATCH".equals(r.getReasonCode())) {
            p.hinted.incrementAndGet();
          }
        }
      }

      @Override
      public void onError(final Throwable t) {
        p.lat.add(System.nanoTime() - intended);
        p.nonOk.incrementAndGet();
        p.codes
            .computeIfAbsent(Status.fromThrowable(t).getCode().name(), x -> new AtomicLong())
            .incrementAndGet();
        p.outstanding.decrementAndGet();
      }

      @Override
      public void onCompleted() {
        p.lat.add(System.nanoTime() - intended);
        p.outstanding.decrementAndGet();
      }
    };
  }

  /** Open-loop: one call every 1/rate s for {@code seconds}, at most {@code maxOutstanding}. */
  static Phase openLoop(
      final InferenceCacheGrpc.InferenceCacheStub[] stubs,
      final LookupRouteRequest[] reqs,
      final double rate,
      final double seconds,
      final int maxOutstanding,
      final long deadlineMillis)
      throws InterruptedException {
    final long n = (long) (rate * seconds);
    final Phase p = new Phase((int) Math.min(n + 16, 20_000_000));
    final double interval = 1e9 / rate;
    final long start = System.nanoTime() + 5_000_000;
    for (long i = 0; i < n; i++) {
      final long intended = start + (long) (i * interval);
      long now;
      while ((now = System.nanoTime()) < intended) {
        if (intended - now > 100_000) {
          LockSupport.parkNanos(intended - now - 50_000);
        } else {
          Thread.onSpinWait();
        }
      }
      if (p.outstanding.get() >= maxOutstanding) {
        p.dropped.incrementAndGet();
        continue;
      }
      p.outstanding.incrementAndGet();
      p.sent++;
      final int r = (int) (i & (reqs.length - 1));
      stubs[(int) (i % stubs.length)]
          .withDeadlineAfter(deadlineMillis, TimeUnit.MILLISECONDS)
          .lookupRoute(reqs[r], observer(p, intended, r % 5 != 4));
    }
    p.seconds = seconds;
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (p.outstanding.get() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return p;
  }

  /** Closed-loop with {@code inFlight} calls for {@code seconds}: completed calls per second. */
  static double closedLoopMax(
      final InferenceCacheGrpc.InferenceCacheStub[] stubs,
      final LookupRouteRequest[] reqs,
      final int inFlight,
      final double seconds)
      throws InterruptedException {
    final AtomicLong done = new AtomicLong();
    final AtomicBoolean running = new AtomicBoolean(true);
    final AtomicLong seq = new AtomicLong();
    final AtomicInteger live = new AtomicInteger();
    final Runnable[] issue = new Runnable[1];
    issue[0] =
        () -> {
          if (!running.get()) {
            live.decrementAndGet();
            return;
          }
          final long i = seq.getAndIncrement();
          stubs[(int) (i % stubs.length)]
              .withDeadlineAfter(10, TimeUnit.SECONDS)
              .lookupRoute(
                  reqs[(int) (i & (reqs.length - 1))],
                  new StreamObserver<>() {
                    @Override
                    public void onNext(final LookupRouteResponse value) {}

                    @Override
                    public void onError(final Throwable t) {
                      issue[0].run();
                    }

                    @Override
                    public void onCompleted() {
                      done.incrementAndGet();
                      issue[0].run();
                    }
                  });
        };
    for (int i = 0; i < inFlight; i++) {
      live.incrementAndGet();
      issue[0].run();
    }
    final long d0 = done.get();
    final long t0 = System.nanoTime();
    Thread.sleep((long) (seconds * 1000));
    final double rate = (done.get() - d0) / ((System.nanoTime() - t0) / 1e9);
    running.set(false);
    final long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (live.get() > 0 && System.nanoTime() < deadline) {
      Thread.sleep(10);
    }
    return rate;
  }

  static InferenceCacheGrpc.InferenceCacheStub[] stubs(final List<ManagedChannel> chs) {
    final InferenceCacheGrpc.InferenceCacheStub[] s =
        new InferenceCacheGrpc.InferenceCacheStub[chs.size()];
    for (int i = 0; i < s.length; i++) {
      s[i] = InferenceCacheGrpc.newStub(chs.get(i));
    }
    return s;
  }

  static final String HEADER =
      "| phase | target calls/s | sent calls/s | p50 ms | p99 ms | would-hit answered with a hint"
          + " | non-OK | not sent (client cap) |\n|---|---|---|---|---|---|---|---|";

  static int lookups(final LookupsFlags o) throws Exception {
    final String grpc = o.grpc;
    final String metrics = "http://" + o.http + "/metrics";
    final double seconds = o.seconds;
    final long preload = o.preload;
    final int nch = o.channels;
    final int maxOutstanding = o.maxOutstanding;
    final long deadlineMillis = o.deadlineMs;
    final int inFlight = o.inFlight;
    final List<ManagedChannel> chs = new ArrayList<>();
    for (int i = 0; i < nch; i++) {
      chs.add(Load.channel(grpc));
    }
    int failures = 0;
    try {
      final long acked = Load.ingest(chs.get(0), 0, preload, 512, 8);
      System.out.println("preloaded chains=" + acked);
      final InferenceCacheGrpc.InferenceCacheStub[] stubs = stubs(chs);
      final LookupRouteRequest[] reqs = requests(preload, 1);
      closedLoopMax(stubs, reqs, inFlight, Math.min(5, seconds)); // warm-up (JIT on both sides)
      final double max = closedLoopMax(stubs, reqs, inFlight, Math.min(5, seconds));
      System.out.printf(
          Locale.ROOT, "measured max (closed loop, %d in flight): %.0f calls/s%n", inFlight, max);
      System.out.println(HEADER);
      final StringBuilder heap = new StringBuilder();
      for (double mult : new double[] {1, 2, 10}) {
        final Load.JvmSample before = Load.jvm(metrics);
        final Load.CallSample callsBefore = Load.calls(metrics);
        final Phase p;
        final double maxHeap;
        try (Load.HeapWatch w = new Load.HeapWatch(metrics)) {
          p = openLoop(stubs, reqs, max * mult, seconds, maxOutstanding, deadlineMillis);
          maxHeap = w.maxHeap;
        }
        final Load.JvmSample after = Load.jvm(metrics);
        final Load.CallSample callsAfter = Load.calls(metrics);
        System.out.println(p.row(String.format(Locale.ROOT, "%.0f× max", mult), max * mult));
        heap.append(
            String.format(
                Locale.ROOT,
                "%.0f× max: server heap max %.0f MiB, GC %d collections / %.0f ms; codes %s;"
                    + " client saw OK %d of %d sent; server answered %.0f LookupRoutes, shed %.0f"
                    + " calls%n",
                mult,
                maxHeap / (1 << 20),
                (long) (after.gcCount() - before.gcCount()),
                (after.gcSeconds() - before.gcSeconds()) * 1000,
                p.codes,
                p.ok.get(),
                p.sent,
                callsAfter.answered() - callsBefore.answered(),
                callsAfter.shed() - callsBefore.shed()));
        failures += (int) p.nonOk.get();
        Thread.sleep(2_000);
      }
      System.out.print(heap);
    } finally {
      for (ManagedChannel c : chs) {
        c.shutdownNow();
      }
    }
    System.out.println(failures == 0 ? "RESULT=PASS (no non-OK status)" : "RESULT=FAIL");
    return failures == 0 ? 0 : 1;
  }

  private static final Pattern TOTAL = Pattern.compile("\"totalPrefixes\":(\\d+)");

  static long totalPrefixes(final String snapshotHostPort) throws Exception {
    final Matcher m = TOTAL.matcher(Load.get("http://" + snapshotHostPort + "/snapshot"));
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  static int ingestFlood(final IngestFloodFlags o) throws Exception {
    final String grpc = o.grpc;
    final String metrics = "http://" + o.http + "/metrics";
    final String snapshot = o.snapshot;
    final double seconds = o.seconds;
    final double rate = o.rate;
    final int streams = o.streams;
    final long preload = o.preload;
    final List<ManagedChannel> chs = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      chs.add(Load.channel(grpc));
    }
    final List<ManagedChannel> ingestChs = new ArrayList<>();
    for (int i = 0; i < streams; i++) {
      ingestChs.add(Load.channel(grpc));
    }
    int failures = 0;
    try {
      Load.ingest(chs.get(0), 0, preload, 512, 8);
      final InferenceCacheGrpc.InferenceCacheStub[] stubs = stubs(chs);
      final LookupRouteRequest[] reqs = requests(preload, 2);
      openLoop(stubs, reqs, rate, Math.min(5, seconds), 20_000, 10_000); // warm-up
      final Phase idle;
      final double idleHeap;
      try (Load.HeapWatch w = new Load.HeapWatch(metrics)) {
        idle = openLoop(stubs, reqs, rate, seconds, 20_000, 10_000);
        idleHeap = w.maxHeap;
      }
      final long before = totalPrefixes(snapshot);
      final AtomicLong acked = new AtomicLong();
      final AtomicLong errors = new AtomicLong();
      final AtomicBoolean flooding = new AtomicBoolean(true);
      final List<Thread> writers = new ArrayList<>();
      final long base = 1L << 44;
      for (int s = 0; s < streams; s++) {
        final ManagedChannel ch = ingestChs.get(s);
        final long from = base + s * (1L << 36);
        final Thread t =
            new Thread(
                () -> {
                  long k = from;
                  while (flooding.get()) {
                    try {
                      acked.addAndGet(Load.ingest(ch, k, k + 256, 256, 16));
                    } catch (Exception e) {
                      errors.incrementAndGet();
                    }
                    k += 256;
                  }
                },
                "flood-" + s);
        t.start();
        writers.add(t);
      }
      final Phase flood;
      final double floodHeap;
      final long t0 = System.nanoTime();
      try (Load.HeapWatch w = new Load.HeapWatch(metrics)) {
        flood = openLoop(stubs, reqs, rate, seconds, 20_000, 10_000);
        flooding.set(false);
        for (Thread t : writers) {
          t.join(120_000);
        }
        floodHeap = w.maxHeap;
      }
      final double floodSeconds = (System.nanoTime() - t0) / 1e9;
      final long after = totalPrefixes(snapshot);
      final long expected = acked.get() * Load.BLOCKS;
      System.out.println(HEADER);
      System.out.println(idle.row("lookups idle", rate));
      System.out.println(flood.row("lookups during ingest flood", rate));
      System.out.printf(
          Locale.ROOT,
          "ingest flood: %d streams, %d chains acknowledged in %.1f s (%.0f chains/s, %.0f keys/s),"
              + " %d failed calls%n",
          streams,
          acked.get(),
          floodSeconds,
          acked.get() / floodSeconds,
          expected / floodSeconds,
          errors.get());
      System.out.printf(
          Locale.ROOT,
          "server heap max: idle %.0f MiB, flood %.0f MiB%n",
          idleHeap / (1 << 20),
          floodHeap / (1 << 20));
      System.out.printf(
          Locale.ROOT,
          "snapshot totalPrefixes %d -> %d: +%d, acknowledged keys %d, lost %d%n",
          before,
          after,
          after - before,
          expected,
          expected - (after - before));
      final double ratio = flood.lat.pct(99) / idle.lat.pct(99);
      System.out.printf(Locale.ROOT, "lookup p99 flood/idle = %.2f (target <= 2)%n", ratio);
      failures += (int) (idle.nonOk.get() + flood.nonOk.get());
      if (after - before != expected || errors.get() > 0) {
        failures++;
      }
      System.out.println(
          failures == 0
              ? "RESULT=PASS" + (ratio > 2 ? " (p99 ratio above 2: see docs)" : "")
              : "RESULT=FAIL");
    } finally {
      for (ManagedChannel c : chs) {
        c.shutdownNow();
      }
      for (ManagedChannel c : ingestChs) {
        c.shutdownNow();
      }
    }
    return failures == 0 ? 0 : 1;
  }
}
