package io.inferencecache.engine;

import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.pd.PdTopologyStore;
import io.inferencecache.engine.policy.PolicyStore;
import org.agrona.concurrent.EpochNanoClock;

/**
 * Everything the read side ({@link Lookups}, {@link LookupRouter}) and the write side ({@link
 * IndexWriter}) of one {@link CacheIndex} share: its config and clock, the ids ({@link
 * PartitionRegistry}), the counts ({@link SecondaryCounts}), the storage ({@link IndexStorage}),
 * the policies, the P/D topologies and the {@link LfuCounters}. Built once per open, before any
 * thread starts; the fields never change (what they point at is mutated by the writer only, see
 * design.md §3).
 *
 * <p>Its users copy the fields they need into their own final fields, so the lookup loop reads them
 * with no more indirection than before.
 */
final class EngineState {
  final IndexConfig config;
  final EpochNanoClock clock;
  final PartitionRegistry registry;
  final StringDictionary dict;
  final SecondaryCounts counts;
  final IndexStorage storage;
  final PolicyStore policyStore;
  final PdTopologyStore pdTopologyStore;

  /** Whether {@link #lfuCounters} reads {@link #policyStore} (the config supplied no policies). */
  final boolean policiesFromStore;

  /** The tenants' policies as the index applies them, and which entries carry an LFU counter. */
  final LfuCounters lfuCounters;

  private final long defaultTtlNanos;

  EngineState(final IndexConfig config) {
    this.config = config;
    this.clock = config.clock();
    this.registry = new PartitionRegistry();
    this.dict = registry.dictionary();
    this.counts = new SecondaryCounts(registry);
    this.storage = new IndexStorage(config, registry, counts);
    this.policyStore = new PolicyStore(dict::intern);
    this.pdTopologyStore = new PdTopologyStore(dict::intern);
    this.policiesFromStore = config.policies() == TenantPolicies.DEFAULTS;
    this.lfuCounters =
        new LfuCounters(
            policiesFromStore ? new PolicyBackedTenantPolicies(policyStore) : config.policies(),
            registry,
            counts,
            storage);
    this.defaultTtlNanos = config.defaultTtlNanos();
  }

  /** The TTL of {@code tenant}'s entries: its policy's, else the configured default. */
  long ttlNanosOf(final int tenant) {
    final long t = lfuCounters.ttlNanos(tenant);
    return t > 0 ? t : defaultTtlNanos;
  }
}
