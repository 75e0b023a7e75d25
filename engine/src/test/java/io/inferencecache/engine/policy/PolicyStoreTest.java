package io.inferencecache.engine.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.ToIntFunction;
import org.junit.jupiter.api.Test;

/**
 * The store's contract (docs/behaviour.md#eviction-quota and docs/behaviour.md#policy and
 * docs/behaviour.md#policy-resolution; 204–206, 214–216, 219, 224, 275–278, 280, 287–290).
 */
class PolicyStoreTest {

  private final PolicyStore store = new PolicyStore();

  private static PolicySnapshot policies(final PolicySpec... policies) {
    return new PolicySnapshot(PolicySnapshot.PROPAGATION_VERSION, List.of(policies), List.of());
  }

  private static PolicySnapshot tenants(final TenantSpec... tenants) {
    return new PolicySnapshot(PolicySnapshot.PROPAGATION_VERSION, List.of(), List.of(tenants));
  }

  private static PolicySpec.Builder policy(final String namespace) {
    return PolicySpec.builder(namespace);
  }

  private int id(final String name) {
    return store.interner().applyAsInt(name);
  }

  // --- defaults ---

  @Test
  void lookupReturnsDefaultsWhenUnset() {
    assertThat(store.resolve("team-a")).isSameAs(ResolvedPolicy.DEFAULTS);
    assertThat(store.resolve((String) null)).isSameAs(ResolvedPolicy.DEFAULTS);
    assertThat(store.resolve(id("team-a"))).isSameAs(ResolvedPolicy.DEFAULTS);
    assertThat(store.resolve(12_345)).isSameAs(ResolvedPolicy.DEFAULTS);
    assertThat(store.maxIndexEntries("team-a")).isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(store.maxIndexEntries((String) null)).isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(store.maxIndexEntries(id("team-a"))).isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(store.generation()).isZero();
    assertThat(store.current()).isEqualTo(PolicySnapshot.EMPTY);
  }

  @Test
  void namespaceWithoutPolicyGetsDefaultsWhileOthersHaveOne() {
    store.replace(policies(policy("team-a").minimumMatchedTokens(5).build()));
    assertThat(store.resolve("team-b")).isSameAs(ResolvedPolicy.DEFAULTS);
    assertThat(store.resolve("team-a").explicit()).isTrue();
  }

  // --- minimumMatchedTokens (204–206) ---

  @Test
  void minimumMatchedTokensFallsBackToDefaultWhenNoPolicy() {
    assertThat(store.resolve("team-a").minimumMatchedTokens()).isEqualTo(64);
  }

  @Test
  void minimumMatchedTokensRespectsPolicyValueIncludingZero() {
    store.replace(
        policies(
            policy("floor-256").minimumMatchedTokens(256).build(),
            policy("floor-0").minimumMatchedTokens(0).build(),
            policy("absent").build()));
    assertThat(store.resolve("floor-256").minimumMatchedTokens()).isEqualTo(256);
    assertThat(store.resolve("floor-0").minimumMatchedTokens()).isZero();
    assertThat(store.resolve("absent").minimumMatchedTokens()).isZero();
  }

  @Test
  void minimumMatchedTokensClampsNegativeToZero() {
    store.replace(policies(policy("team-a").minimumMatchedTokens(-1).build()));
    assertThat(store.resolve("team-a").minimumMatchedTokens()).isZero();
  }

  // --- routingFloorScore (275–278) ---

  @Test
  void routingFloorScoreFallsBackToDefaultWhenNoPolicy() {
    assertThat(store.resolve("team-a").routingFloorScore()).isEqualTo(0.1f);
  }

  @Test
  void routingFloorScoreRespectsPolicyValueIncludingZero() {
    store.replace(
        policies(
            policy("zero").routingFloorScore(0f).build(),
            policy("hundred").routingFloorScore(100f).build(),
            policy("half").routingFloorScore(0.5f).build()));
    assertThat(store.resolve("zero").routingFloorScore()).isZero();
    assertThat(store.resolve("hundred").routingFloorScore()).isEqualTo(100f);
    assertThat(store.resolve("half").routingFloorScore()).isEqualTo(0.5f);
  }

  @Test
  void routingFloorScoreNullFieldFallsBackToDefault() {
    store.replace(policies(policy("team-a").routingFloorScore(null).build()));
    assertThat(store.resolve("team-a").routingFloorScore()).isEqualTo(0.1f);
  }

  @Test
  void routingFloorScoreClampsNegativeToZero() {
    store.replace(policies(policy("team-a").routingFloorScore(-3f).build()));
    assertThat(store.resolve("team-a").routingFloorScore()).isZero();
  }

  // --- affinityRouting (224) ---

  @Test
  void affinityRoutingIsOnWithoutPolicyOrWhenAbsentAndOffWhenFalse() {
    store.replace(
        policies(
            policy("absent").build(),
            policy("on").affinityRouting(true).build(),
            policy("off").affinityRouting(false).build()));
    assertThat(store.resolve("no-policy").affinityRouting()).isTrue();
    assertThat(store.resolve("absent").affinityRouting()).isTrue();
    assertThat(store.resolve("on").affinityRouting()).isTrue();
    assertThat(store.resolve("off").affinityRouting()).isFalse();
  }

  // --- eviction (219) ---

  @Test
  void evictionIsReadableThroughTheResolver() {
    store.replace(
        policies(
            policy("lfu").eviction("lfu").build(),
            policy("upper").eviction("LFU").build(),
            policy("lru").eviction("lru").build(),
            policy("empty").eviction("").build(),
            policy("bogus").eviction("bogus").build()));
    assertThat(store.resolve("lfu").eviction()).isEqualTo(EvictionAlgorithm.LFU);
    assertThat(store.resolve("upper").eviction()).isEqualTo(EvictionAlgorithm.LFU);
    assertThat(store.resolve("lru").eviction()).isEqualTo(EvictionAlgorithm.LRU);
    assertThat(store.resolve("empty").eviction()).isEqualTo(EvictionAlgorithm.LRU);
    assertThat(store.resolve("bogus").eviction()).isEqualTo(EvictionAlgorithm.LRU);
    assertThat(store.resolve("no-policy").eviction()).isEqualTo(EvictionAlgorithm.LRU);
  }

  // --- replace (214–216, docs/behaviour.md#policy) ---

  @Test
  void replaceIsAtomicAndDropsStaleNamespaces() {
    store.replace(
        new PolicySnapshot(
            7,
            List.of(
                policy("team-a").minimumPrefixTokens(16).build(),
                policy("team-b").minimumPrefixTokens(32).build()),
            List.of(TenantSpec.of("team-a", 10))));
    final long first = store.generation();

    store.replace(policies(policy("team-b").minimumPrefixTokens(64).build()));

    assertThat(store.generation()).isEqualTo(first + 1);
    assertThat(store.resolve("team-a")).isSameAs(ResolvedPolicy.DEFAULTS);
    assertThat(store.resolve(id("team-a"))).isSameAs(ResolvedPolicy.DEFAULTS);
    assertThat(store.resolve("team-b").minimumPrefixTokens()).isEqualTo(64);
    assertThat(store.maxIndexEntries("team-a")).isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(store.current().policies())
        .extracting(PolicySpec::namespace)
        .containsExactly("team-b");
    assertThat(store.current().tenants()).isEmpty();
  }

  @Test
  void replaceDropsEmptyAndNullNamespace() {
    store.replace(
        policies(
            policy("").minimumPrefixTokens(9).build(),
            policy(null).minimumPrefixTokens(9).build(),
            policy("team-a").build()));
    assertThat(store.resolve("")).isSameAs(ResolvedPolicy.DEFAULTS);
    assertThat(store.current().policies())
        .extracting(PolicySpec::namespace)
        .containsExactly("team-a");
  }

  @Test
  void duplicateNamespaceLastEntryWins() {
    store.replace(
        policies(
            policy("team-a").minimumPrefixTokens(1).build(),
            policy("team-b").minimumPrefixTokens(2).build(),
            policy("team-a").minimumPrefixTokens(3).build()));
    assertThat(store.resolve("team-a").minimumPrefixTokens()).isEqualTo(3);
    assertThat(store.resolve(id("team-a")).minimumPrefixTokens()).isEqualTo(3);
    assertThat(store.current().policies())
        .containsExactly(
            policy("team-b").minimumPrefixTokens(2).build(),
            policy("team-a").minimumPrefixTokens(3).build());
  }

  @Test
  void replaceStoresTheVersionAndEveryFieldAsGiven() {
    final PolicySnapshot given =
        new PolicySnapshot(
            5,
            List.of(
                policy("team-a")
                    .evictionTTLNanos(900_000_000_000L)
                    .minimumPrefixTokens(-2)
                    .minimumMatchedTokens(-4)
                    .routingFloorScore(-1f)
                    .lookupTimeoutMs(25)
                    .eviction("LFU")
                    .build()),
            List.of(new TenantSpec("team-a", 7, "Fairness")));
    store.replace(given);
    assertThat(store.current()).isEqualTo(given);
  }

  // --- tenants (287–290, 280) ---

  @Test
  void roundTripCarriesPoliciesAndTenants() {
    final PolicySnapshot given =
        new PolicySnapshot(
            7,
            List.of(policy("team-a").minimumPrefixTokens(16).build()),
            List.of(new TenantSpec("team-a", 1000, "Fairness"), TenantSpec.of("team-b", 0)));
    store.replace(given);

    assertThat(store.resolve("team-a").explicit()).isTrue();
    assertThat(store.resolve("team-a").minimumPrefixTokens()).isEqualTo(16);
    assertThat(store.maxIndexEntries("team-a")).isEqualTo(1000);
    assertThat(store.maxIndexEntries("team-b")).as("0 is an enforced cap").isZero();
    assertThat(store.maxIndexEntries("team-z")).isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(store.current()).isEqualTo(given);
  }

  @Test
  void removedTenantRevertsToUnbounded() {
    store.replace(tenants(TenantSpec.of("team-a", 5)));
    assertThat(store.maxIndexEntries("team-a")).isEqualTo(5);
    store.replace(tenants());
    assertThat(store.maxIndexEntries("team-a")).isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(store.maxIndexEntries(id("team-a"))).isEqualTo(PolicyStore.UNBOUNDED);
  }

  @Test
  void emptyTenantIdIsDropped() {
    store.replace(tenants(TenantSpec.of("", 5), TenantSpec.of(null, 5)));
    assertThat(store.maxIndexEntries("")).isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(store.current().tenants()).isEmpty();
  }

  @Test
  void negativeBudgetIsClampedToAnEnforcedZero() {
    store.replace(tenants(new TenantSpec("team-a", -1, "Fairness")));
    assertThat(store.maxIndexEntries("team-a")).isZero();
    assertThat(store.maxIndexEntries(id("team-a"))).isZero();
    assertThat(store.current().tenants()).containsExactly(new TenantSpec("team-a", 0, "Fairness"));
  }

  @Test
  void duplicateTenantIdLastEntryWins() {
    store.replace(
        tenants(
            TenantSpec.of("team-a", 1), TenantSpec.of("team-b", 2), TenantSpec.of("team-a", -3)));
    assertThat(store.maxIndexEntries("team-a")).isZero();
    assertThat(store.maxIndexEntries(id("team-a"))).isZero();
    assertThat(store.current().tenants())
        .containsExactly(TenantSpec.of("team-b", 2), TenantSpec.of("team-a", 0));
  }

  @Test
  void probeTenantIsAlwaysQuotaExempt() {
    assertThat(PolicyStore.RESERVED_PROBE_TENANT).isEqualTo("inferencecache.io/probe");
    store.replace(tenants(TenantSpec.of(PolicyStore.RESERVED_PROBE_TENANT, 0)));
    assertThat(store.maxIndexEntries(PolicyStore.RESERVED_PROBE_TENANT))
        .isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(store.maxIndexEntries(id(PolicyStore.RESERVED_PROBE_TENANT)))
        .isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(store.current().tenants())
        .containsExactly(TenantSpec.of(PolicyStore.RESERVED_PROBE_TENANT, 0));
  }

  // --- int-keyed reads ---

  @Test
  void intKeyedReadsAgreeWithNameKeyedReads() {
    final List<PolicySpec> specs = new ArrayList<>();
    final List<TenantSpec> quotas = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      specs.add(
          policy("ns-" + i)
              .minimumPrefixTokens(i)
              .minimumMatchedTokens(i % 3 == 0 ? -i : i)
              .routingFloorScore(i % 2 == 0 ? null : (float) i)
              .eviction(i % 4 == 0 ? "lfu" : "lru")
              .build());
      quotas.add(TenantSpec.of("ns-" + i, i % 5 == 0 ? -i : i * 10L));
    }
    quotas.add(TenantSpec.of(PolicyStore.RESERVED_PROBE_TENANT, 3));
    store.replace(new PolicySnapshot(7, specs, quotas));

    final List<String> names = new ArrayList<>();
    for (int i = 0; i < 120; i++) {
      names.add("ns-" + i);
    }
    names.add(PolicyStore.RESERVED_PROBE_TENANT);
    for (final String name : names) {
      assertThat(store.resolve(id(name))).as(name).isSameAs(store.resolve(name));
      assertThat(store.maxIndexEntries(id(name))).as(name).isEqualTo(store.maxIndexEntries(name));
    }
  }

  @Test
  void suppliedInternerKeysTheIntReadsAndNegativeIdsAreNameOnly() {
    final Map<String, Integer> ids = new HashMap<>();
    ids.put("team-a", 7);
    ids.put("team-b", 1_000_000);
    final AtomicInteger calls = new AtomicInteger();
    final ToIntFunction<String> interner =
        name -> {
          calls.incrementAndGet();
          return ids.getOrDefault(name, -1);
        };
    final PolicyStore custom = new PolicyStore(interner);
    custom.replace(
        new PolicySnapshot(
            7,
            List.of(
                policy("team-a").minimumPrefixTokens(1).build(),
                policy("team-b").minimumPrefixTokens(2).build(),
                policy("no-id").minimumPrefixTokens(3).build()),
            List.of(TenantSpec.of("team-a", 11), TenantSpec.of("no-id", 33))));

    assertThat(custom.interner()).isSameAs(interner);
    assertThat(custom.resolve(7).minimumPrefixTokens()).isEqualTo(1);
    assertThat(custom.resolve(1_000_000).minimumPrefixTokens()).isEqualTo(2);
    assertThat(custom.maxIndexEntries(7)).isEqualTo(11);
    assertThat(custom.resolve("no-id").minimumPrefixTokens()).isEqualTo(3);
    assertThat(custom.maxIndexEntries("no-id")).isEqualTo(33);
    assertThat(custom.resolve(-1)).isSameAs(ResolvedPolicy.DEFAULTS);
    assertThat(custom.maxIndexEntries(-1)).isEqualTo(PolicyStore.UNBOUNDED);
    assertThat(calls.get()).as("one call per namespace and tenant ID").isEqualTo(5);
  }

  @Test
  void readsDoNotAllocate() {
    final java.lang.management.ThreadMXBean bean = ManagementFactory.getThreadMXBean();
    assumeTrue(bean instanceof com.sun.management.ThreadMXBean);
    final com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) bean;
    assumeTrue(
        threads.isThreadAllocatedMemorySupported() && threads.isThreadAllocatedMemoryEnabled());

    store.replace(
        new PolicySnapshot(
            7,
            List.of(policy("team-a").minimumPrefixTokens(16).build()),
            List.of(TenantSpec.of("team-a", 10))));
    final int idA = id("team-a");
    final int idB = id("team-b");

    long sink = 0;
    for (int i = 0; i < 20_000; i++) {
      sink += readAll(idA, idB);
    }
    final long before = threads.getCurrentThreadAllocatedBytes();
    for (int i = 0; i < 100_000; i++) {
      sink += readAll(idA, idB);
    }
    final long allocated = threads.getCurrentThreadAllocatedBytes() - before;

    assertThat(sink).isNotZero();
    // One allocation per read would be megabytes; allow only the measurement's own noise.
    assertThat(allocated).isLessThan(8 * 1024);
  }

  private long readAll(final int idA, final int idB) {
    return store.resolve(idA).minimumPrefixTokens()
        + store.resolve(idB).minimumMatchedTokens()
        + store.maxIndexEntries(idA)
        + store.maxIndexEntries(idB)
        + store.resolve("team-a").lookupTimeoutMs()
        + store.resolve("team-b").minimumPrefixTokens()
        + store.maxIndexEntries("team-a")
        + store.maxIndexEntries("team-b");
  }

  // --- generation and listeners ---

  @Test
  void generationCountsReplaces() {
    assertThat(store.replace(PolicySnapshot.EMPTY)).isEqualTo(1);
    assertThat(store.replace(PolicySnapshot.EMPTY)).isEqualTo(2);
    assertThat(store.generation()).isEqualTo(2);
  }

  @Test
  void listenersRunAfterEachReplaceAndSeeTheNewSnapshot() {
    final List<Long> seen = new ArrayList<>();
    final List<Integer> floors = new ArrayList<>();
    final Runnable listener =
        () -> {
          seen.add(store.generation());
          floors.add(store.resolve("team-a").minimumMatchedTokens());
        };
    store.addListener(listener);

    store.replace(policies(policy("team-a").minimumMatchedTokens(5).build()));
    store.replace(policies());
    assertThat(store.removeListener(listener)).isTrue();
    store.replace(policies());

    assertThat(seen).containsExactly(1L, 2L);
    assertThat(floors).containsExactly(5, 64);
  }

  @Test
  void failingListenerDoesNotStopOthersAndTheReplaceStands() {
    final AtomicInteger ran = new AtomicInteger();
    store.addListener(
        () -> {
          throw new IllegalStateException("first");
        });
    store.addListener(ran::incrementAndGet);
    store.addListener(
        () -> {
          throw new IllegalArgumentException("second");
        });

    assertThatThrownBy(() -> store.replace(policies(policy("team-a").build())))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("first")
        .satisfies(e -> assertThat(e.getSuppressed()).hasSize(1));
    assertThat(ran.get()).isEqualTo(1);
    assertThat(store.resolve("team-a").explicit()).isTrue();
    assertThat(store.generation()).isEqualTo(1);
  }
}
