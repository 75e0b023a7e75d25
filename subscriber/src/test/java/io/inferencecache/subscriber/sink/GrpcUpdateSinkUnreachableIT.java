package io.inferencecache.subscriber.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.index.PrefixRecord;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The sink's buffer, stats and close, against a loopback port nobody listens on. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GrpcUpdateSinkUnreachableIT {
  private GrpcUpdateSink sink;

  @AfterEach
  void close() {
    if (sink != null) {
      sink.close();
    }
  }

  /** A loopback port that was free a moment ago (nobody listens on it). */
  static int unusedPort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  private GrpcUpdateSink unreachable(final int updates, final int entries) throws IOException {
    sink =
        GrpcUpdateSink.builder()
            .target("127.0.0.1:" + unusedPort())
            .identity("r1", "m1", "t1", "vllm")
            .maxQueuedUpdates(updates)
            .maxQueuedEntries(entries)
            .drainTimeout(Duration.ZERO)
            .build();
    return sink;
  }

  static PrefixRecord record(final int i, final String adapter, final int tier) {
    return new PrefixRecord(
        new byte[] {0, 0, 0, 0, 0, 0, 0, (byte) i}, 16 * (i + 1), adapter, tier);
  }

  static SubscriberUpdate update(final int n) {
    final List<PrefixRecord> prefixes = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      prefixes.add(record(i, "", PrefixRecord.TIER_T1));
    }
    return new SubscriberUpdate("r1", "m1", "t1", "vllm", 1_234_567L, prefixes);
  }

  @Test
  void theBufferIsBoundedInUpdatesAndEntriesAndCountsWhatItDrops() throws Exception {
    unreachable(3, 10);
    sink.report(update(4));
    sink.report(update(4));
    sink.report(update(4)); // 12 entries > 10: dropped
    sink.prefixEvicted(new byte[8], "", 0); // third op
    sink.prefixEvicted(new byte[8], "", 0); // fourth op > 3: dropped
    sink.allCleared(0); // supersedes everything queued
    assertThat(sink.queuedUpdates()).isEqualTo(1);
    assertThat(sink.counters().updatesDropped()).isEqualTo(1);
    assertThat(sink.counters().entriesDropped()).isEqualTo(4);
    assertThat(sink.counters().eventsDropped()).isEqualTo(1);
    assertThat(sink.counters().updatesSent()).isZero();
    assertThat(sink.resyncRequested()).as("not while the server is unreachable").isFalse();

    // One update larger than the entry bound still fits an empty buffer.
    sink.allCleared(0);
    sink.report(update(30));
    assertThat(sink.queuedUpdates()).isEqualTo(2);
    assertThat(sink.counters().updatesDropped()).isEqualTo(1);
  }

  @Test
  void aResyncReplacesTheQueueWithAClearAndTheStateInChunksOutsideTheBounds() throws Exception {
    unreachable(2, 10);
    sink.report(update(4));
    sink.report(update(4));
    sink.report(update(4)); // dropped
    sink.resync(update(2 * GrpcUpdateSink.MAX_ENTRIES_PER_UPDATE + 1));
    assertThat(sink.counters().resyncs()).isEqualTo(1);
    assertThat(sink.queuedOps()).isEqualTo(1 + 3); // ALL_CLEARED, then three chunks
    assertThat(sink.queuedUpdates()).isZero(); // the bounds apply to new calls only
    sink.report(update(4));
    sink.report(update(4));
    assertThat(sink.queuedOps()).isEqualTo(6);
    assertThat(sink.counters().updatesDropped()).isEqualTo(1);
  }

  @Test
  void closingCountsWhatCouldNotBeDeliveredAndDropsLaterCalls() throws Exception {
    unreachable(8, 100);
    sink.report(update(4));
    sink.prefixEvicted(new byte[8], "", 0);
    sink.close();
    assertThat(sink.counters().updatesDropped()).isEqualTo(1);
    assertThat(sink.counters().entriesDropped()).isEqualTo(4);
    assertThat(sink.counters().eventsDropped()).isEqualTo(1);
    sink.report(update(1));
    assertThat(sink.counters().updatesDropped()).isEqualTo(2);
    assertThatThrownBy(() -> sink.stats(new StatsSample(1, 0.5f, 0.5f, 0, 0), 1L))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void statsFailFastWhenTheServerIsUnreachable() throws Exception {
    unreachable(8, 100);
    assertThatThrownBy(() -> sink.stats(new StatsSample(1, 0.5f, 0.5f, 0, 0), 1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("UNAVAILABLE");
    assertThat(sink.counters().statsFailed()).isEqualTo(1);
  }

  @Test
  void builderRejectsBadSettings() {
    assertThatThrownBy(
            () -> GrpcUpdateSink.builder().identity("r", "m", "", "vllm").target(" ").build())
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GrpcUpdateSink.builder().target("127.0.0.1:1").build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("replica and model");
    assertThatThrownBy(
            () ->
                GrpcUpdateSink.builder().identity("r", "m", "", "vllm").maxQueuedUpdates(0).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("buffer bounds");
  }
}
