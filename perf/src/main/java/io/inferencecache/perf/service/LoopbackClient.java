package io.inferencecache.perf.service;

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
import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * The load generator of {@link LoopbackLoad}: a grpc-netty client on loopback, plaintext, sending
 * pre-serialized requests through byte-array marshallers, that checks the server's answers and then
 * runs the steps (JIT warm-up, the closed loops, the open loops), each returning one result row.
 */
final class LoopbackClient {
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

  static final MethodDescriptor.Marshaller<byte[]> BYTES =
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

  // ------------------------------------------------------------------------------------------
  // Client

  private final LoopbackLoad.Options o;
  private final List<ManagedChannel> channels = new ArrayList<>();
  private final byte[][] lookupRequests;
  private final byte[] healthRequest = HealthCheckRequest.getDefaultInstance().toByteArray();
  private final AtomicLong errors = new AtomicLong();
  private volatile Status lastError;

  LoopbackClient(final LoopbackLoad.Options o, final String host, final int port) {
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
    putCalls(out, s, o.durationSeconds);
    out.put("errors", errors.get() - errorsBefore);
    out.putAll(row);
    return out;
  }

  /** Puts a step's {@code calls}, {@code throughput} and latency percentiles (µs) into its row. */
  private static void putCalls(
      final Map<String, Object> out, final long[] sorted, final double seconds) {
    out.put("calls", sorted.length);
    out.put("throughput", LoopbackReport.round(sorted.length / seconds, 0));
    out.put("p50us", LoopbackReport.round(Samples.percentileMicros(sorted, 0.50), 1));
    out.put("p99us", LoopbackReport.round(Samples.percentileMicros(sorted, 0.99), 1));
    out.put("p999us", LoopbackReport.round(Samples.percentileMicros(sorted, 0.999), 1));
    out.put("maxus", LoopbackReport.round(Samples.percentileMicros(sorted, 1.0), 1));
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
    out.put("rate", LoopbackReport.round(rate, 0));
    out.put("seconds", o.openDurationSeconds);
    putCalls(out, s, o.openDurationSeconds);
    out.put("fromSendP50us", LoopbackReport.round(Samples.percentileMicros(s2, 0.50), 1));
    out.put("fromSendP99us", LoopbackReport.round(Samples.percentileMicros(s2, 0.99), 1));
    out.put("senderMaxLagUs", LoopbackReport.round(maxLag.get() / 1000.0, 1));
    out.put("skipped", skipped.get());
    out.put("stillOutstanding", outstanding.get());
    out.put("errors", errors.get() - errorsBefore);
    out.putAll(row);
    return out;
  }

  Map<String, Object> run() throws Exception {
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
    result.put("openRate", LoopbackReport.round(rate, 0));
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

  void close() throws InterruptedException {
    for (ManagedChannel c : channels) {
      c.shutdownNow();
    }
    for (ManagedChannel c : channels) {
      c.awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
