package io.inferencecache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * Base of the index behaviour tests: a manual clock, settable tenant policies, a recording
 * listener, and an index opened before each test (reopen with another config through {@link
 * #reopen}). After each test every index still open must pass {@link CacheIndex#verifyCounts()}.
 */
abstract class IndexTestSupport {
  protected final IndexFixtures.ManualClock clock = new IndexFixtures.ManualClock();
  protected final IndexFixtures.TestPolicies policies = new IndexFixtures.TestPolicies();
  protected final IndexFixtures.RecordingListener listener = new IndexFixtures.RecordingListener();
  protected final LookupResult r = new LookupResult();
  protected CacheIndex index;
  private final List<CacheIndex> opened = new ArrayList<>();

  /** The configuration every test starts from (small cap, manual clock, test policies). */
  protected IndexConfig baseConfig() {
    return new IndexConfig()
        .maxEntries(10_000)
        .reservedCapacity(1024)
        .clock(clock)
        .policies(policies)
        .listener(listener);
  }

  @BeforeEach
  void openIndex() {
    index = open(baseConfig());
  }

  /**
   * Opens another index (closed after the test), binds the test policies to it and lets their LFU
   * tenants take effect.
   */
  protected CacheIndex open(final IndexConfig config) {
    final CacheIndex i = CacheIndex.open(config);
    opened.add(i);
    if (config.policies() == policies) {
      policies.bind(i);
      i.syncLfuCounters(); // what the started index's agent does once the policies are known
    }
    return i;
  }

  /** Closes the current index and replaces it with one opened from {@code config}. */
  protected CacheIndex reopen(final IndexConfig config) {
    index.close();
    opened.remove(index);
    index = open(config);
    return index;
  }

  /**
   * Replaces the index with one that applies its own {@link CacheIndex#policyStore()} (the
   * production wiring through {@link PolicyBackedTenantPolicies}) and returns that store.
   */
  protected io.inferencecache.engine.policy.PolicyStore reopenWithPolicyStore(
      final IndexConfig config) {
    reopen(config.policies(TenantPolicies.DEFAULTS));
    return index.policyStore();
  }

  protected static io.inferencecache.engine.policy.PolicySnapshot snapshotOf(
      final List<io.inferencecache.engine.policy.PolicySpec> policies,
      final List<io.inferencecache.engine.policy.TenantSpec> tenants) {
    return new io.inferencecache.engine.policy.PolicySnapshot(
        io.inferencecache.engine.policy.PolicySnapshot.PROPAGATION_VERSION, policies, tenants);
  }

  /** Routes the exact key and credits the delivered result {@code times} times. */
  protected int hit(final String tenant, final String hash, final int times) {
    int credited = 0;
    for (int i = 0; i < times; i++) {
      index.lookupAndClassify(IndexFixtures.exactReq(tenant, "m", "vllm", hash, 0), r);
      credited += index.creditDelivered(r);
    }
    return credited;
  }

  @AfterEach
  void verifyAndClose() {
    try {
      for (CacheIndex i : opened) {
        if (!isClosed(i)) {
          assertThat(i.verifyCounts()).as("secondary counts").isEmpty();
        }
      }
    } finally {
      for (CacheIndex i : opened) {
        i.close();
      }
    }
  }

  private static boolean isClosed(final CacheIndex i) {
    try {
      i.snapshot();
      return false;
    } catch (IllegalStateException e) {
      return true;
    }
  }

  // --- shorthands ---

  protected void ingest(final IndexFixtures.UpdateBuilder u) {
    index.ingest(u.build());
  }

  protected LookupResult route(final LookupRequest q) {
    index.lookupAndClassify(q, r);
    return r;
  }

  protected LookupResult plain(final LookupRequest q) {
    index.lookup(q, r);
    return r;
  }

  protected List<String> names(final LookupResult res) {
    return IndexFixtures.replicas(index, res);
  }

  /** Whether the storage entry exists (stale or not), asked through its LFU counter. */
  protected boolean present(
      final String tenant,
      final String model,
      final String scheme,
      final String adapter,
      final String hash,
      final String replica) {
    return index.accessCount(tenant, model, scheme, adapter, IndexFixtures.h(hash), replica) >= 0;
  }

  protected boolean present(final String hash, final String replica) {
    return present("t", "m", "vllm", "", hash, replica);
  }

  protected long count(
      final String tenant,
      final String model,
      final String scheme,
      final String hash,
      final String replica) {
    return index.accessCount(tenant, model, scheme, "", IndexFixtures.h(hash), replica);
  }
}
