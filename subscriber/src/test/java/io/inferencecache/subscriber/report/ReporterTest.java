package io.inferencecache.subscriber.report;

import static io.inferencecache.subscriber.Msgpack.tokens;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.subscriber.LogCapture;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.EventBatch;
import io.inferencecache.subscriber.decode.KvEvent;
import io.inferencecache.subscriber.index.AdapterResolver;
import io.inferencecache.subscriber.index.PositionalIndex;
import io.inferencecache.subscriber.index.PrefixRecord;
import io.inferencecache.subscriber.sink.SubscriberUpdate;
import io.inferencecache.subscriber.source.ReceivedBatch;
import io.inferencecache.subscriber.source.SequenceTracker;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 20, unit = TimeUnit.SECONDS)
class ReporterTest {
  private static final long GOLDEN_1 = Long.parseUnsignedLong("16863443419780771464");
  private static final long GOLDEN_2 = Long.parseUnsignedLong("12466389667045779788");

  private final RecordingSink sink = new RecordingSink();

  private static SubscriberConfig.Builder config() {
    return SubscriberConfig.builder()
        .replicaId("replica-0")
        .modelId("llama")
        .tenantId("team-a")
        .hashScheme("vllm")
        .loraAdapterNames("1=sql-lora,2=chat-lora");
  }

  private Reporter reporter(final SubscriberConfig.Builder b) {
    return new Reporter(b.build(), sink, () -> 0L, new PositionalIndex());
  }

  private static KvEvent.BlockStored stored(
      final long first, final int blocks, final Long parent, final int[] tokens, final int bs) {
    return stored(first, blocks, parent, tokens, bs, OptionalLong.empty());
  }

  private static KvEvent.BlockStored stored(
      final long first,
      final int blocks,
      final Long parent,
      final int[] tokens,
      final int bs,
      final OptionalLong lora) {
    final List<byte[]> hashes = new ArrayList<>();
    for (int i = 0; i < blocks; i++) {
      hashes.add(Fingerprint.toWire(first + i));
    }
    return new KvEvent.BlockStored(
        hashes, parent == null ? null : Fingerprint.toWire(parent), tokens, bs, lora);
  }

  private static KvEvent.BlockRemoved removed(final long... hashes) {
    final List<byte[]> out = new ArrayList<>();
    for (final long h : hashes) {
      out.add(Fingerprint.toWire(h));
    }
    return new KvEvent.BlockRemoved(out);
  }

  private static EventBatch batch(final double ts, final KvEvent... events) {
    return new EventBatch(ts, List.of(events));
  }

  private static String hex(final long hash) {
    return HexFormat.of().formatHex(Fingerprint.toWire(hash));
  }

  @Test
  void aSinkAskingForAResyncGetsTheWholeIndexInsteadOfThePendingAdds() {
    final Reporter reporter = reporter(config());
    reporter.accept(batch(1.0, stored(0xA, 2, null, tokens(1, 32), 16)));
    reporter.windowElapsed();
    reporter.accept(batch(2.0, stored(0xC, 1, 0xBL, tokens(33, 16), 16)));
    sink.wantsResync.set(true);

    reporter.windowElapsed();

    assertThat(sink.calls).containsExactly("report:2", "resync:3");
    final SubscriberUpdate state = sink.resyncs.get(0);
    assertThat(state.replicaId()).isEqualTo("replica-0");
    assertThat(state.modelId()).isEqualTo("llama");
    assertThat(state.tenantId()).isEqualTo("team-a");
    assertThat(state.hashScheme()).isEqualTo("vllm");
    assertThat(state.timestampMicros()).isZero();
    assertThat(state.prefixes()).extracting(PrefixRecord::tokenCount).containsExactly(16, 32, 48);
    assertThat(state.prefixes().get(0).prefixHash()).isEqualTo(Fingerprint.toWire(GOLDEN_1));
    assertThat(reporter.pendingCount()).isZero();
    assertThat(reporter.sinkResyncs()).isEqualTo(1);

    reporter.windowElapsed(); // asked once, answered once
    assertThat(sink.calls).containsExactly("report:2", "resync:3");
  }

  @Test
  void addsAreBufferedUntilTheWindowEndsThenSentAsOneStampedUpdate() {
    final Reporter reporter = reporter(config());

    reporter.accept(batch(1_700_000_000.5, stored(0xA, 1, null, tokens(1, 16), 16)));
    reporter.accept(batch(1_700_000_001.0, stored(0xB, 1, 0xAL, tokens(17, 16), 16)));
    assertThat(sink.updates).isEmpty();

    reporter.windowElapsed();

    assertThat(sink.updates).hasSize(1);
    final SubscriberUpdate update = sink.updates.get(0);
    assertThat(update.replicaId()).isEqualTo("replica-0");
    assertThat(update.modelId()).isEqualTo("llama");
    assertThat(update.tenantId()).isEqualTo("team-a");
    assertThat(update.hashScheme()).isEqualTo("vllm");
    assertThat(update.timestampMicros()).isEqualTo(1_700_000_001_000_000L);
    assertThat(update.prefixes())
        .containsExactly(
            new PrefixRecord(Fingerprint.toWire(GOLDEN_1), 16, "", PrefixRecord.TIER_T1),
            new PrefixRecord(Fingerprint.toWire(GOLDEN_2), 32, "", PrefixRecord.TIER_T1));
    reporter.windowElapsed();
    assertThat(sink.updates).as("an empty window sends nothing").hasSize(1);
  }

  @Test
  void timestampIsTheLastNonZeroBatchTimestampOfTheWindow() {
    final Reporter reporter = reporter(config());

    reporter.accept(batch(100.5, stored(0xA, 1, null, tokens(1, 16), 16)));
    reporter.accept(batch(0.0, stored(0xB, 1, 0xAL, tokens(17, 16), 16)));
    reporter.accept(batch(-4.0, stored(0xC, 1, 0xBL, tokens(33, 16), 16)));
    reporter.windowElapsed();
    reporter.accept(batch(0.0, stored(0xD, 1, 0xCL, tokens(49, 16), 16)));
    reporter.windowElapsed();

    assertThat(sink.updates)
        .extracting(SubscriberUpdate::timestampMicros)
        .containsExactly(100_500_000L, 0L);
  }

  @Test
  void flushesAtOnceWhen4096RecordsArePending() {
    final Reporter reporter = reporter(config());

    reporter.accept(batch(1, stored(0, 4095, null, tokens(0, 4095), 1)));
    assertThat(sink.updates).isEmpty();
    reporter.accept(batch(2, stored(4095, 2, 4094L, tokens(4095, 2), 1)));

    assertThat(sink.updates)
        .singleElement()
        .satisfies(
            u -> {
              assertThat(u.prefixes()).hasSize(4097);
              assertThat(u.prefixes().get(4096).tokenCount()).isEqualTo(4097);
              assertThat(u.timestampMicros()).isEqualTo(2_000_000L);
            });
    assertThat(reporter.pendingCount()).isZero();
  }

  @Test
  void singleTierRemovalFlushesPendingThenPublishesOneEvictionPerPrefix() {
    final Reporter reporter = reporter(config());

    reporter.accept(batch(7.0, stored(0xA, 2, null, tokens(1, 32), 16), removed(0xB, 0xA, 0x1234)));

    assertThat(sink.calls)
        .containsExactly("report:2", "evict:" + hex(GOLDEN_2), "evict:" + hex(GOLDEN_1));
    assertThat(sink.evictions)
        .allSatisfy(
            e -> {
              assertThat(e.adapterId()).isEmpty();
              assertThat(e.timestampMicros()).isEqualTo(7_000_000L);
            });
    assertThat(reporter.index().size()).isZero();
    assertThat(reporter.evictionsPublished()).isEqualTo(2);
  }

  @Test
  void removalOfUnknownBlocksStillFlushesInSingleTierMode() {
    final Reporter reporter = reporter(config());

    reporter.accept(batch(1, stored(0xA, 1, null, tokens(1, 16), 16), removed(0x99)));

    assertThat(sink.calls).containsExactly("report:1");
  }

  @Test
  void l2ModeRemovalFlushesPendingThenReReportsEvictedPrefixesAtT2() {
    final Reporter reporter = reporter(config().ignoreBlockRemoved(true));

    reporter.accept(batch(5.0, stored(0xA, 2, null, tokens(1, 32), 16)));
    reporter.accept(batch(9.0, stored(0xC, 1, 0xBL, tokens(33, 16), 16), removed(0xB)));

    assertThat(sink.calls).containsExactly("report:3", "report:1");
    assertThat(sink.evictions).isEmpty();
    assertThat(sink.updates.get(0).timestampMicros()).isEqualTo(9_000_000L);
    final SubscriberUpdate downgrade = sink.updates.get(1);
    assertThat(downgrade.timestampMicros()).isEqualTo(9_000_000L);
    assertThat(downgrade.prefixes())
        .containsExactly(
            new PrefixRecord(Fingerprint.toWire(GOLDEN_2), 32, "", PrefixRecord.TIER_T2));
    assertThat(reporter.index().size()).isEqualTo(2);
  }

  @Test
  void l2ModeRemovalOfUnknownBlocksKeepsPendingAdds() {
    final Reporter reporter = reporter(config().ignoreBlockRemoved(true));

    reporter.accept(batch(1, stored(0xA, 1, null, tokens(1, 16), 16), removed(0x99)));

    assertThat(sink.calls).isEmpty();
    reporter.windowElapsed();
    assertThat(sink.calls).containsExactly("report:1");
  }

  @Test
  void allBlocksClearedDiscardsPendingResetsIndexAndPublishesClear() {
    final Reporter reporter = reporter(config());

    reporter.accept(
        batch(3.0, stored(0xA, 2, null, tokens(1, 32), 16), new KvEvent.AllBlocksCleared()));
    reporter.windowElapsed();

    assertThat(sink.calls).containsExactly("clear");
    assertThat(sink.clears).containsExactly(3_000_000L);
    assertThat(reporter.index().size()).isZero();
    // The next extension of the old prefix starts a fresh root.
    reporter.accept(batch(4.0, stored(0xC, 1, 0xBL, tokens(33, 16), 16)));
    reporter.windowElapsed();
    assertThat(sink.updates)
        .singleElement()
        .satisfies(u -> assertThat(u.prefixes().get(0).tokenCount()).isEqualTo(16));
  }

  @Test
  void adaptersResolveMappedDropUnmappedWarningOncePerIdAndDefaultNil() {
    final Reporter reporter = reporter(config());
    try (LogCapture logs = LogCapture.of(AdapterResolver.class)) {
      reporter.accept(
          batch(
              1,
              stored(0xA, 1, null, tokens(1, 16), 16, OptionalLong.of(1)),
              stored(0xB, 1, null, tokens(1, 16), 16, OptionalLong.of(9)),
              stored(0xC, 1, null, tokens(1, 16), 16, OptionalLong.of(9)),
              stored(0xD, 1, null, tokens(1, 16), 16, OptionalLong.of(10)),
              stored(0xE, 1, null, tokens(1, 16), 16)));
      reporter.windowElapsed();

      assertThat(sink.allPrefixes())
          .extracting(PrefixRecord::adapterId)
          .containsExactly("sql-lora", "");
      assertThat(reporter.droppedUnmappedAdapter()).isEqualTo(3);
      assertThat(logs.messages(Level.WARN))
          .hasSize(2)
          .anySatisfy(m -> assertThat(m).contains("lora_id=9"))
          .anySatisfy(m -> assertThat(m).contains("lora_id=10"));
      assertThat(reporter.index().size()).isEqualTo(2);
    }
  }

  @Test
  void discontinuityClearsPendingAndIndexPublishesClearThenProcessesTheBatch() {
    final Reporter reporter = reporter(config());
    reporter.accept(batch(1, stored(0xA, 1, null, tokens(1, 16), 16)));

    reporter.accept(
        new ReceivedBatch(
            new SequenceTracker.Discontinuity(SequenceTracker.Kind.GAP, 1, 5),
            batch(2.5, stored(0xB, 1, 0xAL, tokens(17, 16), 16))));
    reporter.windowElapsed();

    assertThat(sink.calls).containsExactly("clear", "report:1");
    assertThat(sink.clears).containsExactly(2_500_000L);
    assertThat(sink.updates.get(0).prefixes().get(0).tokenCount())
        .as("the parent was forgotten: fresh root")
        .isEqualTo(16);
    assertThat(reporter.resyncs()).isEqualTo(1);
  }

  @Test
  void discontinuityWithoutABatchStillResynchronises() {
    final Reporter reporter = reporter(config());
    reporter.accept(batch(1, stored(0xA, 1, null, tokens(1, 16), 16)));

    reporter.accept(
        new ReceivedBatch(
            new SequenceTracker.Discontinuity(SequenceTracker.Kind.RESTART, 9, 0), null));
    reporter.windowElapsed();

    assertThat(sink.calls).containsExactly("clear");
    assertThat(sink.clears).containsExactly(0L);
  }

  @Test
  void gapAndRestartDetectedFromSequencesTriggerAllClearedAndCount() {
    final Reporter reporter = reporter(config());
    final SequenceTracker tracker = new SequenceTracker();
    final long[] sequences = {0, 1, 5, 6, 0, 1};
    try (LogCapture logs = LogCapture.of(SequenceTracker.class)) {
      for (int i = 0; i < sequences.length; i++) {
        final EventBatch b = batch(1, stored(0x100 + i, 1, null, tokens(i, 16), 16));
        reporter.accept(new ReceivedBatch(tracker.observe(sequences[i]), b));
        reporter.windowElapsed();
      }
      assertThat(tracker.gaps()).isEqualTo(1);
      assertThat(tracker.restarts()).isEqualTo(1);
      assertThat(sink.clears).hasSize(2);
      assertThat(sink.calls)
          .containsExactly(
              "report:1",
              "report:1",
              "clear",
              "report:1",
              "report:1",
              "clear",
              "report:1",
              "report:1");
      assertThat(logs.messages(Level.WARN))
          .containsExactly(
              "event=kv_event_sequence_gap previous_seq=1 seq=5 missed=3; resetting this"
                  + " replica's prefixes",
              "event=kv_event_engine_restart previous_seq=6 seq=0; resetting this replica's"
                  + " prefixes");
    }
  }

  @Test
  void sinkFailuresAreCountedAndDropped() {
    final Reporter reporter = reporter(config());
    sink.failing.set(true);

    reporter.accept(batch(1, stored(0xA, 1, null, tokens(1, 16), 16)));
    reporter.windowElapsed();
    reporter.accept(batch(1, removed(0xA), new KvEvent.AllBlocksCleared()));

    assertThat(reporter.sinkFailures()).isEqualTo(3);
    sink.failing.set(false);
    reporter.accept(batch(1, stored(0xB, 1, null, tokens(1, 16), 16)));
    reporter.windowElapsed();
    assertThat(sink.updates).hasSize(1);
  }

  @Test
  void closeWithoutThreadFlushesPending() {
    final Reporter reporter = reporter(config());
    reporter.accept(batch(1, stored(0xA, 1, null, tokens(1, 16), 16)));

    reporter.close();

    assertThat(sink.updates).hasSize(1);
  }

  @Test
  void threadTicksOnTheInjectedClockAndFinalFlushesOnClose() throws Exception {
    final AtomicLong now = new AtomicLong();
    final Reporter reporter =
        new Reporter(config().window("100ms").build(), sink, now::get, new PositionalIndex());
    final BlockingQueue<ReceivedBatch> queue = new ArrayBlockingQueue<>(4);
    reporter.start(queue);
    try {
      queue.put(ReceivedBatch.of(batch(1, stored(0xA, 1, null, tokens(1, 16), 16))));
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(5))
          .until(queue::isEmpty);
      // The clock has not moved: no tick, no update.
      assertThat(sink.updates).isEmpty();
      now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(5))
          .until(() -> sink.updates.size() == 1);
      queue.put(ReceivedBatch.of(batch(2, stored(0xB, 1, 0xAL, tokens(17, 16), 16))));
    } finally {
      reporter.close();
    }
    assertThat(reporter.isRunning()).isFalse();
    assertThat(sink.updates).hasSize(2);
    assertThat(sink.updates.get(1).prefixes().get(0).tokenCount()).isEqualTo(32);
  }
}
