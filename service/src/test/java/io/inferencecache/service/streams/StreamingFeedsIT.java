package io.inferencecache.service.streams;

import static io.inferencecache.service.streams.FeedHarness.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.Metric;
import io.inferencecache.proto.v1alpha1.StreamEventsRequest;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** StreamCacheEvents and StreamMetrics over the real Netty listener on 127.0.0.1. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class StreamingFeedsIT {
  private static final Duration WAIT = Duration.ofSeconds(20);

  private FeedHarness h;
  private ManagedChannel smallWindow;

  @AfterEach
  void stop() {
    if (smallWindow != null) {
      smallWindow.shutdownNow();
    }
    if (h != null) {
      h.close();
    }
  }

  @Test
  void eventsAndMetricsStreamOverNetty() throws Exception {
    h = new FeedHarness(IndexChangeFeed.builder().metricsInterval(Duration.ofMillis(100)), true);
    final Recorder<CacheEvent> m1 = Recorder.auto();
    h.async.streamCacheEvents(StreamEventsRequest.newBuilder().setModelId("m1").build(), m1);
    final Recorder<Metric> entries = Recorder.auto();
    h.async.streamMetrics(
        StreamMetricsRequest.newBuilder().addNames(IndexMetricSource.INDEX_ENTRIES).build(),
        entries);
    await().atMost(WAIT).until(() -> h.feed.eventSubscribers() == 1);

    h.report(update("t", "m1", "r1", "a", "b"), update("t", "m2", "r1", "c"));
    h.clock.now.addAndGet(TimeUnit.MINUTES.toNanos(31));
    h.index.sweepExpired();

    await().atMost(WAIT).until(() -> m1.received.size() >= 4);
    final List<String> seen = new ArrayList<>();
    for (CacheEvent e : m1.received) {
      seen.add(e.getType() + " " + e.getReplicaId() + " " + e.getPrefixHash().toStringUtf8());
    }
    assertThat(seen.subList(0, 2)).containsExactly("PREFIX_ADDED r1 a", "PREFIX_ADDED r1 b");
    assertThat(seen.subList(2, 4))
        .containsExactlyInAnyOrder("PREFIX_EVICTED r1 a", "PREFIX_EVICTED r1 b");

    await()
        .atMost(WAIT)
        .until(
            () ->
                entries.received.stream()
                    .anyMatch(
                        x -> x.getLabelsOrDefault("model", "").equals("m1") && x.getValue() == 0));
    assertThat(entries.received).allMatch(x -> x.getName().equals(IndexMetricSource.INDEX_ENTRIES));

    m1.cancel();
    entries.cancel();
    await().atMost(WAIT).until(() -> h.feed.eventSubscribers() == 0);
    await().atMost(WAIT).until(() -> h.feed.metricSubscribers() == 0);
  }

  @Test
  void aSubscriberThatStopsReadingIsCutOffWithResourceExhausted() throws Exception {
    h = new FeedHarness(IndexChangeFeed.builder().eventBuffer(256), true);
    smallWindow =
        NettyChannelBuilder.forAddress("127.0.0.1", h.netty.port())
            .usePlaintext()
            .flowControlWindow(64 * 1024)
            .build();
    final Recorder<CacheEvent> stalled = Recorder.stalled();
    InferenceCacheGrpc.newStub(smallWindow)
        .streamCacheEvents(StreamEventsRequest.getDefaultInstance(), stalled);
    await().atMost(WAIT).until(() -> h.feed.eventSubscribers() == 1);

    final int updates = 40;
    final int perUpdate = 1000;
    for (int u = 0; u < updates; u++) {
      final List<IngestPrefix> prefixes = new ArrayList<>(perUpdate);
      for (int i = 0; i < perUpdate; i++) {
        prefixes.add(
            IngestPrefix.legacy(("h" + u + "-" + i).getBytes(StandardCharsets.UTF_8), 16, 0));
      }
      h.index.ingest(new IngestUpdate("r1", "m", "t", "vllm", 0, "", prefixes, null));
    }
    assertThat(h.index.totalEntries()).isEqualTo((long) updates * perUpdate);
    await().atMost(WAIT).until(() -> h.feed.subscribersCutOff() == 1);
    assertThat(h.feed.eventSubscribers()).isZero();

    stalled.request(Integer.MAX_VALUE);
    final Status status = stalled.closed.get(20, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("256 events");
    assertThat(stalled.received.size()).isLessThan(updates * perUpdate);
  }
}
