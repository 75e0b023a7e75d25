package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.T0;
import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.minutes;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The /snapshot aggregate and GetCacheState (docs/behaviour.md#get-cache-state and
 * docs/behaviour.md#snapshot; checklist 28, 119–121).
 */
class SnapshotAggregateTest extends IndexTestSupport {

  @Test
  void totalsEqualTheSumOverTenantsIncludingTheUntenantedBucket() {
    ingest(update("a", "m", "vllm", "r1").legacy("p1", 16).legacy("p2", 16));
    ingest(update("a", "m", "vllm", "r2").legacy("p1", 16));
    ingest(update("b", "m2", "sglang", "r1").chain(16, "b0", "b1", "b2"));
    ingest(update("", "m", "vllm", "r9").legacy("p1", 16));
    ingest(update(CacheIndex.RESERVED_TENANT, "m", "vllm", "__probe-x").legacy("p1", 16));
    final IndexSnapshot s = index.snapshot();
    assertThat(s.tenants())
        .extracting(IndexSnapshot.TenantRow::tenantId)
        .containsExactly("", "a", "b");
    assertThat(s.tenants())
        .extracting(IndexSnapshot.TenantRow::indexEntries)
        .containsExactly(1L, 2L, 3L);
    final long sum = s.tenants().stream().mapToLong(IndexSnapshot.TenantRow::indexEntries).sum();
    assertThat(s.totalPrefixes()).isEqualTo(sum).isEqualTo(6);
    assertThat(index.totalKeys()).isEqualTo(7); // the probe's key is counted here only
    final long prefixCounts =
        s.replicas().stream().mapToLong(IndexSnapshot.ReplicaRow::prefixCount).sum();
    assertThat(prefixCounts).isEqualTo(index.totalEntries() - index.reservedEntries());
    assertThat(s.hotPrefixes()).isZero();
  }

  @Test
  void carriesTheT2Counters() {
    ingest(update("t", "m", "vllm", "r1").stats(new IngestStats(0, 0.5f, 0f, 600, 1000)));
    final IndexSnapshot.ReplicaRow row = index.snapshot().replicas().get(0);
    assertThat(row.t2HitTokens()).isEqualTo(600);
    assertThat(row.t2QueryTokens()).isEqualTo(1000);
  }

  @Test
  void aggregatesReplicasAndTenants() {
    // vllm-0: stats under m2 first (older liveness, hit rate 0.9), then under m (0.5)
    ingest(
        update("team-a", "m2", "vllm", "vllm-0")
            .at(T0 - minutes(1))
            .stats(new IngestStats(7, 0.9f, 0.75f, 0, 0)));
    ingest(
        update("team-a", "m", "vllm", "vllm-0")
            .legacy("k1", 16)
            .stats(new IngestStats(100, 0.5f, 0.25f, 600, 1000)));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("team-a", "m", "vllm", "vllm-0").legacy("k2", 16));
    ingest(update("team-a", "m", "vllm", "vllm-1").legacy("k3", 16).stats(0.3f, 0f));
    ingest(update("team-b", "m", "vllm", "vllm-0").stats(0.2f, 0f));

    final IndexSnapshot s = index.snapshot();
    assertThat(s.totalPrefixes()).isEqualTo(3);
    assertThat(s.hotPrefixes()).isZero();
    assertThat(s.replicas())
        .containsExactly(
            new IndexSnapshot.ReplicaRow(
                "vllm-0", "team-a", 100, 0.5f, 0.25f, T0, 2, T0 + minutes(1), true, 600, 1000),
            new IndexSnapshot.ReplicaRow(
                "vllm-1", "team-a", 0, 0.3f, 0f, T0 + minutes(1), 1, T0 + minutes(1), true, 0, 0),
            new IndexSnapshot.ReplicaRow(
                "vllm-0", "team-b", 0, 0.2f, 0f, T0 + minutes(1), 0, 0, true, 0, 0));
    assertThat(s.tenants())
        .containsExactly(
            new IndexSnapshot.TenantRow(
                "team-a", 3, (float) (((double) 0.5f + (double) 0.3f) / 2.0), true),
            new IndexSnapshot.TenantRow("team-b", 0, 0.2f, true));
  }

  @Test
  void picksTheStatsRowWithTheNewestLivenessAcrossModels() {
    ingest(update("t", "m1", "vllm", "r1").stats(0.1f, 0f));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m2", "vllm", "r1").stats(0.2f, 0f));
    assertThat(index.snapshot().replicas().get(0).hitRate()).isEqualTo(0.2f);
    clock.advance(1, TimeUnit.MINUTES);
    index.applyEvent(event(IndexEvent.Type.REPLICA_UPDATED, "t", "m1", "r1", null, ""));
    final IndexSnapshot.ReplicaRow row = index.snapshot().replicas().get(0);
    assertThat(row.hitRate()).isEqualTo(0.1f);
    assertThat(row.lastUpdateNanos()).isEqualTo(clock.now);
    assertThat(index.snapshot().tenants().get(0).hitRate()).isEqualTo(0.1f);
  }

  @Test
  void presenceBitsDistinguishAbsentFromZero() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 16));
    IndexSnapshot s = index.snapshot();
    assertThat(s.replicas().get(0).statsReported()).isFalse();
    assertThat(s.replicas().get(0).lastUpdateNanos()).isZero();
    assertThat(s.tenants().get(0).hitRateReported()).isFalse();
    assertThat(s.tenants().get(0).indexEntries()).isEqualTo(1);
    ingest(update("t", "m", "vllm", "r1").stats(0f, 0f));
    s = index.snapshot();
    assertThat(s.replicas().get(0).statsReported()).isTrue();
    assertThat(s.replicas().get(0).hitRate()).isZero();
    assertThat(s.tenants().get(0).hitRateReported()).isTrue();
  }

  @Test
  void sortsRowsByTenantThenReplicaInUnsignedByteOrder() {
    for (String rep : new String[] {"\u00E9", "z", "a"}) {
      ingest(update("\u00E9t", "m", "vllm", rep).legacy("p", 16));
      ingest(update("zt", "m", "vllm", rep).legacy("p", 16));
    }
    final IndexSnapshot s = index.snapshot();
    assertThat(s.tenants())
        .extracting(IndexSnapshot.TenantRow::tenantId)
        .containsExactly("zt", "\u00E9t");
    assertThat(s.replicas())
        .extracting(row -> row.tenant() + "/" + row.replicaId())
        .containsExactly("zt/a", "zt/z", "zt/\u00E9", "\u00E9t/a", "\u00E9t/z", "\u00E9t/\u00E9");
  }

  @Test
  void emptyIndexHasNoRows() {
    final IndexSnapshot s = index.snapshot();
    assertThat(s.replicas()).isEmpty();
    assertThat(s.tenants()).isEmpty();
    assertThat(s.totalPrefixes()).isZero();
  }

  @Test
  void cacheStateCountsKeysAcrossSchemesAndAdaptersAndSortsStatsRows() {
    ingest(update("t", "m", "vllm", "r2").legacy("p", 16).stats(0.2f, 0.1f));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 16).stats(0.1f, 0.3f));
    ingest(update("t", "m", "sglang", "r1").legacy("p", 16));
    ingest(update("t", "m", "vllm", "r1").adapter("A").legacy("p", 16));
    ingest(update("t", "m", "vllm", "r3").stats(0.4f, 0f)); // stats only
    ingest(update("t", "m2", "vllm", "r1").legacy("q", 16).stats(0.9f, 0f));
    final CacheStateView v = index.cacheState("t", "m");
    assertThat(v.totalPrefixes()).isEqualTo(3);
    assertThat(v.replicas())
        .extracting(CacheStateView.ReplicaStatsRow::replicaId)
        .containsExactly("r1", "r2", "r3");
    assertThat(v.replicas().get(0).pressure()).isEqualTo(0.3f);
    assertThat(index.cacheState("t", "unknown")).isEqualTo(CacheStateView.EMPTY);
    assertThat(index.cacheState("unknown", "m")).isEqualTo(CacheStateView.EMPTY);
  }
}
