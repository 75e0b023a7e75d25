package io.inferencecache.subscriber.sink;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.CacheTier;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.index.PrefixRecord;
import io.inferencecache.subscriber.report.SubscriberUpdate;
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

/** The sink's mapping and its buffer, against a loopback port nobody listens on. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class GrpcUpdateSinkTest {
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
  void updatesMapToLegacyEntriesWithTheIdentityStampedAndNoUpdateLevelAdapter() throws Exception {
    final SubscriberUpdate u =
        new SubscriberUpdate(
            "r1",
            "m1",
            "t1",
            "vllm",
            42L,
            List.of(
                record(0, "", PrefixRecord.TIER_T1), record(1, "lora-a", PrefixRecord.TIER_T2)));
    final CacheStateUpdate p = GrpcUpdateSink.toProto(u);
    assertThat(p.getReplicaId()).isEqualTo("r1");
    assertThat(p.getModelId()).isEqualTo("m1");
    assertThat(p.getTenantId()).isEqualTo("t1");
    assertThat(p.getHashScheme()).isEqualTo("vllm");
    assertThat(p.getTimestampUs()).isEqualTo(42L);
    assertThat(p.getAdapterId()).isEmpty();
    assertThat(p.hasStats()).isFalse();
    assertThat(p.getPrefixesList())
        .containsExactly(
            PrefixEntry.newBuilder()
                .setPrefixHash(
                    com.google.protobuf.ByteString.copyFrom(record(0, "", 1).prefixHash()))
                .setTokenCount(16)
                .setTier(CacheTier.CACHE_TIER_T1)
                .build(),
            PrefixEntry.newBuilder()
                .setPrefixHash(
                    com.google.protobuf.ByteString.copyFrom(record(1, "", 1).prefixHash()))
                .setTokenCount(32)
                .setAdapterId("lora-a")
                .setTier(CacheTier.CACHE_TIER_T2)
                .build());
    // Builders are reused: a second, smaller update carries nothing of the first.
    final CacheStateUpdate.Builder b = CacheStateUpdate.newBuilder();
    final PrefixEntry.Builder e = PrefixEntry.newBuilder();
    GrpcUpdateSink.toProto(u, b, e);
    assertThat(GrpcUpdateSink.toProto(update(1), b, e).getPrefixesCount()).isEqualTo(1);

    unreachable(4, 100);
    final CacheEvent evict =
        sink.eviction(CacheEvent.newBuilder(), new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, "lora-a", 99L);
    assertThat(evict.getType()).isEqualTo(CacheEvent.Type.PREFIX_EVICTED);
    assertThat(evict.getReplicaId()).isEqualTo("r1");
    assertThat(evict.getModelId()).isEqualTo("m1");
    assertThat(evict.getTenantId()).isEqualTo("t1");
    assertThat(evict.getPrefixHash().toByteArray()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    assertThat(evict.getAdapterId()).isEqualTo("lora-a");
    assertThat(evict.getTimestampUs()).isEqualTo(99L);
    final CacheEvent clear = sink.clearEvent(CacheEvent.newBuilder(), 7L);
    assertThat(clear.getType()).isEqualTo(CacheEvent.Type.ALL_CLEARED);
    assertThat(clear.getReplicaId()).isEqualTo("r1");
    assertThat(clear.getPrefixHash().isEmpty()).isTrue();
    assertThat(clear.getTimestampUs()).isEqualTo(7L);
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
    assertThat(sink.updatesDropped()).isEqualTo(1);
    assertThat(sink.entriesDropped()).isEqualTo(4);
    assertThat(sink.eventsDropped()).isEqualTo(1);
    assertThat(sink.updatesSent()).isZero();
    assertThat(sink.resyncRequested()).as("not while the server is unreachable").isFalse();

    // One update larger than the entry bound still fits an empty buffer.
    sink.allCleared(0);
    sink.report(update(30));
    assertThat(sink.queuedUpdates()).isEqualTo(2);
    assertThat(sink.updatesDropped()).isEqualTo(1);
  }

  @Test
  void aResyncReplacesTheQueueWithAClearAndTheStateInChunksOutsideTheBounds() throws Exception {
    unreachable(2, 10);
    sink.report(update(4));
    sink.report(update(4));
    sink.report(update(4)); // dropped
    sink.resync(update(2 * GrpcUpdateSink.MAX_ENTRIES_PER_UPDATE + 1));
    assertThat(sink.resyncs()).isEqualTo(1);
    assertThat(sink.queuedOps()).isEqualTo(1 + 3); // ALL_CLEARED, then three chunks
    assertThat(sink.queuedUpdates()).isZero(); // the bounds apply to new calls only
    sink.report(update(4));
    sink.report(update(4));
    assertThat(sink.queuedOps()).isEqualTo(6);
    assertThat(sink.updatesDropped()).isEqualTo(1);
  }

  @Test
  void closingCountsWhatCouldNotBeDeliveredAndDropsLaterCalls() throws Exception {
    unreachable(8, 100);
    sink.report(update(4));
    sink.prefixEvicted(new byte[8], "", 0);
    sink.close();
    assertThat(sink.updatesDropped()).isEqualTo(1);
    assertThat(sink.entriesDropped()).isEqualTo(4);
    assertThat(sink.eventsDropped()).isEqualTo(1);
    sink.report(update(1));
    assertThat(sink.updatesDropped()).isEqualTo(2);
    assertThatThrownBy(() -> sink.stats(new StatsSample(1, 0.5f, 0.5f, 0, 0), 1L))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void statsFailFastWhenTheServerIsUnreachable() throws Exception {
    unreachable(8, 100);
    assertThatThrownBy(() -> sink.stats(new StatsSample(1, 0.5f, 0.5f, 0, 0), 1L))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("UNAVAILABLE");
    assertThat(sink.statsFailed()).isEqualTo(1);
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
