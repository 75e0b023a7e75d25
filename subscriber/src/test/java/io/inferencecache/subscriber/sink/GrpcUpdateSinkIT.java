package io.inferencecache.subscriber.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.inferencecache.proto.v1alpha1.GetCacheStateResponse;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.subscriber.KvEventSubscriber;
import io.inferencecache.subscriber.Msgpack;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.fake.FakeEngine;
import io.inferencecache.subscriber.fake.SlowJoiner;
import io.inferencecache.subscriber.http.HttpProbe;
import io.inferencecache.subscriber.http.SubscriberMetrics;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * End to end on loopback: FakeEngine → KvEventSubscriber → GrpcUpdateSink → a real
 * InferenceCacheService on grpc-netty at 127.0.0.1, checked with LookupRoute by token ids (vllm
 * scheme, block size 16).
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GrpcUpdateSinkIT {
  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String TENANT = "t1";
  private static final String MODEL = "m1";
  private static final String REPLICA = "r1";

  private LoopbackServer server;
  private FakeEngine engine;
  private KvEventSubscriber subscriber;
  private GrpcUpdateSink sink;

  private void start(final int bufferUpdates) throws Exception {
    server = new LoopbackServer();
    // JeroMQ's PUB/SUB can stall on a busy machine (TCP up, nothing flowing): the fixture then
    // starts over with a fresh engine and subscriber rather than failing the test.
    for (int attempt = 1; ; attempt++) {
      startSubscriber(bufferUpdates);
      if (SlowJoiner.awaitFirstMessage(engine, subscriber, Duration.ofSeconds(5)) || attempt == 3) {
        break;
      }
      subscriber.close();
      engine.close();
    }
    assertThat(subscriber.source().messagesReceived()).as("subscriber connected").isPositive();
  }

  private void startSubscriber(final int bufferUpdates) {
    engine = FakeEngine.builder().endpoint("tcp://127.0.0.1:*").blockSize(16).numBlocks(4).bind();
    final SubscriberConfig config =
        SubscriberConfig.builder()
            .replicaId(REPLICA)
            .modelId(MODEL)
            .tenantId(TENANT)
            .engineEndpoint(engine.endpoint())
            .server(server.target())
            .serverBufferUpdates(bufferUpdates)
            .window("20ms")
            .engineMetricsUrl("")
            .httpAddress("127.0.0.1:0")
            .build();
    subscriber = new KvEventSubscriber(config);
    sink = (GrpcUpdateSink) subscriber.sink();
    subscriber.start();
  }

  @AfterEach
  void stop() {
    if (subscriber != null) {
      subscriber.close();
    }
    if (engine != null) {
      engine.close();
    }
    if (server != null) {
      server.close();
    }
  }

  /** Whether the server holds block {@code i} (0-based) of the fake engine's prefix for r1. */
  private boolean holds(final int block) {
    final byte[] hash = engine.expectations().get(block).wire();
    return server.index.accessCount(TENANT, MODEL, "vllm", "", hash, REPLICA) >= 0;
  }

  private int matched(final int[] tokens) {
    return server.matched(TENANT, MODEL, REPLICA, tokens);
  }

  private void awaitMatched(final int[] tokens, final int want) {
    await().atMost(WAIT).untilAsserted(() -> assertThat(matched(tokens)).isEqualTo(want));
  }

  /**
   * A BlockStored batch of {@code blocks} fresh blocks (no parent) of tokens from {@code first}.
   */
  private static byte[] storedBatch(final long firstEngineHash, final int first, final int blocks) {
    final long[] hashes = new long[blocks];
    for (int i = 0; i < blocks; i++) {
      hashes[i] = firstEngineHash + i;
    }
    return Msgpack.batch(
        0.0,
        Msgpack.storedTuple(hashes, null, Msgpack.tokens(first, blocks * 16), 16, null, false));
  }

  /** Publishes a batch and waits until the reporter has handed its update to the sink. */
  private void publishAndAwaitReport(final byte[] payload) {
    final long before = subscriber.reporter().updatesReported();
    engine.publishPayload(payload);
    await().atMost(WAIT).until(() -> subscriber.reporter().updatesReported() == before + 1);
  }

  @Test
  void storesRemovalsClearsAndStatsReachTheServer() throws Exception {
    start(SubscriberConfig.SERVER_BUFFER_UPDATES_DEFAULT);
    final int[] tokens = engine.tokens();

    engine.publishStored();
    awaitMatched(tokens, 64);
    final LookupRouteResponse hit = server.lookup(TENANT, MODEL, "vllm", tokens);
    assertThat(hit.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(hit.getReplicaScores(0).getReplicaId()).isEqualTo(REPLICA);
    assertThat(hit.getReplicaScores(0).getMatchedTokens()).isEqualTo(64);

    // Below the default 64-token floor a 48-token run is no PREFIX_MATCH: check the index itself.
    engine.publishBlockRemoved(FakeEngine.fakeBlockHash(3));
    await().atMost(WAIT).until(() -> !holds(3));
    assertThat(holds(2)).isTrue();
    assertThat(server.index.totalEntries()).isEqualTo(3);
    assertThat(matched(tokens)).isZero();

    sink.stats(new StatsSample(1000, 0.25f, 0.5f, 7, 9), 0L);
    final GetCacheStateResponse state = server.cacheState(TENANT, MODEL);
    assertThat(state.getReplicasList()).hasSize(1);
    assertThat(state.getReplicas(0).getReplicaId()).isEqualTo(REPLICA);
    assertThat(state.getReplicas(0).getHitRate()).isEqualTo(0.25f);
    assertThat(state.getReplicas(0).getT2QueryTokens()).isEqualTo(9);
    assertThat(sink.counters().statsSent()).isEqualTo(1);

    engine.publishAllBlocksCleared();
    await().atMost(WAIT).until(() -> server.index.totalEntries() == 0);
    assertThat(matched(tokens)).isZero();
    assertThat(server.cacheState(TENANT, MODEL).getReplicasList()).isEmpty();

    // Stores over many windows go out on one stream.
    final long streams = sink.counters().streamsOpened();
    for (int i = 0; i < 5; i++) {
      publishAndAwaitReport(storedBatch(0xF000L + 16 * i, 1000 + 100 * i, 2));
    }
    await().atMost(WAIT).until(() -> server.index.totalEntries() == 10);
    assertThat(sink.counters().streamsOpened() - streams).isEqualTo(1);
    assertThat(sink.counters().updatesSent()).isEqualTo(6);
    assertThat(sink.counters().eventsSent()).isEqualTo(2);
    assertThat(
            sink.counters().updatesDropped()
                + sink.counters().eventsDropped()
                + sink.counters().updatesUnconfirmed())
        .isZero();
    assertThat(sink.counters().resyncs()).isZero();
  }

  @Test
  void sequenceGapsAndEngineRestartsClearTheServerThenEventsRebuildIt() throws Exception {
    start(SubscriberConfig.SERVER_BUFFER_UPDATES_DEFAULT);
    final int[] tokens = engine.tokens();
    engine.publishStored();
    awaitMatched(tokens, 64);

    // A gap: the next batch (evicting nothing known) makes the subscriber resynchronise.
    engine.injectGap(5);
    engine.publishBlockRemoved(0xDEADL);
    await().atMost(WAIT).until(() -> server.index.totalEntries() == 0);
    assertThat(matched(tokens)).isZero();
    engine.publishStored();
    awaitMatched(tokens, 64);

    // An engine restart: the sequence starts over.
    engine.simulateRestart();
    engine.publishBlockRemoved(0xDEADL);
    await().atMost(WAIT).until(() -> server.index.totalEntries() == 0);
    engine.publishStored();
    awaitMatched(tokens, 64);

    assertThat(subscriber.source().gaps()).isEqualTo(1);
    assertThat(subscriber.source().restarts()).isEqualTo(1);
    assertThat(subscriber.reporter().resyncs()).isEqualTo(2);
  }

  @Test
  void aServerThatGoesAwayAndComesBackLosesNothingWithinTheBuffer() throws Exception {
    start(SubscriberConfig.SERVER_BUFFER_UPDATES_DEFAULT);
    final int[] tokens = engine.tokens();
    engine.publishStored();
    awaitMatched(tokens, 64);

    server.stop();
    await().atMost(WAIT).until(() -> !sink.connected());
    engine.publishBlockRemoved(FakeEngine.fakeBlockHash(3));
    publishAndAwaitReport(storedBatch(0xF000L, 5000, 4));
    await().atMost(WAIT).until(() -> sink.queuedUpdates() == 2);

    server.start(); // the same port
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(sink.counters().resyncs()).isEqualTo(1);
              assertThat(sink.queuedOps()).isZero();
              assertThat(server.index.totalEntries()).isEqualTo(3 + 4);
            });
    assertThat(holds(0) && holds(1) && holds(2)).isTrue();
    assertThat(holds(3)).isFalse();
    assertThat(matched(Msgpack.tokens(5000, 64))).isEqualTo(64);
    assertThat(sink.counters().updatesDropped()).isZero();
    assertThat(sink.counters().eventsDropped()).isZero();
    assertThat(sink.counters().reconnects()).isGreaterThanOrEqualTo(1);
    // The open stream broke with the first batch unconfirmed: the replica was resynced.
    assertThat(sink.counters().updatesUnconfirmed()).isEqualTo(1);
    assertThat(sink.counters().resyncs()).isEqualTo(1);
  }

  @Test
  void beyondTheBufferUpdatesAreDroppedCountedAndTheReplicaIsResynced() throws Exception {
    start(1);
    final HttpProbe http = new HttpProbe(subscriber.httpAddress());
    final int[] tokens = engine.tokens();
    engine.publishStored();
    awaitMatched(tokens, 64);
    await().atMost(WAIT).until(() -> http.get("/readyz").status() == 200);
    assertThat(http.metric("inferencecache_subscriber_grpc_entries_sent_total")).isEqualTo(4);
    assertThat(
            http.metric(
                "inferencecache_subscriber_info{replica_id=\"r1\",model_id=\"m1\","
                    + "tenant_id=\"t1\",sink=\"grpc\",}"))
        .isEqualTo(1);

    server.stop();
    await().atMost(WAIT).until(() -> !sink.connected());
    for (int i = 0; i < 3; i++) {
      publishAndAwaitReport(storedBatch(0xF000L + 16 * i, 10_000 * (i + 1), 4));
    }
    assertThat(sink.queuedUpdates()).isEqualTo(1);
    assertThat(sink.counters().updatesDropped()).isEqualTo(2);
    assertThat(sink.counters().entriesDropped()).isEqualTo(8);
    // What an operator sees meanwhile: not ready, naming the sink, and the drops counted.
    final HttpProbe.Answer unready = http.get("/readyz");
    assertThat(unready.status()).isEqualTo(503);
    assertThat(unready.body())
        .isEqualTo("sink: grpc sink to " + server.target() + " cannot deliver: not connected\n");
    assertThat(http.metric("inferencecache_subscriber_grpc_updates_dropped_total")).isEqualTo(2);
    assertThat(http.metric("inferencecache_subscriber_grpc_entries_dropped_total")).isEqualTo(8);
    assertThat(http.metric("inferencecache_subscriber_grpc_queued_updates")).isEqualTo(1);
    assertThat(http.metric(SubscriberMetrics.DROPPED)).isEqualTo(2);
    assertThat(http.metric(SubscriberMetrics.SINK_READY)).isZero();

    server.start(); // the same port
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(sink.counters().resyncs()).isGreaterThanOrEqualTo(1);
              assertThat(sink.queuedOps()).isZero();
              assertThat(server.index.totalEntries()).isEqualTo(16);
            });
    assertThat(matched(tokens)).isEqualTo(64);
    for (int i = 0; i < 3; i++) {
      assertThat(matched(Msgpack.tokens(10_000 * (i + 1), 64))).isEqualTo(64);
    }
    assertThat(subscriber.reporter().sinkResyncs()).isEqualTo(sink.counters().resyncs());
    assertThat(sink.counters().updatesDropped()).isEqualTo(2);
    await().atMost(WAIT).until(() -> http.get("/readyz").status() == 200);
    assertThat(http.metric("inferencecache_subscriber_grpc_resyncs_total"))
        .isEqualTo(sink.counters().resyncs());
    assertThat(http.metric("inferencecache_subscriber_resyncs_total{cause=\"sink\",}"))
        .isEqualTo(subscriber.reporter().sinkResyncs());
  }
}
