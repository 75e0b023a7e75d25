package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The reserved probe tenant (docs/behaviour.md#probe-tenant and
 * docs/behaviour.md#miss-classification; checklist 118).
 */
class ReservedTenantTest extends IndexTestSupport {
  private static final String PROBE = CacheIndex.RESERVED_TENANT;

  @Test
  void reservedEntriesAreFindableButHiddenFromCapAggregatesSnapshotAndGauge() {
    reopen(baseConfig().maxEntries(2).evictionHeadroom(0));
    final IndexFixtures.UpdateBuilder probe = update(PROBE, "m", "vllm", "__probe-a");
    for (int i = 0; i < 5; i++) {
      probe.legacy("probe-" + i, 16);
    }
    ingest(probe);
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 16));
    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p2", 16));
    assertThat(index.totalEntries()).isEqualTo(7);
    assertThat(index.reservedEntries()).isEqualTo(5);
    assertThat(listener.allEvictions()).isZero();

    assertThat(names(plain(exactReq(PROBE, "m", "vllm", "probe-3", 16))))
        .containsExactly("__probe-a");

    final IndexSnapshot s = index.snapshot();
    assertThat(s.tenants()).extracting(IndexSnapshot.TenantRow::tenantId).containsExactly("t");
    assertThat(s.replicas()).extracting(IndexSnapshot.ReplicaRow::replicaId).containsExactly("r1");
    assertThat(s.totalPrefixes()).isEqualTo(2);
    assertThat(index.modelKeys("m")).isEqualTo(2);
    assertThat(listener.gauges.get("m")).isEqualTo(2);
    assertThat(listener.gaugePushes("m")).allMatch(n -> n <= 2);
    assertThat(index.cacheState(PROBE, "m")).isEqualTo(CacheStateView.EMPTY);

    clock.advance(1, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p3", 16));
    assertThat(present("p1", "r1")).as("the oldest non-reserved entry is the victim").isFalse();
    assertThat(index.reservedEntries()).isEqualTo(5);
    assertThat(listener.evictions("lru", "cap")).isEqualTo(1);
  }

  @Test
  void reservedStatsAreHiddenFromTheSnapshot() {
    ingest(update(PROBE, "m", "vllm", "__probe-a").legacy("p", 16).stats(0.9f, 0.1f));
    final IndexSnapshot s = index.snapshot();
    assertThat(s.replicas()).isEmpty();
    assertThat(s.tenants()).isEmpty();
    assertThat(s.totalPrefixes()).isZero();
  }

  @Test
  void reservedEntriesAreStillSweptByTtl() {
    ingest(update(PROBE, "m", "vllm", "__probe-a").legacy("p", 16));
    clock.advance(30, TimeUnit.MINUTES);
    assertThat(index.sweepExpired()).isEqualTo(1);
    assertThat(index.reservedEntries()).isZero();
    assertThat(index.totalEntries()).isZero();
    assertThat(plain(exactReq(PROBE, "m", "vllm", "p", 16)).size()).isZero();
  }

  @Test
  void reservedEntriesFollowTheReservedTenantsTtl() {
    policies.ttl.put(PROBE, TimeUnit.MINUTES.toNanos(2));
    ingest(update(PROBE, "m", "vllm", "__probe-a").legacy("p", 16));
    clock.advance(2, TimeUnit.MINUTES);
    assertThat(plain(exactReq(PROBE, "m", "vllm", "p", 16)).size()).isZero();
    assertThat(index.sweepExpired()).isEqualTo(1);
  }

  @Test
  void reservedEntriesCanBeRemovedByEvents() {
    ingest(update(PROBE, "m", "vllm", "__probe-a").legacy("p", 16).legacy("q", 16));
    index.applyEvent(
        IndexFixtures.event(IndexEvent.Type.PREFIX_EVICTED, PROBE, "m", "__probe-a", "p", ""));
    assertThat(index.reservedEntries()).isEqualTo(1);
    index.applyEvent(
        IndexFixtures.event(IndexEvent.Type.ALL_CLEARED, PROBE, "m", "__probe-a", null, ""));
    assertThat(index.reservedEntries()).isZero();
    assertThat(index.totalKeys()).isZero();
  }

  @Test
  void aProbeOnAnOtherwiseEmptyIndexMakesOtherTenantsUnknown() {
    ingest(update(PROBE, "m", "vllm", "__probe-a").legacy("p", 16));
    assertThat(route(exactReq("t", "m", "vllm", "p", 16)).outcome())
        .isEqualTo(Outcome.UNKNOWN_TENANT);
  }
}
