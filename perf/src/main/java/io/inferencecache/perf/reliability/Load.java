package io.inferencecache.perf.reliability;

import com.google.protobuf.ByteString;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.StreamObserver;
import io.inferencecache.perf.AckFuture;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Shared pieces of the reliability load tools: workload, latency recording, server metrics. */
final class Load {
  static final String TENANT = "rel";
  static final String MODEL = "rel-model";
  static final String SCHEME = "vllm";
  static final int BLOCKS = 4;

  private Load() {}

  static ByteString hash(final long k, final int b) {
    return ByteString.copyFrom(
        ByteBuffer.allocate(8).putLong(0x5200_0000_0000_0000L | (k << 4) | b).array());
  }

  static CacheStateUpdate update(final long k, final int replicas) {
    final PrefixEntry.Builder e = PrefixEntry.newBuilder();
    for (int b = 0; b < BLOCKS; b++) {
      e.addBlockHashes(hash(k, b)).addBlockTokenCounts(16);
    }
    return CacheStateUpdate.newBuilder()
        .setReplicaId("rel-" + (k % replicas))
        .setTenantId(TENANT)
        .setModelId(MODEL)
        .setHashScheme(SCHEME)
        .addPrefixes(e)
        .build();
  }

  static LookupRouteRequest lookup(final long k) {
    final LookupRouteRequest.Builder r =
        LookupRouteRequest.newBuilder().setTenantId(TENANT).setModelId(MODEL).setHashScheme(SCHEME);
    for (int b = 0; b < BLOCKS; b++) {
      r.addBlockHashes(hash(k, b)).addBlockTokenCounts(16);
    }
    return r.build();
  }

  static ManagedChannel channel(final String target) {
    return NettyChannelBuilder.forTarget(target)
        .usePlaintext()
        .maxInboundMessageSize(16 << 20)
        .build();
  }

  /**
   * Streams chains [from, to) over ReportCacheState calls of {@code batch}; returns acked count.
   */
  static long ingest(
      final ManagedChannel ch, final long from, final long to, final int batch, final int replicas)
      throws Exception {
    final InferenceCacheGrpc.InferenceCacheStub stub = InferenceCacheGrpc.newStub(ch);
    long acked = 0;
    for (long k = from; k < to; k += batch) {
      final int n = (int) Math.min(batch, to - k);
      final AckFuture done = new AckFuture();
      final StreamObserver<CacheStateUpdate> in =
          stub.withDeadlineAfter(60, TimeUnit.SECONDS).reportCacheState(done);
      for (int i = 0; i < n; i++) {
        in.onNext(update(k + i, replicas));
      }
      in.onCompleted();
      final Ack a = done.get(90, TimeUnit.SECONDS);
      if (a != null && a.getAccepted()) {
        acked += n;
      }
    }
    return acked;
  }

  /** Latencies in ns, recorded from many threads into a fixed array (overflow is counted). */
  static final class Latencies {
    private final long[] ns;
    private final AtomicInteger n = new AtomicInteger();
    final AtomicLong overflow = new AtomicLong();

    Latencies(final int capacity) {
      ns = new long[capacity];
    }

    void add(final long v) {
      final int i = n.getAndIncrement();
      if (i < ns.length) {
        ns[i] = v;
      } else {
        overflow.incrementAndGet();
      }
    }

    int count() {
      return Math.min(n.get(), ns.length);
    }

    /** Percentile in ms (0..100). */
    double pct(final double p) {
      final int c = count();
      if (c == 0) {
        return Double.NaN;
      }
      final long[] s = Arrays.copyOf(ns, c);
      Arrays.sort(s);
      final int idx = (int) Math.min(c - 1, Math.ceil(p / 100.0 * c) - 1);
      return s[Math.max(0, idx)] / 1e6;
    }
  }

  /** The server's JVM figures from its /metrics (simpleclient_hotspot names). */
  record JvmSample(double heapUsedBytes, double gcCount, double gcSeconds) {
    private static final Pattern HEAP =
        Pattern.compile("^jvm_memory_bytes_used\\{area=\"heap\",?\\} (\\S+)$", Pattern.MULTILINE);
    private static final Pattern GC_COUNT =
        Pattern.compile("^jvm_gc_collection_seconds_count\\{[^}]*\\} (\\S+)$", Pattern.MULTILINE);
    private static final Pattern GC_SUM =
        Pattern.compile("^jvm_gc_collection_seconds_sum\\{[^}]*\\} (\\S+)$", Pattern.MULTILINE);

    static JvmSample of(final String text) {
      return new JvmSample(first(HEAP, text), sum(GC_COUNT, text), sum(GC_SUM, text));
    }

    private static double first(final Pattern p, final String text) {
      final Matcher m = p.matcher(text);
      return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    private static double sum(final Pattern p, final String text) {
      final Matcher m = p.matcher(text);
      double s = 0;
      while (m.find()) {
        s += Double.parseDouble(m.group(1));
      }
      return s;
    }
  }

  static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  static String get(final String url) throws IOException, InterruptedException {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  static int status(final String url) throws IOException, InterruptedException {
    return HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.discarding())
        .statusCode();
  }

  static JvmSample jvm(final String metricsUrl) throws IOException, InterruptedException {
    return JvmSample.of(get(metricsUrl));
  }

  /** The server's own LookupRoute accounting from its /metrics. */
  record CallSample(double answered, double shed) {
    private static final Pattern ANSWERED =
        Pattern.compile(
            "^inferencecache_lookup_route_calls_total\\{[^}]*\\} (\\S+)$", Pattern.MULTILINE);
    private static final Pattern SHED =
        Pattern.compile("^inferencecache_grpc_calls_shed_total (\\S+)$", Pattern.MULTILINE);

    /** LookupRoutes the server answered (any reason code), and gRPC calls it shed. */
    static CallSample of(final String text) {
      return new CallSample(JvmSample.sum(ANSWERED, text), JvmSample.sum(SHED, text));
    }
  }

  static CallSample calls(final String metricsUrl) throws IOException, InterruptedException {
    return CallSample.of(get(metricsUrl));
  }

  /** Samples the server's heap every second while running; keeps the max. */
  static final class HeapWatch implements AutoCloseable {
    private final Thread t;
    private volatile boolean running = true;
    volatile double maxHeap;

    HeapWatch(final String metricsUrl) {
      t =
          new Thread(
              () -> {
                while (running) {
                  try {
                    final double h = jvm(metricsUrl).heapUsedBytes();
                    if (h > maxHeap) {
                      maxHeap = h;
                    }
                    Thread.sleep(1_000); // a scrape costs a starved server real CPU
                  } catch (InterruptedException e) {
                    return;
                  } catch (IOException | RuntimeException e) {
                    // keep sampling
                  }
                }
              },
              "heap-watch");
      t.setDaemon(true);
      t.start();
    }

    @Override
    public void close() {
      running = false;
      t.interrupt();
      try {
        t.join(2_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
