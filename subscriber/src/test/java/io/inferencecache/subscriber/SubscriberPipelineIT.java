package io.inferencecache.subscriber;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.fake.FakeEngine;
import io.inferencecache.subscriber.index.PrefixRecord;
import io.inferencecache.subscriber.report.RecordingSink;
import io.inferencecache.subscriber.report.Reporter;
import io.inferencecache.subscriber.sink.SubscriberUpdate;
import io.inferencecache.subscriber.source.ReceivedBatch;
import io.inferencecache.subscriber.source.ZmqEventSource;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Real ZMQ sockets on loopback: FakeEngine → ZmqEventSource → decoder → index → Reporter →
 * recording sink.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SubscriberPipelineIT {
  private static final Duration WAIT = Duration.ofSeconds(10);

  private final RecordingSink sink = new RecordingSink();
  private final BlockingQueue<ReceivedBatch> queue =
      new ArrayBlockingQueue<>(SubscriberConfig.QUEUE_CAPACITY);
  private FakeEngine engine;
  private ZmqEventSource source;
  private Reporter reporter;

  private void startPipeline(
      final FakeEngine.Builder engineOptions, final String topic, final boolean l2) {
    engine = engineOptions.endpoint("tcp://127.0.0.1:*").bind();
    final SubscriberConfig config =
        SubscriberConfig.builder()
            .replicaId("replica-it")
            .modelId("model-it")
            .engineEndpoint(engine.endpoint())
            .topic(topic)
            .window(Duration.ofMillis(20))
            .ignoreBlockRemoved(l2)
            .engineMetricsUrl("")
            .build();
    reporter = new Reporter(config, sink);
    reporter.start(queue);
    // A connect whose ZMTP handshake stalls is redialled by the source itself after
    // ZmqEventSource.HANDSHAKE_TIMEOUT, well inside WAIT.
    source =
        new ZmqEventSource(config.engineEndpoint(), config.topic(), queue, Duration.ofMillis(100));
    source.start();
    final boolean connected = engine.awaitSubscriber(WAIT);
    assertThat(connected).as("subscriber connected").isTrue();
  }

  @AfterEach
  void stop() {
    if (source != null) {
      source.close();
    }
    if (reporter != null) {
      reporter.close();
    }
    if (engine != null) {
      engine.close();
    }
  }

  private void assertReported(final List<PrefixRecord> prefixes) {
    final List<FakeEngine.Expectation> expected = engine.expectations();
    assertThat(prefixes).hasSize(expected.size());
    for (int i = 0; i < expected.size(); i++) {
      assertThat(prefixes.get(i).prefixHash()).isEqualTo(expected.get(i).wire());
      assertThat(prefixes.get(i).tokenCount()).isEqualTo(expected.get(i).tokenCount());
      assertThat(prefixes.get(i).tier()).isEqualTo(PrefixRecord.TIER_T1);
    }
  }

  @Test
  void fakeEngineBatchesBecomeTheExpectedPrefixesAndGapsAndRestartsClear() {
    startPipeline(
        FakeEngine.builder().blockSize(16).numBlocks(4).events(2).startToken(1),
        "kv-events",
        false);

    engine.publishStored();
    await().atMost(WAIT).until(() -> sink.allPrefixes().size() == 4);
    assertReported(sink.allPrefixes());
    final SubscriberUpdate update = sink.updates.get(0);
    assertThat(update.replicaId()).isEqualTo("replica-it");
    assertThat(update.modelId()).isEqualTo("model-it");
    assertThat(update.hashScheme()).isEqualTo("vllm");
    assertThat(update.timestampMicros()).isZero();

    // Eviction of the last block: one PREFIX_EVICTED for its prefix.
    engine.publishBlockRemoved(FakeEngine.fakeBlockHash(3));
    await().atMost(WAIT).until(() -> sink.evictions.size() == 1);
    assertThat(sink.evictions.get(0).prefixHash()).isEqualTo(engine.expectations().get(3).wire());

    // A gap: allCleared, counted; the batch after it is indexed again.
    engine.injectGap(5);
    engine.publishStored();
    await().atMost(WAIT).until(() -> sink.clears.size() == 1 && sink.updates.size() == 2);
    assertThat(source.gaps()).isEqualTo(1);
    assertThat(reporter.resyncs()).isEqualTo(1);
    assertReported(sink.updates.get(1).prefixes());

    // A restart: sequence back to 0.
    engine.simulateRestart();
    engine.publishStored();
    await().atMost(WAIT).until(() -> sink.clears.size() == 2 && sink.updates.size() == 3);
    assertThat(source.restarts()).isEqualTo(1);
    assertThat(source.gaps()).isEqualTo(1);
    assertThat(sink.calls)
        .containsExactly(
            "report:4",
            "evict:" + engine.expectations().get(3).hex(),
            "clear",
            "report:4",
            "clear",
            "report:4");

    // The engine clears its cache.
    engine.publishAllBlocksCleared();
    await().atMost(WAIT).until(() -> sink.clears.size() == 3);
    assertThat(source.gaps()).isEqualTo(1);
    assertThat(source.restarts()).isEqualTo(1);
  }

  @Test
  void malformedBatchesAreCountedAndTheSourceKeepsRunning() {
    startPipeline(FakeEngine.builder().blockSize(16).numBlocks(1), "kv-events", false);

    engine.publishPayload(new byte[] {(byte) 0x91, (byte) 0xc1});
    engine.publishStored();

    await().atMost(WAIT).until(() -> sink.allPrefixes().size() == 1);
    assertThat(source.malformedBatches()).isEqualTo(1);
    assertThat(source.batchesDecoded()).isEqualTo(1);
    assertThat(source.gaps()).as("a malformed batch still consumes its sequence").isZero();
    assertThat(source.isRunning()).isTrue();
  }

  @Test
  void unmappedLoraIdsAreDroppedEndToEnd() {
    startPipeline(FakeEngine.builder().blockSize(16).numBlocks(2).loraId(1), "", true);
    // lora id 1 is unmapped here: dropped, fail closed.
    engine.publishStored();
    await().atMost(WAIT).until(() -> reporter.droppedUnmappedAdapter() == 1);
    assertThat(sink.updates).isEmpty();
  }

  @Test
  void l2ModeDowngradesEvictedPrefixes() {
    startPipeline(FakeEngine.builder().blockSize(16).numBlocks(2), "", true);

    engine.publishStored();
    await().atMost(WAIT).until(() -> sink.updates.size() == 1);
    engine.publishBlockRemoved(FakeEngine.fakeBlockHash(0), FakeEngine.fakeBlockHash(1));

    await().atMost(WAIT).until(() -> sink.updates.size() == 2);
    assertThat(sink.updates.get(1).prefixes())
        .extracting(PrefixRecord::tier)
        .containsExactly(PrefixRecord.TIER_T2, PrefixRecord.TIER_T2);
    assertThat(sink.evictions).isEmpty();
  }

  @Test
  void otherTopicsAreFilteredOut() {
    startPipeline(FakeEngine.builder().topic("other-topic").blockSize(16), "kv-events", false);
    // The subscription reached the engine but does not match its topic: nothing is delivered.
    engine.publishStored();
    engine.publishAllBlocksCleared();
    await().during(Duration.ofMillis(300)).atMost(WAIT).until(() -> sink.calls.isEmpty());
    assertThat(source.messagesReceived()).isZero();
  }
}
