package io.inferencecache.service.streams;

import static io.inferencecache.service.streams.FeedHarness.hash;
import static io.inferencecache.service.streams.FeedHarness.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.Metric;
import io.inferencecache.proto.v1alpha1.StreamEventsRequest;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** StreamCacheEvents and StreamMetrics over an in-process server. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class IndexChangeFeedTest {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private FeedHarness h;

  private FeedHarness start(final IndexChangeFeed.Builder options) throws Exception {
    h = new FeedHarness(options, false);
    return h;
  }

  @AfterEach
  void stop() {
    if (h != null) {
      h.close();
    }
  }

  private Recorder<CacheEvent> subscribe(final StreamEventsRequest request) {
    final Recorder<CacheEvent> r = Recorder.auto();
    final int before = h.feed.eventSubscribers();
    h.async.streamCacheEvents(request, r);
    await().atMost(WAIT).until(() -> h.feed.eventSubscribers() == before + 1);
    return r;
  }

  private static String describe(final CacheEvent e) {
    return e.getType()
        + " "
        + e.getTenantId()
        + "/"
        + e.getModelId()
        + "/"
        + e.getReplicaId()
        + " "
        + e.getPrefixHash().toStringUtf8()
        + (e.getAdapterId().isEmpty() ? "" : " @" + e.getAdapterId());
  }

  private static List<String> describe(final List<CacheEvent> events) {
    return events.stream().map(IndexChangeFeedTest::describe).collect(Collectors.toList());
  }

  private static CacheEvent event(
      final CacheEvent.Type type, final String tenant, final String model, final String replica) {
    return CacheEvent.newBuilder()
        .setType(type)
        .setTenantId(tenant)
        .setModelId(model)
        .setReplicaId(replica)
        .build();
  }

  @Test
  void streamsEveryChangeFilteredByModelTenantAndTypes() throws Exception {
    start(IndexChangeFeed.builder());
    final Recorder<CacheEvent> all = subscribe(StreamEventsRequest.getDefaultInstance());
    final Recorder<CacheEvent> m1 =
        subscribe(StreamEventsRequest.newBuilder().setModelId("m1").build());
    final Recorder<CacheEvent> t2 =
        subscribe(StreamEventsRequest.newBuilder().setTenantId("t2").build());
    final Recorder<CacheEvent> removals =
        subscribe(
            StreamEventsRequest.newBuilder()
                .addTypes(CacheEvent.Type.PREFIX_EVICTED)
                .addTypes(CacheEvent.Type.ALL_CLEARED)
                .build());
    final Recorder<CacheEvent> t1m2 =
        subscribe(StreamEventsRequest.newBuilder().setTenantId("t1").setModelId("m2").build());

    h.report(update("t1", "m1", "r1", "a", "b"), update("t2", "m2", "r2", "c"));
    h.report(
        update("t1", "m1", "r1", "a").toBuilder()
            .setStats(io.inferencecache.proto.v1alpha1.ReplicaStats.newBuilder().setHitRate(0.5f))
            .build());
    h.blocking.publishEvent(
        event(CacheEvent.Type.PREFIX_EVICTED, "t1", "m1", "r1").toBuilder()
            .setPrefixHash(hash("b"))
            .build());
    h.blocking.publishEvent(event(CacheEvent.Type.REPLICA_UPDATED, "t1", "m1", "r1"));
    h.blocking.publishEvent(event(CacheEvent.Type.ALL_CLEARED, "t2", "m2", "r2"));
    // The probe tenant is ingested by the server itself, never streamed.
    h.index.ingest(
        new IngestUpdate(
            "__probe-x",
            "m1",
            CacheIndex.RESERVED_TENANT,
            "vllm",
            0,
            "",
            List.of(IngestPrefix.legacy(new byte[] {1}, 16, 0)),
            null));
    // A change the gRPC layer never sees: the TTL sweep.
    h.report(update("t1", "m2", "r3", "z"));
    h.clock.now.addAndGet(TimeUnit.MINUTES.toNanos(31));
    h.index.sweepExpired();

    final List<String> everything =
        List.of(
            "PREFIX_ADDED t1/m1/r1 a",
            "PREFIX_ADDED t1/m1/r1 b",
            "PREFIX_ADDED t2/m2/r2 c",
            "PREFIX_ADDED t1/m1/r1 a",
            "REPLICA_UPDATED t1/m1/r1 ",
            "PREFIX_EVICTED t1/m1/r1 b",
            "REPLICA_UPDATED t1/m1/r1 ",
            "ALL_CLEARED t2/m2/r2 ",
            "PREFIX_ADDED t1/m2/r3 z",
            // the sweep: everything is 31 minutes old by then
            "PREFIX_EVICTED t1/m1/r1 a",
            "PREFIX_EVICTED t1/m2/r3 z");
    await().atMost(WAIT).until(() -> all.received.size() >= everything.size());
    final List<String> seen = describe(all.received);
    // The sweep visits entries in the map's order; everything else is in applied order.
    assertThat(seen.subList(0, 9)).containsExactlyElementsOf(everything.subList(0, 9));
    assertThat(seen).containsExactlyInAnyOrderElementsOf(everything);
    assertThat(seen).noneMatch(s -> s.contains(CacheIndex.RESERVED_TENANT));

    await().atMost(WAIT).until(() -> m1.received.size() >= 7);
    assertThat(describe(m1.received))
        .containsExactly(
            "PREFIX_ADDED t1/m1/r1 a",
            "PREFIX_ADDED t1/m1/r1 b",
            "PREFIX_ADDED t1/m1/r1 a",
            "REPLICA_UPDATED t1/m1/r1 ",
            "PREFIX_EVICTED t1/m1/r1 b",
            "REPLICA_UPDATED t1/m1/r1 ",
            "PREFIX_EVICTED t1/m1/r1 a");
    await().atMost(WAIT).until(() -> t2.received.size() >= 2);
    assertThat(describe(t2.received))
        .containsExactly("PREFIX_ADDED t2/m2/r2 c", "ALL_CLEARED t2/m2/r2 ");
    await().atMost(WAIT).until(() -> removals.received.size() >= 4);
    assertThat(describe(removals.received).subList(0, 2))
        .containsExactly("PREFIX_EVICTED t1/m1/r1 b", "ALL_CLEARED t2/m2/r2 ");
    assertThat(describe(removals.received).subList(2, 4))
        .containsExactlyInAnyOrder("PREFIX_EVICTED t1/m1/r1 a", "PREFIX_EVICTED t1/m2/r3 z");
    await().atMost(WAIT).until(() -> t1m2.received.size() >= 2);
    assertThat(describe(t1m2.received))
        .containsExactly("PREFIX_ADDED t1/m2/r3 z", "PREFIX_EVICTED t1/m2/r3 z");

    final CacheEvent added = all.received.get(0);
    assertThat(added.getTimestampUs())
        .isEqualTo(TimeUnit.SECONDS.toMicros(1_700_000_000L)); // the index clock's now
    assertThat(h.feed.subscribersCutOff()).isZero();
  }

  @Test
  void eventsOfEachReplicaArriveInTheOrderTheIndexAppliedThem() throws Exception {
    start(IndexChangeFeed.builder());
    final Recorder<CacheEvent> all = subscribe(StreamEventsRequest.getDefaultInstance());
    final int perReplica = 500;
    final List<Thread> writers = new ArrayList<>();
    final CountDownLatch go = new CountDownLatch(1);
    for (String replica : List.of("r1", "r2", "r3")) {
      final Thread t =
          new Thread(
              () -> {
                try {
                  go.await();
                } catch (InterruptedException e) {
                  return;
                }
                for (int i = 0; i < perReplica; i++) {
                  h.index.ingest(
                      new IngestUpdate(
                          replica,
                          "m",
                          "t",
                          "vllm",
                          0,
                          "",
                          List.of(
                              IngestPrefix.legacy(
                                  (replica + "-" + i).getBytes(StandardCharsets.UTF_8), 16, 0)),
                          null));
                }
              });
      t.start();
      writers.add(t);
    }
    go.countDown();
    for (Thread t : writers) {
      t.join();
    }
    await().atMost(WAIT).until(() -> all.received.size() == 3 * perReplica);
    final Map<String, Integer> last = new HashMap<>();
    for (CacheEvent e : all.received) {
      final String[] parts = e.getPrefixHash().toStringUtf8().split("-");
      assertThat(parts[0]).isEqualTo(e.getReplicaId());
      final int seq = Integer.parseInt(parts[1]);
      assertThat(seq).isEqualTo(last.getOrDefault(e.getReplicaId(), -1) + 1);
      last.put(e.getReplicaId(), seq);
    }
  }

  @Test
  void aSubscriberThatDoesNotReadIsCutOffAndIngestKeepsItsPace() throws Exception {
    start(IndexChangeFeed.builder().eventBuffer(64));
    final int updates = 2000;
    // Baseline pace with no subscriber.
    final long baseline = timeIngest("warm", updates);

    final Recorder<CacheEvent> stalled = Recorder.stalled();
    h.async.streamCacheEvents(StreamEventsRequest.getDefaultInstance(), stalled);
    await().atMost(WAIT).until(() -> h.feed.eventSubscribers() == 1);

    final long withStalled = timeIngest("busy", updates);

    await().atMost(WAIT).until(() -> h.feed.subscribersCutOff() == 1);
    assertThat(h.feed.eventSubscribers()).isZero();
    assertThat(h.feed.wantsChanges()).isFalse();
    // Ingest never waited for the stalled subscriber (generous bound for a shared 2-core box).
    assertThat(withStalled)
        .as(
            "ingest of %d updates: %d ms alone, %d ms with a stalled subscriber",
            updates,
            TimeUnit.NANOSECONDS.toMillis(baseline),
            TimeUnit.NANOSECONDS.toMillis(withStalled))
        .isLessThan(baseline * 5 + TimeUnit.SECONDS.toNanos(2));

    stalled.request(Integer.MAX_VALUE);
    final Status status = stalled.closed.get(10, TimeUnit.SECONDS);
    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(status.getDescription()).contains("fell behind").contains("64 events");
    assertThat(stalled.received.size()).isLessThanOrEqualTo(64);
  }

  private long timeIngest(final String prefix, final int n) {
    final long start = System.nanoTime();
    for (int i = 0; i < n; i++) {
      h.index.ingest(
          new IngestUpdate(
              "r1",
              "m",
              "t",
              "vllm",
              0,
              "",
              List.of(IngestPrefix.legacy((prefix + i).getBytes(StandardCharsets.UTF_8), 16, 0)),
              null));
    }
    return System.nanoTime() - start;
  }

  @Test
  void cancellingUnsubscribesAndStopsMaterialisingChanges() throws Exception {
    start(IndexChangeFeed.builder());
    assertThat(h.feed.wantsChanges()).isFalse();
    final Recorder<CacheEvent> r = subscribe(StreamEventsRequest.getDefaultInstance());
    assertThat(h.feed.wantsChanges()).isTrue();
    h.report(update("t", "m", "r1", "a"));
    await().atMost(WAIT).until(() -> r.received.size() == 1);
    r.cancel();
    await().atMost(WAIT).until(() -> h.feed.eventSubscribers() == 0);
    assertThat(h.feed.wantsChanges()).isFalse();
    assertThat(r.closed.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.CANCELLED);
    h.report(update("t", "m", "r1", "b"));
    assertThat(r.received).hasSize(1);

    final Recorder<Metric> m = Recorder.auto();
    h.async.streamMetrics(StreamMetricsRequest.getDefaultInstance(), m);
    await().atMost(WAIT).until(() -> h.feed.metricSubscribers() == 1);
    m.cancel();
    await().atMost(WAIT).until(() -> h.feed.metricSubscribers() == 0);
  }

  @Test
  void streamMetricsSendsTheSelectedSeriesAtTheConfiguredCadence() throws Exception {
    final long interval = 200;
    start(IndexChangeFeed.builder().metricsInterval(Duration.ofMillis(interval)));
    h.report(update("t", "m1", "r1", "a", "b"), update("t", "m2", "r1", "c"));

    final Recorder<Metric> entries = Recorder.auto();
    h.async.streamMetrics(
        StreamMetricsRequest.newBuilder().addNames(IndexMetricSource.INDEX_ENTRIES).build(),
        entries);
    final Recorder<Metric> everything = Recorder.auto();
    h.async.streamMetrics(StreamMetricsRequest.getDefaultInstance(), everything);

    // Two series per tick (one per model): wait for six ticks.
    await().atMost(WAIT).until(() -> entries.received.size() >= 12);
    final List<Metric> got = new ArrayList<>(entries.received);
    assertThat(got).allMatch(x -> x.getName().equals(IndexMetricSource.INDEX_ENTRIES));
    assertThat(got).allMatch(x -> x.getType().equals("gauge"));
    final Map<String, Double> byModel = new HashMap<>();
    for (Metric x : got.subList(0, 2)) {
      byModel.put(x.getLabelsOrThrow("model"), x.getValue());
    }
    assertThat(byModel).containsEntry("m1", 2.0).containsEntry("m2", 1.0);

    // Ticks: one timestamp per tick, spaced by the interval (scheduled at a fixed rate).
    final List<Long> tickTimes = new ArrayList<>();
    long lastTs = Long.MIN_VALUE;
    for (int i = 0; i < got.size(); i++) {
      if (got.get(i).getTimestampUs() != lastTs) {
        lastTs = got.get(i).getTimestampUs();
        tickTimes.add(entries.receivedAtNanos.get(i));
      }
    }
    assertThat(tickTimes.size()).isGreaterThanOrEqualTo(6);
    final long span = tickTimes.get(5) - tickTimes.get(0);
    assertThat(TimeUnit.NANOSECONDS.toMillis(span))
        .as("five intervals of %d ms", interval)
        .isBetween(5 * interval * 8 / 10, 5 * interval * 3);

    await().atMost(WAIT).until(() -> everything.received.size() >= 8);
    assertThat(everything.received.stream().map(Metric::getName).distinct())
        .contains(
            IndexMetricSource.INDEX_ENTRIES,
            IndexMetricSource.STORAGE_ENTRIES,
            IndexMetricSource.OFF_HEAP_BYTES,
            IndexMetricSource.DIRECTORY_HEAP_BYTES);
  }

  @Test
  void closingTheFeedEndsEveryStreamWithUnavailable() throws Exception {
    start(IndexChangeFeed.builder());
    final Recorder<CacheEvent> events = subscribe(StreamEventsRequest.getDefaultInstance());
    final Recorder<Metric> metrics = Recorder.auto();
    h.async.streamMetrics(StreamMetricsRequest.getDefaultInstance(), metrics);
    await().atMost(WAIT).until(() -> h.feed.metricSubscribers() == 1);
    h.feed.close();
    assertThat(events.closed.get(10, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(metrics.closed.get(10, TimeUnit.SECONDS).getCode())
        .isEqualTo(Status.Code.UNAVAILABLE);
    final Recorder<CacheEvent> late = Recorder.auto();
    h.async.streamCacheEvents(StreamEventsRequest.getDefaultInstance(), late);
    assertThat(late.closed.get(10, TimeUnit.SECONDS).getCode()).isEqualTo(Status.Code.UNAVAILABLE);
  }

  @Test
  void builderRejectsBadSettings() {
    assertThatThrownBy(() -> IndexChangeFeed.builder().eventBuffer(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("feed.eventBuffer");
    assertThatThrownBy(() -> IndexChangeFeed.builder().metricsInterval(Duration.ZERO).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("feed.metricsInterval");
  }
}
