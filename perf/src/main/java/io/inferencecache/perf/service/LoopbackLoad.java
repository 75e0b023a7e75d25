package io.inferencecache.perf.service;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Drainable;
import io.grpc.KnownLength;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.perf.SyntheticChains;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.service.server.GrpcServer;
import io.inferencecache.service.server.GrpcServerConfig;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * LookupRoute over loopback against the transport floor: the whole server stack ({@link
 * GrpcServer}: grpc-netty, its handler pool and admission, the zero-copy LookupRoute path) with an
 * index of {@code chains × 64 × holders} holder-blocks (default 4,096 × 64 × 4 = 1,048,576), and in
 * the same run the same server's {@code grpc.health.v1.Health/Check} (an empty request, a 2-byte
 * response) as the empty unary RPC.
 *
 * <p>The load generator is a grpc-netty client on 127.0.0.1, plaintext, sending pre-serialized
 * requests through byte-array marshallers (so the client spends as little CPU as it can: it shares
 * the machine with the server). Two kinds of step, each bounded in time and in calls:
 *
 * <ul>
 *   <li><b>Closed loop</b> at each concurrency (default 1, 16, 64): that many calls in flight, each
 *       completion issuing the next; throughput and latency (completion − send) of the measured
 *       window. LookupRoute and Health/Check alternate at each concurrency.
 *   <li><b>Open loop</b> at a fixed rate (default: half the best closed-loop LookupRoute
 *       throughput): one pacing thread sends call {@code i} at {@code t0 + i / rate}; latency is
 *       measured from that intended send time, so a stalled server or sender is charged for the
 *       whole stall (no coordinated omission). Calls beyond {@code --max-outstanding} in flight are
 *       not sent and are counted as such.
 * </ul>
 *
 * <p>By default the server runs in this JVM (server-side allocation per call is then measured from
 * the server threads' allocation counters); {@code --serve} runs only the server and {@code
 * --connect 127.0.0.1:PORT} only the client, for a two-process run. Only loopback addresses are
 * accepted.
 *
 * <p>Run with the off-heap JVM flags: {@code java $(java -cp perf/target/benchmarks.jar
 * io.inferencecache.perf.JvmFlags) -Xmx4g -cp perf/target/benchmarks.jar
 * io.inferencecache.perf.service.LoopbackLoad --out perf/results/loopback.json}; {@code --help}
 * lists the options.
 */
public final class LoopbackLoad {
  private static final String USAGE =
      """
      LoopbackLoad [options]
        --chains N             index chains of 64 blocks (default 4096)
        --holders N            replicas holding each chain (default 4)
        --replicas N           replicas in all (default 16)
        --concurrency LIST     closed-loop concurrencies (default 1,16,64)
        --jit-warmup S         seconds of unrecorded load on both RPCs first (default 20)
        --warmup S             seconds of warm-up before each closed-loop step (default 3)
        --duration S           measured seconds of each closed-loop step (default 8)
        --open-rate R          open-loop calls/s (default: half the best closed-loop LookupRoute)
        --open-duration S      measured seconds of each open-loop step (default 15)
        --max-outstanding N    open loop: most calls in flight (default 10000)
        --max-calls N          hard bound on calls per step (default 5000000)
        --channels N           client connections (default 1)
        --executor-threads N   server handler threads (default: GrpcServerConfig's)
        --event-loop-threads N server Netty I/O threads (default: GrpcServerConfig's)
        --protobuf             bind the default protobuf LookupRoute path instead of zero-copy
        --out FILE             write the results as JSON
        --serve                run only the server (prints its port; --serve-seconds, default 600)
        --connect HOST:PORT    run only the client against a loopback server started with --serve
      """;

  // ------------------------------------------------------------------------------------------
  // Options

  static final class Options {
    int chains = 4096;
    int holders = 4;
    int replicas = 16;
    int[] concurrency = {1, 16, 64};
    double warmupSeconds = 3;
    double jitWarmupSeconds = 20;
    double durationSeconds = 8;
    double openRate;
    double openDurationSeconds = 15;
    int maxOutstanding = 10_000;
    long maxCalls = 5_000_000;
    int channels = 1;
    int executorThreads = GrpcServerConfig.EXECUTOR_THREADS_DEFAULT;
    int eventLoopThreads = GrpcServerConfig.EVENT_LOOP_THREADS_DEFAULT;
    boolean protobuf;
    Path out;
    boolean serve;
    double serveSeconds = 600;
    String connect;

    static Options parse(final String[] args) {
      final Options o = new Options();
      for (int i = 0; i < args.length; i++) {
        final String a = args[i];
        switch (a) {
          case "--chains" -> o.chains = Integer.parseInt(args[++i]);
          case "--holders" -> o.holders = Integer.parseInt(args[++i]);
          case "--replicas" -> o.replicas = Integer.parseInt(args[++i]);
          case "--concurrency" ->
              o.concurrency =
                  Arrays.stream(args[++i].split(",")).mapToInt(Integer::parseInt).toArray();
          case "--warmup" -> o.warmupSeconds = Double.parseDouble(args[++i]);
          case "--jit-warmup" -> o.jitWarmupSeconds = Double.parseDouble(args[++i]);
          case "--duration" -> o.durationSeconds = Double.parseDouble(args[++i]);
          case "--open-rate" -> o.openRate = Double.parseDouble(args[++i]);
          case "--open-duration" -> o.openDurationSeconds = Double.parseDouble(args[++i]);
          case "--max-outstanding" -> o.maxOutstanding = Integer.parseInt(args[++i]);
          case "--max-calls" -> o.maxCalls = Long.parseLong(args[++i]);
          case "--channels" -> o.channels = Integer.parseInt(args[++i]);
          case "--executor-threads" -> o.executorThreads = Integer.parseInt(args[++i]);
          case "--event-loop-threads" -> o.eventLoopThreads = Integer.parseInt(args[++i]);
          case "--protobuf" -> o.protobuf = true;
          case "--out" -> o.out = Path.of(args[++i]);
          case "--serve" -> o.serve = true;
          case "--serve-seconds" -> o.serveSeconds = Double.parseDouble(args[++i]);
          case "--connect" -> o.connect = args[++i];
          case "-h", "--help" -> {
            System.out.print(USAGE);
            System.exit(0);
          }
          default -> throw new IllegalArgumentException("unknown option " + a + "\n" + USAGE);
        }
      }
      if (o.serve && o.connect != null) {
        throw new IllegalArgumentException("--serve and --connect exclude each other");
      }
      if (o.durationSeconds <= 0 || o.openDurationSeconds <= 0 || o.warmupSeconds < 0) {
        throw new IllegalArgumentException("durations must be positive");
      }
      if (o.durationSeconds + o.warmupSeconds > 120
          || o.openDurationSeconds > 120
          || o.jitWarmupSeconds > 300) {
        throw new IllegalArgumentException("a step is limited to 120 s");
      }
      if (o.serveSeconds <= 0 || o.serveSeconds > 3600) {
        throw new IllegalArgumentException("--serve-seconds must be in (0, 3600]");
      }
      if (o.channels < 1 || o.maxOutstanding < 1 || o.maxCalls < 1) {
        throw new IllegalArgumentException("--channels, --max-outstanding, --max-calls: >= 1");
      }
      return o;
    }
  }

  // ------------------------------------------------------------------------------------------
  // Byte-array marshalling: the client sends pre-serialized requests and keeps raw responses.

  /** A request's bytes as a {@link KnownLength} {@link Drainable} stream (gRPC frames it as is). */
  private static final class BytesStream extends ByteArrayInputStream
      implements KnownLength, Drainable {
    BytesStream(final byte[] b) {
      super(b);
    }

    @Override
    public int drainTo(final OutputStream target) throws IOException {
      final int n = count - pos;
      target.write(buf, pos, n);
      pos = count;
      return n;
    }
  }

  private static final MethodDescriptor.Marshaller<byte[]> BYTES =
      new MethodDescriptor.Marshaller<>() {
        @Override
        public InputStream stream(final byte[] value) {
          return new BytesStream(value);
        }

        @Override
        public byte[] parse(final InputStream stream) {
          try {
            return stream.readAllBytes();
          } catch (IOException e) {
            throw new IllegalStateException(e);
          }
        }
      };

  static final MethodDescriptor<byte[], byte[]> LOOKUP =
      InferenceCacheGrpc.getLookupRouteMethod().toBuilder(BYTES, BYTES).build();
  static final MethodDescriptor<byte[], byte[]> HEALTH =
      HealthGrpc.getCheckMethod().toBuilder(BYTES, BYTES).build();

  // ------------------------------------------------------------------------------------------
  // Latency samples

  /** Up to {@code capacity} latencies (ns) from any thread; percentiles by sorting a copy. */
  static final class Samples {
    private final long[] values;
    private final AtomicInteger size = new AtomicInteger();

    Samples(final int capacity) {
      values = new long[capacity];
    }

    void add(final long nanos) {
      final int i = size.getAndIncrement();
      if (i < values.length) {
        values[i] = nanos;
      }
    }

    long[] sorted() {
      final long[] s = Arrays.copyOf(values, Math.min(size.get(), values.length));
      Arrays.sort(s);
      return s;
    }

    static double percentileMicros(final long[] sorted, final double p) {
      if (sorted.length == 0) {
        return Double.NaN;
      }
      final int i = (int) Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1);
      return sorted[Math.max(0, i)] / 1000.0;
    }
  }

  static double round(final double v, final int digits) {
    final double m = Math.pow(10, digits);
    return Math.round(v * m) / m;
  }

  // ------------------------------------------------------------------------------------------
  // Client

  private final Options o;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final byte[][] lookupRequests;
  private final byte[] healthRequest = HealthCheckRequest.getDefaultInstance().toByteArray();
  private final AtomicLong errors = new AtomicLong();
  private volatile Status lastError;

  private LoopbackLoad(final Options o, final String host, final int port) {
    this.o = o;
    final SyntheticChains w = ServiceFixture.workload(o.chains, o.holders, o.replicas);
    this.lookupRequests = ServiceFixture.requests(w, 4096, 7);
    for (int i = 0; i < o.channels; i++) {
      channels.add(
          NettyChannelBuilder.forAddress(host, port)
              .usePlaintext()
              .directExecutor() // completions run on the client's event loop, issue the next call
              .build());
    }
  }

  private ManagedChannel channel(final int i) {
    return channels.get(i % channels.size());
  }

  private byte[] request(final MethodDescriptor<byte[], byte[]> m, final long i) {
    return m == LOOKUP ? lookupRequests[(int) (i % lookupRequests.length)] : healthRequest;
  }

  private static String name(final MethodDescriptor<?, ?> m) {
    return m == LOOKUP ? "LookupRoute" : "Health/Check";
  }

  /** One blocking call, for the checks before the load. */
  private byte[] callOnce(final MethodDescriptor<byte[], byte[]> m, final byte[] req)
      throws InterruptedException {
    final byte[][] got = new byte[1][];
    final Status[] status = new Status[1];
    final CountDownLatch done = new CountDownLatch(1);
    final ClientCall<byte[], byte[]> call = channel(0).newCall(m, CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(final byte[] message) {
            got[0] = message;
          }

          @Override
          public void onClose(final Status s, final Metadata trailers) {
            status[0] = s;
            done.countDown();
          }
        },
        new Metadata());
    call.request(1);
    call.sendMessage(req);
    call.halfClose();
    if (!done.await(10, TimeUnit.SECONDS) || !status[0].isOk()) {
      throw new IllegalStateException(name(m) + " failed: " + status[0]);
    }
    return got[0];
  }

  /** Every request answers a full PREFIX_MATCH by its holders; Health answers SERVING. */
  private void checkAnswers() throws Exception {
    for (int i = 0; i < 64; i++) {
      final LookupRouteResponse r =
          LookupRouteResponse.parseFrom(callOnce(LOOKUP, lookupRequests[i]));
      ServiceFixture.check(r, o.holders, "LookupRoute request " + i);
    }
    final HealthCheckResponse h = HealthCheckResponse.parseFrom(callOnce(HEALTH, healthRequest));
    if (h.getStatus() != HealthCheckResponse.ServingStatus.SERVING) {
      throw new IllegalStateException("Health/Check answered " + h);
    }
  }

  /** A unary call whose completion is reported to {@code done}. */
  private abstract class Call extends ClientCall.Listener<byte[]> {
    void send(final MethodDescriptor<byte[], byte[]> m, final ManagedChannel ch, final byte[] req) {
      final ClientCall<byte[], byte[]> call = ch.newCall(m, CallOptions.DEFAULT);
      call.start(this, new Metadata());
      call.request(1);
      call.sendMessage(req);
      call.halfClose();
    }

    abstract void done(boolean ok);

    @Override
    public void onClose(final Status status, final Metadata trailers) {
      if (!status.isOk()) {
        errors.incrementAndGet();
        lastError = status;
      }
      done(status.isOk());
    }
  }

  /** Closed loop: {@code concurrency} calls in flight for warm-up + duration. */
  private Map<String, Object> closedLoop(
      final MethodDescriptor<byte[], byte[]> m, final int concurrency) throws InterruptedException {
    final long warmupNanos = (long) (o.warmupSeconds * 1e9);
    final long durationNanos = (long) (o.durationSeconds * 1e9);
    final Samples samples = new Samples((int) Math.min(o.maxCalls, 20_000_000));
    final AtomicLong issued = new AtomicLong();
    final AtomicLong measuredCalls = new AtomicLong();
    final long t0 = System.nanoTime();
    final long measureFrom = t0 + warmupNanos;
    final long stopAt = measureFrom + durationNanos;
    final CountDownLatch finished = new CountDownLatch(concurrency);
    final long errorsBefore = errors.get();

    final class Slot extends Call {
      final ManagedChannel ch;
      long sentAt;

      Slot(final int i) {
        this.ch = channel(i);
      }

      void next() {
        final long n = issued.getAndIncrement();
        if (n >= o.maxCalls || System.nanoTime() >= stopAt) {
          finished.countDown();
          return;
        }
        sentAt = System.nanoTime();
        send(m, ch, request(m, n));
      }

      @Override
      void done(final boolean ok) {
        final long now = System.nanoTime();
        if (ok && sentAt >= measureFrom && now < stopAt) {
          samples.add(now - sentAt);
          measuredCalls.incrementAndGet();
        }
        next();
      }
    }

    final LoadMeter meter = new LoadMeter();
    final List<Slot> slots = new ArrayList<>();
    for (int i = 0; i < concurrency; i++) {
      slots.add(new Slot(i));
    }
    for (Slot s : slots) {
      s.next();
    }
    LockSupport.parkNanos(Math.max(0, measureFrom - System.nanoTime()));
    meter.start();
    final long m0 = measuredCalls.get();
    LockSupport.parkNanos(Math.max(0, stopAt - System.nanoTime()));
    final long calls = measuredCalls.get() - m0;
    final Map<String, Object> row = new LinkedHashMap<>();
    meter.stop(row, calls);
    if (!finished.await(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("closed loop did not drain in 30 s");
    }
    final long[] s = samples.sorted();
    final Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", "closed");
    out.put("rpc", name(m));
    out.put("concurrency", concurrency);
    out.put("seconds", o.durationSeconds);
    out.put("calls", s.length);
    out.put("throughput", round(s.length / o.durationSeconds, 0));
    out.put("p50us", round(Samples.percentileMicros(s, 0.50), 1));
    out.put("p99us", round(Samples.percentileMicros(s, 0.99), 1));
    out.put("p999us", round(Samples.percentileMicros(s, 0.999), 1));
    out.put("maxus", round(Samples.percentileMicros(s, 1.0), 1));
    out.put("errors", errors.get() - errorsBefore);
    out.putAll(row);
    return out;
  }

  /**
   * Open loop at {@code rate} calls/s for the open duration (after a short unrecorded warm-up):
   * latency from the intended send time.
   */
  private Map<String, Object> openLoop(final MethodDescriptor<byte[], byte[]> m, final double rate)
      throws InterruptedException {
    final long warmupNanos = (long) (Math.min(o.warmupSeconds, 3) * 1e9);
    final long durationNanos = (long) (o.openDurationSeconds * 1e9);
    final double period = 1e9 / rate;
    final long total = Math.min(o.maxCalls, (long) ((warmupNanos + durationNanos) / period));
    final long warmupCalls = (long) (warmupNanos / period);
    final Samples fromIntended = new Samples((int) Math.min(total, 20_000_000));
    final Samples fromSend = new Samples((int) Math.min(total, 20_000_000));
    final AtomicInteger outstanding = new AtomicInteger();
    final AtomicLong skipped = new AtomicLong();
    final AtomicLong maxLag = new AtomicLong();
    final long errorsBefore = errors.get();

    final class Paced extends Call {
      final long intended;
      final boolean recorded;
      long sentAt;

      Paced(final long intended, final boolean recorded) {
        this.intended = intended;
        this.recorded = recorded;
      }

      @Override
      void done(final boolean ok) {
        final long now = System.nanoTime();
        if (ok && recorded) {
          fromIntended.add(now - intended);
          fromSend.add(now - sentAt);
        }
        outstanding.decrementAndGet();
      }
    }

    final LoadMeter meter = new LoadMeter();
    final long t0 = System.nanoTime() + 1_000_000;
    boolean metering = false;
    for (long i = 0; i < total; i++) {
      final long intended = t0 + (long) (i * period);
      long now = System.nanoTime();
      while (now < intended) {
        LockSupport.parkNanos(intended - now);
        now = System.nanoTime();
      }
      if (!metering && i >= warmupCalls) {
        meter.start();
        metering = true;
      }
      maxLag.accumulateAndGet(now - intended, Math::max);
      if (outstanding.get() >= o.maxOutstanding) {
        skipped.incrementAndGet();
        continue;
      }
      outstanding.incrementAndGet();
      final Paced c = new Paced(intended, i >= warmupCalls);
      c.sentAt = now;
      c.send(m, channel((int) i), request(m, i));
    }
    final long measuredCalls = total - warmupCalls - skipped.get();
    final Map<String, Object> row = new LinkedHashMap<>();
    meter.stop(row, measuredCalls);
    final long drainBy = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (outstanding.get() > 0 && System.nanoTime() < drainBy) {
      LockSupport.parkNanos(1_000_000);
    }
    final long[] s = fromIntended.sorted();
    final long[] s2 = fromSend.sorted();
    final Map<String, Object> out = new LinkedHashMap<>();
    out.put("mode", "open");
    out.put("rpc", name(m));
    out.put("rate", round(rate, 0));
    out.put("seconds", o.openDurationSeconds);
    out.put("calls", s.length);
    out.put("throughput", round(s.length / o.openDurationSeconds, 0));
    out.put("p50us", round(Samples.percentileMicros(s, 0.50), 1));
    out.put("p99us", round(Samples.percentileMicros(s, 0.99), 1));
    out.put("p999us", round(Samples.percentileMicros(s, 0.999), 1));
    out.put("maxus", round(Samples.percentileMicros(s, 1.0), 1));
    out.put("fromSendP50us", round(Samples.percentileMicros(s2, 0.50), 1));
    out.put("fromSendP99us", round(Samples.percentileMicros(s2, 0.99), 1));
    out.put("senderMaxLagUs", round(maxLag.get() / 1000.0, 1));
    out.put("skipped", skipped.get());
    out.put("stillOutstanding", outstanding.get());
    out.put("errors", errors.get() - errorsBefore);
    out.putAll(row);
    return out;
  }

  private Map<String, Object> run() throws Exception {
    checkAnswers();
    final List<Map<String, Object>> rows = new ArrayList<>();
    // JIT warm-up of both RPCs, client and server (not recorded): C2 needs tens of seconds for
    // grpc-netty on a busy 2-core machine.
    final double savedWarmup = o.warmupSeconds;
    final double savedDuration = o.durationSeconds;
    o.warmupSeconds = 0;
    o.durationSeconds = Math.max(1, o.jitWarmupSeconds / 4);
    for (int round = 0; round < 2 && o.jitWarmupSeconds > 0; round++) {
      closedLoop(LOOKUP, 16);
      closedLoop(HEALTH, 16);
    }
    o.warmupSeconds = savedWarmup;
    o.durationSeconds = savedDuration;

    double bestLookup = 0;
    for (int c : o.concurrency) {
      for (MethodDescriptor<byte[], byte[]> m : List.of(LOOKUP, HEALTH)) {
        final Map<String, Object> r = closedLoop(m, c);
        print(r);
        rows.add(r);
        if (m == LOOKUP) {
          bestLookup = Math.max(bestLookup, ((Number) r.get("throughput")).doubleValue());
        }
      }
    }
    final double rate = o.openRate > 0 ? o.openRate : bestLookup / 2;
    for (MethodDescriptor<byte[], byte[]> m : List.of(LOOKUP, HEALTH)) {
      final Map<String, Object> r = openLoop(m, rate);
      print(r);
      rows.add(r);
    }
    final Map<String, Object> result = new LinkedHashMap<>();
    result.put("rows", rows);
    result.put("bestLookupThroughput", bestLookup);
    result.put("openRate", round(rate, 0));
    result.put("errors", errors.get());
    if (lastError != null) {
      result.put("lastError", lastError.toString());
    }
    return result;
  }

  private static void print(final Map<String, Object> r) {
    System.out.println(r);
    System.out.flush();
  }

  private void close() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
    }
    for (ManagedChannel c : channels) {
      c.awaitTermination(5, TimeUnit.SECONDS);
    }
  }

  // ------------------------------------------------------------------------------------------
  // Main

  private static GrpcServer startServer(final Options o, final ServiceFixture f)
      throws IOException {
    return GrpcServer.builder(
            GrpcServerConfig.builder()
                .bindAddress("127.0.0.1:0")
                .executorThreads(o.executorThreads)
                .eventLoopThreads(o.eventLoopThreads)
                .shutdownDrainTimeout(Duration.ofMillis(500))
                .build())
        .addService(f.service.definition(!o.protobuf))
        .build()
        .start();
  }

  private static Map<String, Object> environment(final Options o) {
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

  public static void main(final String[] args) throws Exception {
    final Options o = Options.parse(args);
    final long started = System.nanoTime();
    if (o.connect != null) {
      final int colon = o.connect.lastIndexOf(':');
      final String host = o.connect.substring(0, colon).replace("[", "").replace("]", "");
      if (!InetAddress.getByName(host).isLoopbackAddress()) {
        throw new IllegalArgumentException("--connect: only loopback addresses: " + o.connect);
      }
      final LoopbackLoad load =
          new LoopbackLoad(o, host, Integer.parseInt(o.connect.substring(colon + 1)));
      try {
        finish(o, load.run(), environment(o), started, "external (--serve)");
      } finally {
        load.close();
      }
      return;
    }
    System.out.printf(
        Locale.ROOT,
        "building the index: %d chains x %d blocks x %d holders%n",
        o.chains,
        ServiceFixture.BLOCKS,
        o.holders);
    try (ServiceFixture f = ServiceFixture.build(o.chains, o.holders, o.replicas);
        GrpcServer server = startServer(o, f)) {
      System.out.printf(
          Locale.ROOT,
          "server on 127.0.0.1:%d (%s), index %d holder-blocks%n",
          server.port(),
          server.transport(),
          f.index.totalEntries());
      if (o.serve) {
        Thread.sleep((long) (o.serveSeconds * 1000));
        return;
      }
      final LoopbackLoad load = new LoopbackLoad(o, "127.0.0.1", server.port());
      try {
        final Map<String, Object> env = environment(o);
        env.put("serverTransport", server.transport());
        finish(o, load.run(), env, started, "this JVM");
      } finally {
        load.close();
      }
    }
  }

  private static void finish(
      final Options o,
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
