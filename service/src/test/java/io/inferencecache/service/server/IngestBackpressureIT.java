package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.Metric;
import io.inferencecache.proto.v1alpha1.StreamEventsRequest;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;
import io.inferencecache.service.streams.StreamingFeeds;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ReportCacheState under a producer that outpaces ingest, over grpc-netty on 127.0.0.1.
 *
 * <p><b>Design.</b> The server ingests each update on its handler thread and only then asks gRPC
 * for the next message, so an ingest slower than the producer must push back through HTTP/2 flow
 * control: the server stops returning window credit, the client's transport stops sending, and the
 * client's {@code isReady()} turns false. The test makes ingest slow on purpose (a {@link
 * StreamingFeeds} hook, which the service calls after every ingested update, spins ~1 ms) and runs
 * a producer that sends as fast as {@code isReady()}/{@code onReadyHandler} allow, for a few
 * seconds or at most 200,000 updates. At every send it records the gap "sent − ingested", i.e. how
 * many updates are buffered somewhere between the client stub and the ingest (client buffer, HTTP/2
 * windows, server deframer, any server-side queue).
 *
 * <p>With working backpressure that gap is bounded by the flow-control windows (client onReady
 * threshold 32 KiB + the server's 1 MiB stream window; BDP auto-tuning is off on the server)
 * divided by the message size (~1 KiB): about a thousand updates (measured: ~1.07 MB), asserted
 * below 4 MiB. A server that accepts messages ahead of its ingest buffers whatever the producer
 * manages to send: a throwaway variant of this test whose server interceptor called {@code
 * request(1_000_000)} at call start buffered ~51 MB (50,255 updates) in the same 4 s and failed
 * this assertion. The final Ack and "ingested == sent" prove nothing was lost. Counting beats heap
 * sampling (GC-dependent, noisy in a shared JVM).
 */
@Timeout(120)
class IngestBackpressureIT {
  static final int LIMIT = 200_000;
  static final long RUN_NANOS = TimeUnit.SECONDS.toNanos(4);
  static final long MAX_BUFFERED_BYTES = 4L << 20;

  @Test
  void serverBuffersNoMoreThanTheFlowControlWindowsWhenIngestIsSlow() throws Exception {
    final AtomicLong ingested = new AtomicLong();
    final StreamingFeeds slowIngest =
        new StreamingFeeds() {
          @Override
          public void onIngested(final CacheStateUpdate update) {
            ingested.incrementAndGet();
            // Busy-wait, not park: a parked thread on a loaded machine sleeps for a scheduler
            // quantum; a spin makes ingest steadily slow (~1 ms per update) whatever the load.
            final long until = System.nanoTime() + 1_000_000;
            while (System.nanoTime() < until) {
              Thread.onSpinWait();
            }
          }

          @Override
          public void onEvent(final CacheEvent event) {}

          @Override
          public void subscribeEvents(
              final StreamEventsRequest request, final StreamObserver<CacheEvent> out) {
            out.onCompleted();
          }

          @Override
          public void subscribeMetrics(
              final StreamMetricsRequest request, final StreamObserver<Metric> out) {
            out.onCompleted();
          }
        };
    final List<ByteString> hashes = new ArrayList<>();
    for (int i = 0; i < 28; i++) {
      hashes.add(ByteString.copyFrom(ByteBuffer.allocate(32).putInt(i).array()));
    }
    // Every update re-reports the same blocks: the index does not grow, only ingest work is done.
    final CacheStateUpdate u = Fixtures.chainUpdate("r-a", hashes, 16);
    final int size = u.getSerializedSize();
    assertThat(size).isBetween(900, 1200);

    try (ServiceHarness h =
        new ServiceHarness(
            new ServiceHarness.Options()
                .transport(ServiceHarness.Transport.NETTY_ZERO_COPY)
                .feeds(slowIngest))) {
      final AtomicLong sent = new AtomicLong();
      final AtomicLong maxGap = new AtomicLong();
      final AtomicLong notReady = new AtomicLong();
      final AtomicBoolean done = new AtomicBoolean();
      final CompletableFuture<Ack> ack = new CompletableFuture<>();
      final long t0 = System.nanoTime();
      h.asyncStub.reportCacheState(
          new ClientResponseObserver<CacheStateUpdate, Ack>() {
            @Override
            public void beforeStart(final ClientCallStreamObserver<CacheStateUpdate> requests) {
              requests.setOnReadyHandler(
                  () -> {
                    while (!done.get()) {
                      if (sent.get() >= LIMIT || System.nanoTime() - t0 > RUN_NANOS) {
                        done.set(true);
                        requests.onCompleted();
                        return;
                      }
                      if (!requests.isReady()) {
                        notReady.incrementAndGet();
                        return; // called again when the transport can take more
                      }
                      requests.onNext(u);
                      final long s = sent.incrementAndGet();
                      maxGap.accumulateAndGet(s - ingested.get(), Math::max);
                    }
                  });
            }

            @Override
            public void onNext(final Ack value) {
              ack.complete(value);
            }

            @Override
            public void onError(final Throwable t) {
              ack.completeExceptionally(t);
            }

            @Override
            public void onCompleted() {}
          });
      assertThat(ack.get(90, TimeUnit.SECONDS).getAccepted()).isTrue();
      System.out.printf(
          "backpressure: sent=%d ingested=%d maxGap=%d updates (%d bytes) notReady=%d%n",
          sent.get(), ingested.get(), maxGap.get(), maxGap.get() * size, notReady.get());
      assertThat(ingested.get()).as("every sent update was ingested").isEqualTo(sent.get());
      assertThat(sent.get()).as("the producer was throttled, not capped").isLessThan(LIMIT);
      assertThat(notReady.get()).as("isReady() pushed back").isPositive();
      assertThat(maxGap.get() * size)
          .as("bytes buffered between producer and ingest (max gap %d updates)", maxGap.get())
          .isLessThan(MAX_BUFFERED_BYTES);
    }
  }
}
