package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.T0;
import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.policy.PolicyStore;
import io.inferencecache.engine.policy.TenantSpec;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Per-tenant distinct-key quotas through the real policy store (docs/behaviour.md#eviction-quota;
 * checklist 122–129).
 */
class TenantQuotaTest extends IndexTestSupport {
  private PolicyStore store;

  @BeforeEach
  void useThePolicyStore() {
    store = reopenWithPolicyStore(baseConfig().evictionHeadroom(0));
  }

  private void quotas(final TenantSpec... specs) {
    store.replace(snapshotOf(List.of(), List.of(specs)));
  }

  private void key(final String tenant, final String replica, final String hash) {
    ingest(update(tenant, "m", "vllm", replica).legacy(hash, 16));
  }

  private void minute() {
    clock.advance(1, TimeUnit.MINUTES);
  }

  @Test
  void aKeyOnTwoReplicasCountsOnceAndIsEvictedFromBoth() {
    quotas(TenantSpec.of("t", 2));
    key("t", "r1", "k1");
    key("t", "r2", "k1");
    minute();
    key("t", "r1", "k2");
    assertThat(index.totalEntries()).isEqualTo(3);
    assertThat(listener.tenantEvictions("t", "over_entries")).isZero();
    minute();
    key("t", "r1", "k3");
    assertThat(present("k1", "r1")).isFalse();
    assertThat(present("k1", "r2")).isFalse();
    assertThat(present("k2", "r1")).isTrue();
    assertThat(present("k3", "r1")).isTrue();
    assertThat(index.totalEntries()).isEqualTo(2);
    assertThat(listener.tenantEvictions("t", "over_entries")).isEqualTo(1);
    assertThat(listener.allEvictions()).as("quota evictions are not index evictions").isZero();
  }

  @Test
  void evictsTheOldestKeysOverTheBudget() {
    quotas(TenantSpec.of("t", 3));
    for (int i = 1; i <= 5; i++) {
      key("t", "r1", "p" + i);
      minute();
    }
    assertThat(index.cacheState("t", "m").totalPrefixes()).isEqualTo(3);
    assertThat(present("p1", "r1")).isFalse();
    assertThat(present("p2", "r1")).isFalse();
    assertThat(present("p3", "r1")).isTrue();
    assertThat(present("p5", "r1")).isTrue();
    assertThat(listener.tenantEvictions("t", "over_entries")).isEqualTo(2);
  }

  @Test
  void keyAgeIsTheNewestLastSeenAmongItsHolders() {
    quotas(TenantSpec.of("t", 2));
    key("t", "r1", "k1"); // T0
    clock.advance(3, TimeUnit.MINUTES);
    key("t", "r1", "k2"); // T0+3
    clock.advance(2, TimeUnit.MINUTES);
    key("t", "r2", "k1"); // k1 now aged by r2: T0+5
    minute();
    key("t", "r1", "k3"); // T0+6
    assertThat(present("k2", "r1")).isFalse();
    assertThat(present("k1", "r1")).isTrue();
    assertThat(present("k1", "r2")).isTrue();
  }

  @Test
  void doesNothingUnderTheBudget() {
    quotas(TenantSpec.of("t", 5));
    for (int i = 0; i < 5; i++) {
      key("t", "r1", "p" + i);
    }
    assertThat(index.cacheState("t", "m").totalPrefixes()).isEqualTo(5);
    assertThat(listener.calls).noneMatch(c -> c.kind().equals("tenant"));
  }

  @Test
  void aTenantWithoutAQuotaEntryIsUnbounded() {
    quotas(TenantSpec.of("other", 1));
    for (int i = 0; i < 10; i++) {
      key("t", "r1", "p" + i);
    }
    assertThat(index.cacheState("t", "m").totalPrefixes()).isEqualTo(10);
  }

  @Test
  void anIndexWithoutAnyPolicySnapshotNeverEnforces() {
    reopen(baseConfig().policies(TenantPolicies.DEFAULTS));
    for (int i = 0; i < 10; i++) {
      key("t", "r1", "p" + i);
    }
    assertThat(index.cacheState("t", "m").totalPrefixes()).isEqualTo(10);
  }

  @Test
  void quotaIsScopedToItsTenant() {
    quotas(TenantSpec.of("a", 1));
    key("b", "r1", "old1");
    key("b", "r1", "old2");
    minute();
    key("a", "r1", "x");
    minute();
    key("a", "r1", "y");
    assertThat(index.cacheState("a", "m").totalPrefixes()).isEqualTo(1);
    assertThat(present("a", "m", "vllm", "", "y", "r1")).isTrue();
    assertThat(index.cacheState("b", "m").totalPrefixes()).isEqualTo(2);
    assertThat(listener.tenantEvictions("a", "over_entries")).isEqualTo(1);
    assertThat(listener.tenantEvictions("b", "over_entries")).isZero();
  }

  @Test
  void zeroBudgetRetainsNothing() {
    quotas(TenantSpec.of("t", 0));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 16).chain(16, "b0", "b1"));
    assertThat(index.cacheState("t", "m").totalPrefixes()).isZero();
    assertThat(index.totalEntries()).isZero();
    assertThat(listener.tenantEvictions("t", "over_entries")).isEqualTo(3);
  }

  @Test
  void negativeBudgetIsClampedToZero() {
    quotas(TenantSpec.of("t", -7));
    key("t", "r1", "p");
    assertThat(index.totalEntries()).isZero();
  }

  @Test
  void equalAgesBreakTiesByModelSchemeAdapterThenUnsignedHash() {
    // all at the same time, no quota yet
    index.ingest(update("t", "m1", "vllm", "r1").at(T0).legacy("a", 16).build());
    index.ingest(update("t", "m0", "vllm", "r1").at(T0).legacy("z", 16).build());
    index.ingest(update("t", "m0", "sglang", "r1").at(T0).legacy("z", 16).build());
    index.ingest(update("t", "m0", "vllm", "r1").at(T0).adapter("A").legacy("a", 16).build());
    index.ingest(
        update("t", "m0", "vllm", "r1").at(T0).legacy(new byte[] {(byte) 0x80}, 16, 0).build());
    // a lowered quota bites at the tenant's next ingest (a stats-only one is enough)
    quotas(TenantSpec.of("t", 3));
    ingest(update("t", "m0", "", "r1").stats(0.5f, 0f));
    assertThat(present("t", "m0", "sglang", "", "z", "r1")).isFalse();
    assertThat(present("t", "m0", "vllm", "", "z", "r1")).isFalse();
    assertThat(index.accessCount("t", "m0", "vllm", "", new byte[] {(byte) 0x80}, "r1") >= 0)
        .as("0x80 sorts after 'z' (0x7A) unsigned")
        .isTrue();
    quotas(TenantSpec.of("t", 1));
    ingest(update("t", "m0", "", "r1").stats(0.5f, 0f));
    assertThat(index.accessCount("t", "m0", "vllm", "", new byte[] {(byte) 0x80}, "r1"))
        .isEqualTo(-1);
    assertThat(present("t", "m0", "vllm", "A", "a", "r1")).isFalse();
    assertThat(present("t", "m1", "vllm", "", "a", "r1")).isTrue();
  }

  @Test
  void aLoweredQuotaBitesOnlyAtTheTenantsNextIngest() {
    for (int i = 0; i < 3; i++) {
      key("t", "r1", "p" + i);
      minute();
    }
    quotas(TenantSpec.of("t", 1));
    index.applyEvent(event(IndexEvent.Type.REPLICA_UPDATED, "t", "m", "r1", null, ""));
    index.sweepExpired();
    key("u", "r1", "other");
    assertThat(index.cacheState("t", "m").totalPrefixes()).isEqualTo(3);
    ingest(update("t", "m", "", "r1").stats(0.5f, 0f));
    assertThat(index.cacheState("t", "m").totalPrefixes()).isEqualTo(1);
    assertThat(present("p2", "r1")).isTrue();
  }

  @Test
  void quotaRunsBeforeTheGlobalCap() {
    store = reopenWithPolicyStore(baseConfig().maxEntries(3).evictionHeadroom(0));
    quotas(TenantSpec.of("t", 2));
    key("u", "r1", "old");
    minute();
    key("t", "r1", "k1");
    minute();
    key("t", "r1", "k2");
    minute();
    key("t", "r1", "k3");
    assertThat(present("u", "m", "vllm", "", "old", "r1")).isTrue();
    assertThat(present("k1", "r1")).isFalse();
    assertThat(index.totalEntries()).isEqualTo(3);
    assertThat(listener.allEvictions()).isZero();
  }

  @Test
  void theReservedProbeTenantIsQuotaExempt() {
    policies.quota.put(CacheIndex.RESERVED_TENANT, 0L);
    reopen(baseConfig());
    ingest(update(CacheIndex.RESERVED_TENANT, "m", "vllm", "__probe-a").legacy("p", 16));
    ingest(update(CacheIndex.RESERVED_TENANT, "m", "vllm", "__probe-a").legacy("q", 16));
    assertThat(index.reservedEntries()).isEqualTo(2);
    assertThat(listener.calls).noneMatch(c -> c.kind().equals("tenant"));
  }
}
