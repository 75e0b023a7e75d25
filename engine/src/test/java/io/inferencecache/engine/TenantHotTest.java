package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.T0;
import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.minutes;
import static io.inferencecache.engine.IndexFixtures.update;
import static io.inferencecache.engine.LookupScoringTest.assertBits;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The TENANT_HOT fallback (docs/behaviour.md#tenant-hot and docs/behaviour.md#scores; checklist 7,
 * 9, 10, 45, 95–103).
 */
class TenantHotTest extends IndexTestSupport {
  private static final long MAX_AGE = IndexConfig.TENANT_HOT_MAX_AGE_DEFAULT_NS;

  /** r1 serves p1 in (t, m, vllm) and reports warm stats. */
  private void warm(final String replica, final float hitRate, final float pressure) {
    ingest(update("t", "m", "vllm", replica).legacy("p-" + replica, 64).stats(hitRate, pressure));
  }

  private LookupResult miss() {
    return route(exactReq("t", "m", "vllm", "novel", 64));
  }

  @Test
  void firesOnAnExactMissWhenAWarmReplicaServesTheScope() {
    warm("r1", 0.5f, 0.2f);
    miss();
    assertThat(r.outcome()).isEqualTo(Outcome.TENANT_HOT);
    assertThat(names(r)).containsExactly("r1");
    assertBits(r.score(0), 0.5f * 1f * (1f - 1f * 0.2f) * (1f + 1f * 0f));
    assertBits(r.estimatedCacheHitProb(0), 0.5f);
    assertThat(r.tier(0)).isEqualTo(Tier.UNSPECIFIED);
  }

  @Test
  void scoreFollowsTheFloat32RecencyFormula() {
    warm("r1", 0.5f, 0.2f);
    final long age = TimeUnit.SECONDS.toNanos(137);
    clock.now += age;
    route(exactReq("t", "m", "vllm", "novel", 64).ttftMs(100));
    final float recency = 1f - (float) age / (float) MAX_AGE;
    final float expected = ((0.5f * recency) * (1f - 1f * 0.2f)) * (1f + recency * 1f);
    assertThat(r.outcome()).isEqualTo(Outcome.TENANT_HOT);
    assertBits(r.score(0), expected);
  }

  @Test
  void matchedTokensAreZero() {
    warm("r1", 0.5f, 0f);
    warm("r2", 0.7f, 0f);
    miss();
    assertThat(r.size()).isEqualTo(2);
    assertThat(r.matchedTokens(0)).isZero();
    assertThat(r.matchedTokens(1)).isZero();
  }

  @Test
  void ordersByScoreThenReplicaId() {
    warm("r2", 0.5f, 0f);
    warm("r1", 0.5f, 0f);
    warm("r3", 0.9f, 0f);
    miss();
    assertThat(names(r)).containsExactly("r3", "r1", "r2");
  }

  @Test
  void requiresStatsYoungerThanTheMaxAge() {
    warm("r1", 0.5f, 0f);
    clock.advance(MAX_AGE - 1, TimeUnit.NANOSECONDS);
    assertThat(miss().outcome()).isEqualTo(Outcome.TENANT_HOT);
    clock.advance(1, TimeUnit.NANOSECONDS);
    assertThat(miss().outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void ignoresStatsOnlyReplicas() {
    warm("r1", 0.2f, 0f);
    ingest(update("t", "m", "vllm", "r2").stats(0.9f, 0f));
    miss();
    assertThat(names(r)).containsExactly("r1");
  }

  @Test
  void replicaUpdatedRefreshesLivenessButRevivesNeitherStalePressureNorTenantHot() {
    ingest(update("t", "m", "vllm", "r1").stats(0.5f, 0.9f));
    clock.advance(6, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100));
    index.applyEvent(event(IndexEvent.Type.REPLICA_UPDATED, "t", "m", "r1", null, ""));
    assertThat(miss().outcome()).as("stats reported 6 min ago").isEqualTo(Outcome.NONE);

    clock.advance(25, TimeUnit.MINUTES); // stats reported 31 min ago, liveness 25 min ago
    ingest(update("t", "m", "vllm", "r1").legacy("p", 100)); // prefix-only: no stats refresh
    index.applyEvent(event(IndexEvent.Type.REPLICA_UPDATED, "t", "m", "r1", null, ""));
    route(exactReq("t", "m", "vllm", "p", 0));
    assertBits(r.score(0), 100f); // stale pressure 0.9 not applied
    index.sweepExpired();
    // liveness kept the row alive through the sweep, but it stays stale for scoring
    assertThat(index.cacheState("t", "m").replicas()).hasSize(1);
    assertThat(miss().outcome()).isEqualTo(Outcome.NONE);
  }

  @Test
  void recencyIsClampedToOneForStatsFromTheFuture() {
    ingest(update("t", "m", "vllm", "r1").at(T0 + minutes(2)).legacy("p1", 64).stats(0.5f, 0.5f));
    miss();
    assertThat(r.outcome()).isEqualTo(Outcome.TENANT_HOT);
    assertBits(r.score(0), 0.5f * 1f * (1f - 0.5f) * 1f);
  }

  @Test
  void honoursTheHitRateThreshold() {
    warm("low", 0.05f, 0f);
    warm("edge", 0.1f, 0f);
    warm("high", 0.2f, 0f);
    miss();
    assertThat(names(r)).containsExactly("high", "edge");
  }

  @Test
  void belowThresholdOnlyMeansNoHint() {
    warm("low", 0.05f, 0f);
    assertThat(miss().outcome()).isEqualTo(Outcome.NONE);
  }

  @Test
  void isDisabledByAZeroMaxAge() {
    reopen(baseConfig().tenantHotMaxAgeNanos(0));
    warm("r1", 0.9f, 0f);
    assertThat(miss().outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void honoursAConfiguredMinimumHitRate() {
    reopen(baseConfig().tenantHotMinHitRate(0.6f));
    warm("r1", 0.5f, 0f);
    warm("r2", 0.6f, 0f);
    miss();
    assertThat(names(r)).containsExactly("r2");
  }

  @Test
  void requiresTheReplicaToServeTheRequestedScheme() {
    warm("r1", 0.3f, 0f);
    ingest(update("t", "m", "sglang", "r2").legacy("s", 64).stats(0.9f, 0f));
    miss();
    assertThat(names(r)).containsExactly("r1");
  }

  @Test
  void dropsAReplicaOnceItsLastInScopePrefixIsSwept() {
    ingest(update("t", "m", "vllm", "r1").at(T0 - minutes(29)).legacy("old", 64));
    ingest(update("t", "m", "vllm", "r1").stats(0.5f, 0f));
    warm("r2", 0.4f, 0f);
    miss();
    assertThat(names(r)).containsExactly("r1", "r2");
    clock.advance(2, TimeUnit.MINUTES);
    assertThat(index.sweepExpired()).isEqualTo(1);
    miss();
    assertThat(r.outcome()).isEqualTo(Outcome.TENANT_HOT);
    assertThat(names(r)).containsExactly("r2");
  }

  @Test
  void isIsolatedByTenant() {
    warm("r1", 0.9f, 0f);
    ingest(update("b", "m", "vllm", "rb").legacy("q", 64));
    route(exactReq("b", "m", "vllm", "novel", 64));
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void isIsolatedByModel() {
    warm("r1", 0.9f, 0f);
    ingest(update("t", "m2", "vllm", "r1").legacy("q", 64));
    route(exactReq("t", "m2", "vllm", "novel", 64));
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void emptyHashSchemeStaysNoHintEvenWithWarmStats() {
    warm("r1", 0.9f, 0f);
    route(exactReq("t", "m", "", "novel", 64));
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void chainBearingRequestsNeverUseTenantHot() {
    warm("r1", 0.9f, 0f);
    route(chainReq("t", "m", "vllm", 16, "x0", "x1"));
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void anExactHitShadowsTenantHot() {
    warm("r1", 0.9f, 0f);
    route(exactReq("t", "m", "vllm", "p-r1", 64));
    assertThat(r.outcome()).isEqualTo(Outcome.PREFIX_MATCH);
  }

  @Test
  void plainLookupHasNoFallback() {
    warm("r1", 0.9f, 0f);
    plain(exactReq("t", "m", "vllm", "novel", 64));
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void isNeverCreditedAsAnLfuHit() {
    policies.lfu.add("t");
    warm("r1", 0.9f, 0f);
    miss();
    assertThat(index.creditDelivered(r)).isZero();
    assertThat(count("t", "m", "vllm", "p-r1", "r1")).isZero();
  }
}
