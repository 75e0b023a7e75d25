package io.inferencecache.subscriber.sink;

import static io.inferencecache.subscriber.sink.GrpcUpdateSinkUnreachableIT.record;
import static io.inferencecache.subscriber.sink.GrpcUpdateSinkUnreachableIT.update;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.CacheTier;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.index.PrefixRecord;
import java.util.List;
import org.junit.jupiter.api.Test;

/** What the sink puts on the wire. */
class ProtoMappingTest {
  @Test
  void updatesMapToLegacyEntriesWithTheIdentityStampedAndNoUpdateLevelAdapter() {
    final SubscriberUpdate u =
        new SubscriberUpdate(
            "r1",
            "m1",
            "t1",
            "vllm",
            42L,
            List.of(
                record(0, "", PrefixRecord.TIER_T1), record(1, "lora-a", PrefixRecord.TIER_T2)));
    final CacheStateUpdate p = ProtoMapping.toProto(u);
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
    ProtoMapping.toProto(u, b, e);
    assertThat(ProtoMapping.toProto(update(1), b, e).getPrefixesCount()).isEqualTo(1);

    final ProtoMapping mapping = new ProtoMapping("r1", "m1", "t1", "vllm");
    final CacheEvent evict =
        mapping.eviction(
            CacheEvent.newBuilder(), new byte[] {1, 2, 3, 4, 5, 6, 7, 8}, "lora-a", 99L);
    assertThat(evict.getType()).isEqualTo(CacheEvent.Type.PREFIX_EVICTED);
    assertThat(evict.getReplicaId()).isEqualTo("r1");
    assertThat(evict.getModelId()).isEqualTo("m1");
    assertThat(evict.getTenantId()).isEqualTo("t1");
    assertThat(evict.getPrefixHash().toByteArray()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8);
    assertThat(evict.getAdapterId()).isEqualTo("lora-a");
    assertThat(evict.getTimestampUs()).isEqualTo(99L);
    final CacheEvent clear = mapping.clearEvent(CacheEvent.newBuilder(), 7L);
    assertThat(clear.getType()).isEqualTo(CacheEvent.Type.ALL_CLEARED);
    assertThat(clear.getReplicaId()).isEqualTo("r1");
    assertThat(clear.getPrefixHash().isEmpty()).isTrue();
    assertThat(clear.getTimestampUs()).isEqualTo(7L);
  }

  @Test
  void aStatsSampleIsAStatsOnlyUpdateWithTheIdentityStamped() {
    final CacheStateUpdate p =
        new ProtoMapping("r1", "m1", "t1", "sglang")
            .stats(new StatsSample(1_000L, 0.25f, 0.75f, 3L, 4L), 55L);
    assertThat(p.getReplicaId()).isEqualTo("r1");
    assertThat(p.getModelId()).isEqualTo("m1");
    assertThat(p.getTenantId()).isEqualTo("t1");
    assertThat(p.getHashScheme()).isEqualTo("sglang");
    assertThat(p.getTimestampUs()).isEqualTo(55L);
    assertThat(p.getPrefixesCount()).isZero();
    assertThat(p.getStats().getReplicaId()).isEqualTo("r1");
    assertThat(p.getStats().getCacheMemoryBytes()).isEqualTo(1_000L);
    assertThat(p.getStats().getHitRate()).isEqualTo(0.25f);
    assertThat(p.getStats().getPressure()).isEqualTo(0.75f);
    assertThat(p.getStats().getT2HitTokens()).isEqualTo(3L);
    assertThat(p.getStats().getT2QueryTokens()).isEqualTo(4L);
  }
}
