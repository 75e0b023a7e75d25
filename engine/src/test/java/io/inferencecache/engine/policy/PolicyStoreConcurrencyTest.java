package io.inferencecache.engine.policy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Readers racing a writer that flips between two snapshots never see a mix of them 217). In
 * snapshot {@code v} every checked field of namespace {@code a} and tenant {@code a} is derived
 * from {@code v}, and namespace {@code only-in-1} exists only in snapshot 1.
 */
class PolicyStoreConcurrencyTest {

  private static final int READERS = 2;
  private static final int MIN_READS = 50_000;
  private static final long DEADLINE_NANOS = TimeUnit.SECONDS.toNanos(30);

  private static PolicySnapshot snapshot(final int v) {
    final List<PolicySpec> policies = new ArrayList<>();
    policies.add(
        PolicySpec.builder("a")
            .evictionTTLNanos(v * 1_000_000_000L)
            .minimumPrefixTokens(v)
            .minimumMatchedTokens(v)
            .routingFloorScore((float) v)
            .lookupTimeoutMs(v)
            .affinityRouting(v == 1)
            .eviction(v == 1 ? "lfu" : "lru")
            .strategy(new StrategySpec(v == 1, v == 1, v == 1))
            .build());
    if (v == 1) {
      policies.add(PolicySpec.builder("only-in-1").minimumPrefixTokens(1).build());
    }
    return new PolicySnapshot(7, policies, List.of(TenantSpec.of("a", v)));
  }

  /** The value {@code v} the policy was built from, or a failure message if its fields disagree. */
  private static String check(final ResolvedPolicy p, final String via) {
    final int v = p.minimumPrefixTokens();
    final boolean one = v == 1;
    if ((v != 1 && v != 2)
        || p.minimumMatchedTokens() != v
        || p.lookupTimeoutMs() != v
        || p.routingFloorScore() != (float) v
        || p.ttlNanos() != v * 1_000_000_000L
        || p.affinityRouting() != one
        || p.eviction() != (one ? EvictionAlgorithm.LFU : EvictionAlgorithm.LRU)
        || p.enableChainMatching() != one
        || p.requireChain() != one
        || p.enableTenantHot() != one) {
      return "torn " + via + ": " + p;
    }
    return null;
  }

  private static String check(final PolicySnapshot s) {
    final PolicySpec a = s.policies().get(0);
    final int v = a.minimumPrefixTokens();
    if (a.minimumMatchedTokens() != v
        || s.tenants().size() != 1
        || s.tenants().get(0).maxIndexEntries() != v
        || s.policies().size() != (v == 1 ? 2 : 1)) {
      return "torn current(): " + s;
    }
    return null;
  }

  @Test
  @Timeout(value = 60, unit = TimeUnit.SECONDS)
  void concurrentReadersNeverSeeATornSnapshot() throws InterruptedException {
    final PolicyStore store = new PolicyStore();
    final PolicySnapshot one = snapshot(1);
    final PolicySnapshot two = snapshot(2);
    store.replace(one);
    final int idA = store.interner().applyAsInt("a");

    final AtomicBoolean stop = new AtomicBoolean();
    final Queue<String> failures = new ConcurrentLinkedQueue<>();
    final boolean[][] seen = new boolean[READERS][3];

    final Thread writer =
        new Thread(
            () -> {
              while (!stop.get()) {
                store.replace(two);
                store.replace(one);
              }
            },
            "policy-writer");

    final List<Thread> readers = new ArrayList<>();
    for (int r = 0; r < READERS; r++) {
      final boolean[] mine = seen[r];
      readers.add(
          new Thread(
              () -> {
                final long deadline = System.nanoTime() + DEADLINE_NANOS;
                for (int i = 0; ; i++) {
                  final ResolvedPolicy byName = store.resolve("a");
                  final ResolvedPolicy byId = store.resolve(idA);
                  final PolicySnapshot current = store.current();
                  final long quota = store.maxIndexEntries(idA);
                  for (final String failure :
                      new String[] {
                        check(byName, "resolve(String)"),
                        check(byId, "resolve(int)"),
                        check(current)
                      }) {
                    if (failure != null) {
                      failures.add(failure);
                    }
                  }
                  if (quota != 1 && quota != 2) {
                    failures.add("quota " + quota);
                  }
                  mine[byName.minimumPrefixTokens()] = true;
                  mine[byId.minimumPrefixTokens()] = true;
                  if (!failures.isEmpty()
                      || (i >= MIN_READS && mine[1] && mine[2])
                      || System.nanoTime() > deadline) {
                    return;
                  }
                }
              },
              "policy-reader-" + r));
    }

    writer.start();
    readers.forEach(Thread::start);
    for (final Thread reader : readers) {
      reader.join();
    }
    stop.set(true);
    writer.join();

    assertThat(failures).isEmpty();
    for (int r = 0; r < READERS; r++) {
      assertThat(seen[r][1] && seen[r][2]).as("reader %d saw both snapshots", r).isTrue();
    }
    assertThat(store.generation()).isGreaterThan(2);
  }
}
