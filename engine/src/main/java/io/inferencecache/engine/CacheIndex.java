package io.inferencecache.engine;

import io.inferencecache.engine.internal.AppliedSequence;
import io.inferencecache.engine.internal.CounterArena;
import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunCursor;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.ScopeState;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.EpochNanoClock;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache-state index: which replicas hold which KV-cache prefix blocks, per (tenant, model, hash
 * scheme, adapter), with the upstream ranking, fallbacks, miss diagnostics, TTL, global cap,
 * per-tenant quotas and LFU accounting. See engine/docs/design.md.
 *
 * <p><b>Parts.</b> This class is the public facade: it owns the life cycle, the writer lock and the
 * lookups' entry points, and delegates to package-private parts that each own one thing ({@code
 * IndexStorage}, {@code PartitionRegistry}, {@code SecondaryCounts}, {@code IndexChanges}, {@code
 * Ingester}, {@code Evictor}, {@code VictimOrder}, {@code TtlSweeper}, {@code Aggregates}, {@code
 * Lookups}; design.md §3).
 *
 * <p><b>Threads.</b> Lookups ({@link #lookup}, {@link #lookupRoute}, {@link #affinityHint}, {@link
 * #creditDelivered}) run on any number of threads, take no lock of this class and allocate nothing
 * once their {@link LookupResult} is warm; they hold one Chronicle segment read lock per key read,
 * for the time of a small copy. Mutations ({@link #ingest}, {@link #applyEvent}, {@link
 * #sweepExpired}) are serialized by one writer lock; the TTL sweep releases it between segments.
 *
 * <p><b>Fail-safety.</b> No expected outcome throws: a full map evicts, an oversize hash is counted
 * and skipped, a lookup for unknown keys is a miss.
 */
public final class CacheIndex implements AutoCloseable {
  /** The reserved probe tenant: hidden from cap, quotas, aggregates and gauges. */
  public static final String RESERVED_TENANT = "inferencecache.io/probe";

  /**
   * Version of the persisted layout (3: runs only, block locations in the heap directory). A file
   * of version 2 (runs plus a locator entry per later block) is migrated on open: its locator
   * entries are removed. A file of any other version is set aside.
   */
  public static final int LAYOUT_VERSION = 3;

  /** The earlier layout a file is migrated from on open. */
  public static final int MIGRATED_LAYOUT_VERSION = 2;

  private static final Logger LOG = LoggerFactory.getLogger(CacheIndex.class);

  private final IndexConfig config;
  private final EpochNanoClock clock;
  private final LfuCounters policies;
  private final boolean policiesFromStore;
  private final io.inferencecache.engine.policy.PolicyStore policyStore;

  private final PartitionRegistry registry = new PartitionRegistry();
  private final StringDictionary dict = registry.dictionary();
  private final SecondaryCounts counts = new SecondaryCounts(registry);
  private final IndexStorage storage;
  private final Ingester ingester;
  private final EventApplier events;
  private final TtlSweeper sweeper;
  private final Aggregates aggregates;

  private final ReentrantLock writeLock = new ReentrantLock();
  private final AppliedSequence appliedSequence = new AppliedSequence();
  private final Lookups lookups;
  private volatile boolean ready;
  private volatile boolean closed;
  private AgentRunner sweeperRunner;

  private CacheIndex(final IndexConfig config) {
    this.config = config;
    this.clock = config.clock();
    this.policyStore = new io.inferencecache.engine.policy.PolicyStore(dict::intern);
    this.policiesFromStore = config.policies() == TenantPolicies.DEFAULTS;
    this.storage = new IndexStorage(config, registry, counts);
    this.policies =
        new LfuCounters(
            policiesFromStore ? new PolicyBackedTenantPolicies(policyStore) : config.policies(),
            registry,
            counts,
            storage);
    final IndexChanges changes = new IndexChanges(registry, counts, storage, config.listener());
    final Evictor evictor = new Evictor(config, policies, registry, counts, storage, changes);
    this.ingester = new Ingester(config, registry, counts, storage, changes, evictor, policies);
    this.events = new EventApplier(config, registry, counts, storage, changes);
    this.sweeper =
        new TtlSweeper(
            config, policies, registry, counts, storage, changes, writeLock, () -> closed);
    this.aggregates = new Aggregates(registry, counts, storage);
    this.lookups = new Lookups(this);
  }

  /**
   * Opens an index. A persisted file is reopened with every entry, timestamp and LFU count; a file
   * that is corrupt or of another layout is moved aside (logged) and the index starts empty.
   */
  public static CacheIndex open(final IndexConfig config) {
    config.conclude();
    final CacheIndex index = new CacheIndex(config);
    try {
      index.openStorage();
      return index;
    } catch (IndexStorage.CorruptIndexException e) {
      // Set the unusable file aside and start over on a fresh object: nothing of the failed
      // attempt (dictionary, partitions, counts) survives.
      IndexStorage.setAside(config.persistenceFile(), e.getCause());
      final CacheIndex fresh = new CacheIndex(config);
      try {
        fresh.openStorage();
      } catch (IndexStorage.CorruptIndexException again) {
        throw new IllegalStateException(
            "cannot create index file " + config.persistenceFile(), again.getCause());
      }
      return fresh;
    }
  }

  private void openStorage() throws IndexStorage.CorruptIndexException {
    storage.open();
    appliedSequence.load(storage.main());
    ingester.attach();
    policies.trySync(); // tenants the configured policies make LFU count from the first lookup
    counts.flushModelGauges(config.listener());
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /**
   * Starts the index's background agents on one daemon thread — the TTL sweeper and the watch for
   * tenants switched to LFU ({@link #syncLfuCounters()}) — and marks the index ready.
   */
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException("index is closed");
    }
    if (sweeperRunner == null) {
      final long idleMs =
          Math.max(1, Math.min(SWEEPER_IDLE_MAX_MS, config.sweepIntervalNanos() / 1_000_000L));
      sweeperRunner =
          new AgentRunner(
              new SleepingMillisIdleStrategy(idleMs),
              e -> LOG.error("event=sweep_failed reason=\"{}\"", String.valueOf(e), e),
              null,
              new CompositeAgent(sweeper, policies.agent(writeLock, () -> closed)));
      AgentRunner.startOnThread(
          sweeperRunner,
          r -> {
            final Thread t = new Thread(r, sweeper.roleName());
            t.setDaemon(true);
            return t;
          });
    }
    ready = true;
  }

  /** Longest nap of the sweeper's thread between checks whether a pass is due (bounds close). */
  private static final long SWEEPER_IDLE_MAX_MS = 50;

  /** Whether the index is open and started. */
  public boolean isReady() {
    return ready && !closed;
  }

  /** Stops the sweeper, flushes and closes the storage. A persisted index can be reopened. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    ready = false;
    if (sweeperRunner != null) {
      sweeperRunner.close();
    }
    writeLock.lock();
    try {
      closed = true;
      storage.close();
    } finally {
      writeLock.unlock();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Reads (any thread, lock-free, allocation-free once the result object is warm)

  /**
   * The plain lookup of docs/behaviour.md#lookup-walk (used by the probe): the scored holders of
   * the request's chain or exact key, best first, no fallback and no miss classification. Never
   * credits LFU counters.
   */
  public void lookup(final LookupRequest request, final LookupResult result) {
    lookups.lookup(request, result);
  }

  /**
   * The index part of LookupRoute (docs/behaviour.md#lookup-route and
   * docs/behaviour.md#miss-classification): PREFIX_MATCH, the TENANT_HOT fallback on exact misses,
   * or the miss classification (cold start, UNKNOWN_TENANT/MODEL/HASH_SCHEME). The whole
   * LookupRoute decision (policy gates, deadlines, affinity, LFU credit) is {@link LookupRouter}'s;
   * this is its index step on its own, for probes and benchmarks.
   */
  public void lookupRoute(final LookupRequest request, final LookupResult result) {
    lookups.lookupRoute(request, result);
  }

  /**
   * The AFFINITY_HINT replica for the request's (tenant, model, scheme) scope: candidates are the
   * serving replicas sorted by name, picked by the first 8 bytes of {@code seedDigest} (SHA-256 of
   * the canonical seed, see {@link #affinitySeedDigest}) as an unsigned modulo. Returns the replica
   * id or -1 when there is no candidate.
   */
  public int affinityHint(final LookupRequest request, final byte[] seedDigest) {
    return lookups.affinityHint(request, seedDigest);
  }

  /**
   * Computes SHA-256 of the request's canonical affinity seed into {@code out} (32 bytes): the
   * chain as {@code u32be(len) ‖ hash} per block when present, else the exact hash. Returns false
   * when there is no seed (no chain and an empty exact hash). Allocation-free.
   */
  public static boolean affinitySeedDigest(
      final LookupRequest request, final java.security.MessageDigest sha256, final byte[] out) {
    sha256.reset();
    if (request.hashCount > 0) {
      final byte[] len = request.lenScratch;
      for (int i = 0; i < request.hashCount; i++) {
        final int l = request.hashLength[i];
        len[0] = (byte) (l >>> 24);
        len[1] = (byte) (l >>> 16);
        len[2] = (byte) (l >>> 8);
        len[3] = (byte) l;
        sha256.update(len, 0, 4);
        sha256.update(request.chainBytes, request.hashOffset[i], l);
      }
    } else if (request.exactLength > 0) {
      sha256.update(request.exact, 0, request.exactLength);
    } else {
      return false;
    }
    try {
      sha256.digest(out, 0, 32);
    } catch (java.security.DigestException e) {
      return false;
    }
    return true;
  }

  /**
   * Credits, lock-free, the LFU counters of every entry of a delivered PREFIX_MATCH (the matched
   * run of each surviving replica); a no-op for LRU tenants or any other outcome. Returns the
   * number of counters credited.
   */
  public int creditDelivered(final LookupResult result) {
    return lookups.creditDelivered(result);
  }

  /** The LFU access count of the holder {@code replica} of an exact key, or -1 if absent. */
  public long accessCount(
      final String tenant,
      final String model,
      final String scheme,
      final String adapter,
      final byte[] hash,
      final String replica) {
    final TenantModelState tm = registry.tm(dict.idOf(tenant), dict.idOf(model));
    final Partition p = registry.partition(tm, dict.idOf(scheme), dict.idOf(adapter));
    final int r = dict.idOf(replica);
    if (p == null || r < 0) {
      return -1;
    }
    final KeyBuffer k = new KeyBuffer();
    if (!k.set(p.id(), hash, 0, hash.length)) {
      return -1;
    }
    try (RunCursor cur = new RunCursor()) {
      if (!cur.open(storage.storeOf(p), k)) {
        return -1;
      }
      for (int c = 0; c < cur.cols(); c++) {
        if (cur.holder(c) == r && cur.paletteRef(cur.row(), c) != 0) {
          return storage.arena().countAcquire(cur.slot(cur.row(), c));
        }
      }
      return -1;
    }
  }

  /**
   * The policy store whose TTLs, eviction algorithms and quotas this index applies (unless the
   * config supplied its own {@link TenantPolicies}). Its int-keyed reads use this index's ids.
   */
  public io.inferencecache.engine.policy.PolicyStore policyStore() {
    return policyStore;
  }

  /** The dictionary id of the string a {@link StringView} points at, or -1. Allocation-free. */
  public int idOf(final StringView view) {
    return view.resolve(dict);
  }

  // ---------------------------------------------------------------------------------------------
  // Interning

  /** The dictionary id of {@code s}, interning it. Thread-safe (used by the policy store). */
  public int intern(final String s) {
    return dict.intern(s);
  }

  /** The dictionary id of {@code s}, or -1 if never seen. Lock-free. */
  public int idOf(final String s) {
    return dict.idOf(s);
  }

  /** The replica (or any interned) name of a dictionary id from a {@link LookupResult}. */
  public String replicaName(final int id) {
    return dict.string(id);
  }

  /** UTF-8 bytes of a dictionary id (shared; do not modify). */
  public byte[] nameUtf8(final int id) {
    return dict.utf8(id);
  }

  // ---------------------------------------------------------------------------------------------
  // Writes (one writer at a time)

  /**
   * Ingests one update (docs/behaviour.md#ingest): upserts every prefix entry, stores the stats
   * row, then enforces the tenant's quota and the global cap. Never throws for bad content:
   * malformed chains and oversize hashes are skipped (and counted).
   */
  public void ingest(final IngestUpdate u) {
    ingest(u, 0);
  }

  /**
   * As {@link #ingest(IngestUpdate)}, then records {@code streamSequence} (when positive) as the
   * last applied replication-stream sequence, in the same critical section (see {@link
   * #appliedSequence()}).
   */
  public void ingest(final IngestUpdate u, final long streamSequence) {
    writeLock.lock();
    try {
      ensureOpen();
      ingester.ingest(u);
      recordSequence(streamSequence);
    } finally {
      writeLock.unlock();
    }
  }

  /** Applies one event (docs/behaviour.md#events). Unknown types are ignored. */
  public void applyEvent(final IndexEvent e) {
    applyEvent(e, 0);
  }

  /**
   * As {@link #applyEvent(IndexEvent)}, then records {@code streamSequence} (when positive) in the
   * same critical section (see {@link #appliedSequence()}).
   */
  public void applyEvent(final IndexEvent e, final long streamSequence) {
    writeLock.lock();
    try {
      ensureOpen();
      events.apply(e);
      recordSequence(streamSequence);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Records {@code streamSequence} as applied without changing any entry (a stream message whose
   * content was dropped). Takes the writer lock.
   */
  public void skipSequence(final long streamSequence) {
    writeLock.lock();
    try {
      ensureOpen();
      recordSequence(streamSequence);
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * The last replication-stream sequence applied (0: none), persisted with the data of a persisted
   * index and reopened with it. Any thread.
   */
  public long appliedSequence() {
    return appliedSequence.get();
  }

  /** Writer only: the data the sequence covers is stored first, then the sequence. */
  private void recordSequence(final long streamSequence) {
    if (streamSequence > 0) {
      final RunStore main = storage.main();
      main.flush();
      appliedSequence.record(config.persistenceFile() != null ? main : null, streamSequence);
    }
  }

  /**
   * Removes every storage entry and stats row older than its tenant's TTL
   * (docs/behaviour.md#eviction-ttl), one segment at a time (the writer lock is released between
   * segments). Returns the storage entries removed. The sweeper started by {@link #start()} runs
   * this every {@code sweepInterval}.
   */
  public long sweepExpired() {
    return sweeper.sweep();
  }

  /**
   * Gives an LFU counter to every entry of a tenant whose policy turned to LFU, which makes the
   * policy take effect (engine/docs/design.md §3): one pass over the index under the writer lock
   * when such a tenant holds entries without one. The agent started by {@link #start()} does this
   * within 50 ms of noticing the change; an index that is never started needs this call. Returns
   * the counters given; throws {@link IllegalStateException} when the counters cannot grow.
   */
  public long syncLfuCounters() {
    writeLock.lock();
    try {
      return policies.sync();
    } finally {
      writeLock.unlock();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Aggregates

  /**
   * GetCacheState for (tenant, model) (docs/behaviour.md#get-cache-state); empty for the reserved
   * tenant or unknown keys.
   */
  public CacheStateView cacheState(final String tenant, final String model) {
    return aggregates.cacheState(tenant, model);
  }

  /**
   * The {@code /snapshot} aggregate (docs/behaviour.md#snapshot). Walks the index once under the
   * writer lock (ingest waits; lookups do not).
   */
  public IndexSnapshot snapshot() {
    writeLock.lock();
    try {
      ensureOpen();
      return aggregates.snapshot();
    } finally {
      writeLock.unlock();
    }
  }

  /**
   * Recounts every secondary count from the primary map and compares (a consistency check for tests
   * and diagnostics; O(entries), under the writer lock). Returns a description of each mismatch,
   * empty when consistent.
   */
  public List<String> verifyCounts() {
    writeLock.lock();
    try {
      return counts.verify(storage.main(), storage.reserved(), storage.arena(), policies::ready);
    } finally {
      writeLock.unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("index is closed");
    }
  }

  // Package-private access for the lookup code in this package.
  StringDictionary dictionary() {
    return dict;
  }

  RunStore mainStore() {
    return storage.main();
  }

  RunStore reservedStore() {
    return storage.reserved();
  }

  CounterArena arena() {
    return storage.arena();
  }

  IndexConfig config() {
    return config;
  }

  LfuCounters policies() {
    return policies;
  }

  /** Whether {@link #policies()} reads {@link #policyStore()} (no policies from the config). */
  boolean policiesFromStore() {
    return policiesFromStore;
  }

  Lookups lookups() {
    return lookups;
  }

  EpochNanoClock clock() {
    return clock;
  }

  TenantModelState tm(final int tenant, final int model) {
    return registry.tm(tenant, model);
  }

  ScopeState scope(final TenantModelState tm, final int scheme) {
    return registry.scope(tm, scheme);
  }

  Partition partition(final TenantModelState tm, final int scheme, final int adapter) {
    return registry.partition(tm, scheme, adapter);
  }

  Partition partition(final ScopeState scope, final int adapter) {
    return registry.partition(scope, adapter);
  }

  long ttlNanosOf(final int tenant) {
    return sweeper.ttlOf(tenant);
  }

  int reservedTenantId() {
    return registry.reservedTenantId();
  }

  long tenantKeyCount(final int tenant) {
    return counts.tenantKeys(tenant);
  }

  /** Storage entries (one per (prefix key, replica)), reserved tenant included. */
  public long totalEntries() {
    return counts.totalEntries();
  }

  /** Storage entries of the reserved probe tenant. */
  public long reservedEntries() {
    return counts.reservedEntries();
  }

  /** Distinct prefix keys, reserved tenant included. */
  public long totalKeys() {
    return counts.totalKeys();
  }

  /** Distinct prefix keys of {@code model}, reserved tenant excluded (the index gauge). */
  public long modelKeys(final String model) {
    return counts.modelKeys(dict.idOf(model));
  }

  /** Hashes rejected at ingest for being longer than {@link HolderLayout#MAX_HASH_BYTES}. */
  public long rejectedHashes() {
    return counts.rejectedHashes();
  }

  /** Entries dropped because no room could be made (should stay 0). */
  public long droppedFull() {
    return counts.droppedFull();
  }

  /** Off-heap bytes used by the prefix map and the LFU counters (reserved map excluded). */
  public long offHeapBytes() {
    return storage.offHeapBytes();
  }

  /**
   * Heap bytes of the prefix map's block directory (its slots and run ids; reserved map excluded).
   */
  public long directoryBytes() {
    return storage.directoryBytes();
  }

  /** The index's allocated footprint: {@link #offHeapBytes()} plus {@link #directoryBytes()}. */
  public long footprintBytes() {
    return offHeapBytes() + directoryBytes();
  }
}
