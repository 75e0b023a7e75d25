package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * LookupRoute's index part and miss classification (docs/behaviour.md#lookup-route and
 * docs/behaviour.md#miss-classification, docs/behaviour.md#miss-classification; checklist 29–46,
 * 94).
 */
class MissClassificationTest extends IndexTestSupport {

  private Outcome outcome(final String tenant, final String model, final String scheme) {
    return route(exactReq(tenant, model, scheme, "novel", 64)).outcome();
  }

  private void populate() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 64));
  }

  @Test
  void classifiesUnknownTenantWhenIndexHasData() {
    populate();
    assertThat(outcome("other", "m", "vllm")).isEqualTo(Outcome.UNKNOWN_TENANT);
    assertThat(r.size()).isZero();
  }

  @Test
  void classifiesUnknownModelForAKnownTenant() {
    populate();
    assertThat(outcome("t", "other", "vllm")).isEqualTo(Outcome.UNKNOWN_MODEL);
    assertThat(r.size()).isZero();
  }

  @Test
  void classifiesUnknownHashSchemeForAKnownTenantAndModel() {
    populate();
    assertThat(outcome("t", "m", "sglang")).isEqualTo(Outcome.UNKNOWN_HASH_SCHEME);
    assertThat(r.size()).isZero();
  }

  @Test
  void outermostUnknownWins() {
    populate();
    assertThat(outcome("other", "other", "other")).isEqualTo(Outcome.UNKNOWN_TENANT);
    assertThat(outcome("t", "other", "other")).isEqualTo(Outcome.UNKNOWN_MODEL);
  }

  @Test
  void novelPrefixInAPopulatedScopeIsNoHint() {
    populate();
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.NONE);
  }

  @Test
  void emptyHashSchemeIsNoHintNotUnknownHashScheme() {
    populate();
    assertThat(outcome("t", "m", "")).isEqualTo(Outcome.NONE);
  }

  @Test
  void coldStartIsNoHintForAnyTenant() {
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.NONE);
    assertThat(outcome("other", "x", "y")).isEqualTo(Outcome.NONE);
    // stats alone are no prefix keys: still cold
    ingest(update("t", "m", "vllm", "r1").stats(0.9f, 0f));
    assertThat(outcome("other", "m", "vllm")).isEqualTo(Outcome.NONE);
  }

  @Test
  void unknownTenantOnlyOnceTheIndexHasData() {
    assertThat(outcome("other", "m", "vllm")).isEqualTo(Outcome.NONE);
    populate();
    assertThat(outcome("other", "m", "vllm")).isEqualTo(Outcome.UNKNOWN_TENANT);
  }

  @Test
  void coldStartCountsTheReservedProbeTenantsKeys() {
    ingest(update(CacheIndex.RESERVED_TENANT, "m", "vllm", "__probe-a").legacy("p", 16));
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.UNKNOWN_TENANT);
  }

  @Test
  void dataUnderTheEmptyTenantIsNotServedToAnEmptyTenantLookup() {
    ingest(update("", "m", "vllm", "r1").legacy("p", 64));
    route(exactReq("", "m", "vllm", "p", 64));
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void dataUnderTheEmptyModelIsNotServedToAnEmptyModelLookup() {
    ingest(update("t", "", "vllm", "r1").legacy("p", 64));
    route(exactReq("t", "", "vllm", "p", 64));
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
  }

  @Test
  void emptyTenantIsNoHintNotUnknownTenant() {
    populate();
    assertThat(outcome("", "m", "vllm")).isEqualTo(Outcome.NONE);
  }

  @Test
  void emptyModelIsNoHintNotUnknownModel() {
    populate();
    assertThat(outcome("t", "", "vllm")).isEqualTo(Outcome.NONE);
  }

  @Test
  void tenantHotIsNotShadowedByTheClassifier() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 64).stats(0.5f, 0f));
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.TENANT_HOT);
  }

  @Test
  void chainBearingMissIsDiagnosed() {
    populate();
    assertThat(route(chainReq("t", "m", "sglang", 16, "b0")).outcome())
        .isEqualTo(Outcome.UNKNOWN_HASH_SCHEME);
    assertThat(route(chainReq("t", "other", "vllm", 16, "b0")).outcome())
        .isEqualTo(Outcome.UNKNOWN_MODEL);
    assertThat(route(chainReq("x", "m", "vllm", 16, "b0")).outcome())
        .isEqualTo(Outcome.UNKNOWN_TENANT);
    assertThat(route(chainReq("t", "m", "vllm", 16, "b0")).outcome()).isEqualTo(Outcome.NONE);
  }

  @Test
  void malformedChainIsNoHintNeverUnknown() {
    populate();
    assertThat(route(chainReq("x", "m", "vllm", 16, "b0").addBlockTokenCount(1)).outcome())
        .isEqualTo(Outcome.NONE);
  }

  @Test
  void mapsPrefixMatchTenantHotAndFullMissToTheirStrategies() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 64).stats(0.5f, 0f));
    ingest(update("t2", "m", "vllm", "r2").legacy("p2", 64));
    assertThat(route(exactReq("t", "m", "vllm", "p1", 64)).outcome())
        .isEqualTo(Outcome.PREFIX_MATCH);
    assertThat(route(exactReq("t", "m", "vllm", "nope", 64)).outcome())
        .isEqualTo(Outcome.TENANT_HOT);
    assertThat(route(exactReq("t2", "m", "vllm", "nope", 64)).outcome()).isEqualTo(Outcome.NONE);
    assertThat(Outcome.PREFIX_MATCH.reasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(Outcome.TENANT_HOT.reasonCode()).isEqualTo("TENANT_HOT");
    assertThat(Outcome.NONE.reasonCode()).isEqualTo("NO_HINT");
    assertThat(Outcome.UNKNOWN_TENANT.reasonCode()).isEqualTo("UNKNOWN_TENANT");
    assertThat(Outcome.UNKNOWN_MODEL.reasonCode()).isEqualTo("UNKNOWN_MODEL");
    assertThat(Outcome.UNKNOWN_HASH_SCHEME.reasonCode()).isEqualTo("UNKNOWN_HASH_SCHEME");
  }

  // Presence (upstream hasAnyForTenant / TenantModel / TenantModelScheme), observed through the
  // classifier and GetCacheState: the index has no separate presence API.

  @Test
  void reportsTenantPresenceIffTheTenantHasAnyPrefixKey() {
    ingest(update("t", "m", "vllm", "r1").stats(0.5f, 0f)); // stats, no keys
    ingest(update("u", "m", "vllm", "r1").legacy("p", 64));
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.UNKNOWN_TENANT);
    ingest(update("t", "m2", "sglang", "r1").legacy("p", 64));
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.UNKNOWN_MODEL);
  }

  @Test
  void reportsTenantModelPresenceIffThePairHasAnyPrefixKey() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("t", "m2", "vllm", "r1").stats(0.5f, 0f));
    assertThat(outcome("t", "m2", "vllm")).isEqualTo(Outcome.UNKNOWN_MODEL);
    assertThat(index.cacheState("t", "m2").totalPrefixes()).isZero();
    ingest(update("t", "m2", "sglang", "r1").legacy("p", 64));
    assertThat(outcome("t", "m2", "vllm")).isEqualTo(Outcome.UNKNOWN_HASH_SCHEME);
    assertThat(index.cacheState("t", "m2").totalPrefixes()).isEqualTo(1);
  }

  @Test
  void reportsScopePresenceIffTheScopeHasAnyPrefixKey() {
    ingest(update("t", "m", "sglang", "r1").legacy("p", 64));
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.UNKNOWN_HASH_SCHEME);
    ingest(update("t", "m", "vllm", "r2").adapter("lora").legacy("q", 64));
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.NONE);
  }

  @Test
  void removingTheLastHolderFlipsPresenceBack() {
    ingest(update("keep", "m", "vllm", "r0").legacy("k", 64));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r2").legacy("p", 64));
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.NONE);
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p", ""));
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.NONE);
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r2", "p", ""));
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.UNKNOWN_TENANT);
    assertThat(index.cacheState("t", "m").totalPrefixes()).isZero();
    // and through the TTL sweep
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("t", "m2", "vllm", "r1").legacy("p", 64));
    clock.advance(20, TimeUnit.MINUTES);
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("keep", "m", "vllm", "r0").legacy("k", 64));
    clock.advance(15, TimeUnit.MINUTES);
    index.sweepExpired();
    assertThat(outcome("t", "m2", "vllm")).isEqualTo(Outcome.UNKNOWN_MODEL);
    assertThat(outcome("t", "m", "vllm")).isEqualTo(Outcome.NONE);
  }
}
