package io.inferencecache.engine;

import io.inferencecache.engine.internal.AppliedSequence;
import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.pd.PdTopologyStore;
import io.inferencecache.engine.policy.PolicyStore;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.CompositeAgent;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache-state index: which replicas hold which KV-cache prefix blocks, per (tenant, model, hash
 * scheme, adapter), with the upstream ranking, fallbacks, miss diagnostics, TTL, global cap,
 * per-tenant quotas and LFU accounting. See engine/docs/design.md.
 *
 * <p><b>Parts.</b> This class is the public facade: it owns the life cycle (open, start, close),
 * the writer lock and the applied stream sequence, and delegates. Opening builds one {@code
 * EngineState} (config, ids, counts, storage, policies, LFU counters) and hands it to the read side
 * ({@code Lookups}, and the {@link LookupRouter} built over this index) and the write side ({@code
 * IndexWriter}: ingest, events, eviction, TTL sweep); see engine/docs/design.md §3.
 *
 * <p><b>Threads.</b> Lookups ({@link #lookup}, {@link #lookupAndClassify}, {@link #affinityHint},
 * {@link #creditDelivered}) run on any number of threads, take no lock of this class and allocate
 * nothing once their {@link LookupResult} is warm; they hold one Chronicle segment read lock per
 * key read, for the time of a small copy. Mutations ({@link #ingest}, {@link #applyEvent}, {@link
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
  private final EngineState state;
  private final Lookups lookups;
  private final IndexWriter writer;
  private final Aggregates aggregates;

  /** The writer lock: every mutation, the sweep (per segment) and the snapshot hold it. */
  private final ReentrantLock writeLock = new ReentrantLock();

  private final AppliedSequence appliedSequence = new AppliedSequence();
  private volatile boolean ready;
  private volatile boolean closed;
  private AgentRunner sweeperRunner;

  private CacheIndex(final IndexConfig config) {
    this.config = config;
    this.state = new EngineState(config);
    this.lookups = new Lookups(state);
    this.writer = new IndexWriter(state, writeLock, () -> closed);
    this.aggregates = new Aggregates(state);
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
    state.storage.open();
    appliedSequence.load(state.storage.main());
    writer.attach();
    state.lfuCounters.trySync(); // tenants the configured policies make LFU count from the start
    state.counts.flushModelGauges(config.listener());
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
              new CompositeAgent(writer.sweeper(), writer.lfuAgent()));
      AgentRunner.startOnThread(
          sweeperRunner,
          r -> {
            final Thread t = new Thread(r, writer.sweeper().roleName());
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
      state.storage.close();
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
   * The lookup with the index's fallback and miss classification (docs/behaviour.md#lookup-route
   * and docs/behaviour.md#miss-classification): PREFIX_MATCH, the TENANT_HOT fallback on exact
   * misses, or the miss classification (cold start, UNKNOWN_TENANT/MODEL/HASH_SCHEME). It is not
   * the LookupRoute decision (policy gates, deadlines, affinity, LFU credit: {@link LookupRouter});
   * it is that decision's index step on its own, for probes, tests and benchmarks.
   */
  public void lookupAndClassify(final LookupRequest request, final LookupResult result) {
    lookups.lookupAndClassify(request, result);
  }

  /**
   * The AFFINITY_HINT replica for the request's (tenant, model, scheme) scope: candidates are the
   * serving replicas sorted by name, picked by the first 8 bytes of {@code seedDigest} (SHA-256 of
   * the canonical seed, see {@code Lookups.affinitySeedDigest}) as an unsigned modulo. Returns the
   * replica id or -1 when there is no candidate.
   */
  int affinityHint(final LookupRequest request, final byte[] seedDigest) {
    return lookups.affinityHint(request, seedDigest);
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
    final StringDictionary d = state.dict;
    return lookups.accessCount(
        d.idOf(tenant), d.idOf(model), d.idOf(scheme), d.idOf(adapter), hash, d.idOf(replica));
  }

  /**
   * The policy store whose TTLs, eviction algorithms and quotas this index applies (unless the
   * config supplied its own {@link TenantPolicies}). Its int-keyed reads use this index's ids.
   */
  public PolicyStore policyStore() {
    return state.policyStore;
  }

  /**
   * The P/D topologies {@link PdRouter} reads (docs/behaviour.md#lookup-pd-route); replaced whole
   * by the server's {@code /pd-topologies}. Their members are interned with this index's ids.
   */
  public PdTopologyStore pdTopologies() {
    return state.pdTopologyStore;
  }

  /** The dictionary id of the string a {@link StringView} points at, or -1. Allocation-free. */
  int idOf(final StringView view) {
    return view.resolve(state.dict);
  }

  // ---------------------------------------------------------------------------------------------
  // Interning

  /** The dictionary id of {@code s}, interning it. Thread-safe (used by the policy store). */
  public int intern(final String s) {
    return state.dict.intern(s);
  }

  /** The dictionary id of {@code s}, or -1 if never seen. Lock-free. */
  int idOf(final String s) {
    return state.dict.idOf(s);
  }

  /** The replica (or any interned) name of a dictionary id from a {@link LookupResult}. */
  public String replicaName(final int id) {
    return state.dict.string(id);
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
      writer.ingest(u);
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
      writer.apply(e);
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
      final RunStore main = state.storage.main();
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
    return writer.sweep();
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
      return writer.syncLfuCounters();
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
      return writer.verifyCounts();
    } finally {
      writeLock.unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("index is closed");
    }
  }

  /** The state the read side ({@link LookupRouter}) and tests in this package share. */
  EngineState state() {
    return state;
  }

  /** Storage entries (one per (prefix key, replica)), reserved tenant included. */
  public long totalEntries() {
    return state.counts.totalEntries();
  }

  /** Storage entries of the reserved probe tenant. */
  public long reservedEntries() {
    return state.counts.reservedEntries();
  }

  /** Distinct prefix keys, reserved tenant included. */
  public long totalKeys() {
    return state.counts.totalKeys();
  }

  /** Distinct prefix keys of {@code model}, reserved tenant excluded (the index gauge). */
  public long modelKeys(final String model) {
    return state.counts.modelKeys(state.dict.idOf(model));
  }

  /** Hashes rejected at ingest for being longer than {@link HolderLayout#MAX_HASH_BYTES}. */
  public long rejectedHashes() {
    return state.counts.rejectedHashes();
  }

  /** Entries dropped because no room could be made (should stay 0). */
  public long droppedFull() {
    return state.counts.droppedFull();
  }

  /** Off-heap bytes used by the prefix map and the LFU counters (reserved map excluded). */
  public long offHeapBytes() {
    return state.storage.offHeapBytes();
  }

  /**
   * Heap bytes of the prefix map's block directory (its slots and run ids; reserved map excluded).
   */
  public long directoryBytes() {
    return state.storage.directoryBytes();
  }

  /** The index's allocated footprint: {@link #offHeapBytes()} plus {@link #directoryBytes()}. */
  public long footprintBytes() {
    return offHeapBytes() + directoryBytes();
  }
}
