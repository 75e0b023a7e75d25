/*
 * Perf-scope copy of the engine's v1 layout (one Chronicle entry per block, 24-byte holder records),
 * kept only as the oracle of the v1/v2 differential test and the v1 column of the side-by-side
 * benchmarks. Not part of the product; delete once v2's figures are published.
 */
package io.inferencecache.engine;

import io.inferencecache.engine.internal.Counter;
import io.inferencecache.engine.internal.CounterArena;
import io.inferencecache.engine.internal.HolderBuffer;
import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.IdArray;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.LongIdMap;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.PrefixStoreV1;
import io.inferencecache.engine.internal.ScopeState;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.StatsTable;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;
import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.collections.IntHashSet;
import org.agrona.concurrent.EpochNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cache-state index: which replicas hold which KV-cache prefix blocks, per (tenant, model, hash
 * scheme, adapter), with the upstream ranking, fallbacks, miss diagnostics, TTL, global cap,
 * per-tenant quotas and LFU accounting. See engine/docs/design.md.
 *
 * <p><b>Threads.</b> LookupsV1 ({@link #lookup}, {@link #lookupRoute}, {@link #affinityHint},
 * {@link #creditDelivered}) run on any number of threads, take no lock of this class and allocate
 * nothing once their {@link LookupResult} is warm; they hold one Chronicle segment read lock per
 * key read, for the time of a small copy. Mutations ({@link #ingest}, {@link #applyEvent}, {@link
 * #sweepExpired}) are serialized by one writer lock; the TTL sweep releases it between segments.
 *
 * <p><b>Fail-safety.</b> No expected outcome throws: a full map evicts, an oversize hash is counted
 * and skipped, a lookup for unknown keys is a miss.
 */
public final class CacheIndexV1 implements AutoCloseable {
  /** The reserved probe tenant: hidden from cap, quotas, aggregates and gauges. */
  public static final String RESERVED_TENANT = "inferencecache.io/probe";

  /** Version of the persisted layout; a file of another version is set aside. */
  public static final int LAYOUT_VERSION = 1;

  private static final Logger LOG = LoggerFactory.getLogger(CacheIndexV1.class);
  private static final byte[] HEADER_KEY = metaKey('H', 0);
  private static final int HEADER_MAGIC = 0x49434958; // "ICIX"

  private final IndexConfig config;
  private final EpochNanoClock clock;
  private final TenantPolicies policies;
  private final boolean policiesFromStore;
  private final io.inferencecache.engine.policy.PolicyStore policyStore;
  private final IndexListener listener;
  private final File file;

  private final StringDictionary dict = new StringDictionary();
  private final LongIdMap tmIds = new LongIdMap();
  private final LongIdMap scopeIds = new LongIdMap();
  private final LongIdMap partitionIds = new LongIdMap();
  private final IdArray<TenantModelState> tms = new IdArray<>();
  private final IdArray<ScopeState> scopes = new IdArray<>();
  private final IdArray<Partition> partitions = new IdArray<>();
  private final IdArray<Counter> tenantKeys = new IdArray<>();
  private final IdArray<Counter> modelKeys = new IdArray<>();
  private final Counter totalEntries = new Counter();
  private final Counter reservedEntries = new Counter();
  private final Counter totalKeys = new Counter();
  private final Counter rejectedHashes = new Counter();
  private final Counter droppedFull = new Counter();
  private final int reservedTenantId;

  private PrefixStoreV1 main;
  private final PrefixStoreV1 reserved;
  private CounterArena arena;

  private final ReentrantLock writeLock = new ReentrantLock();
  private final KeyBuffer wkey = new KeyBuffer();
  private final HolderBuffer removed = new HolderBuffer(64);
  private final IntHashSet dirtyModels = new IntHashSet();
  private int persistedStrings;
  private int persistedPartitions;

  private final LookupsV1 lookups;
  private volatile boolean ready;
  private volatile boolean closed;
  private ScheduledExecutorService sweeper;

  private CacheIndexV1(final IndexConfig config) {
    this.config = config;
    this.clock = config.clock();
    this.listener = config.listener();
    this.file = config.persistenceFile();
    this.reservedTenantId = dict.intern(RESERVED_TENANT);
    this.policyStore = new io.inferencecache.engine.policy.PolicyStore(dict::intern);
    this.policiesFromStore = config.policies() == TenantPolicies.DEFAULTS;
    this.policies =
        policiesFromStore ? new PolicyBackedTenantPolicies(policyStore) : config.policies();
    this.reserved =
        PrefixStoreV1.inMemory(
            "inference-cache-reserved", config.reservedCapacity(), config.averageHashBytes(), 1.0);
    this.lookups = new LookupsV1(this);
  }

  /**
   * Opens an index. A persisted file is reopened with every entry, timestamp and LFU count; a file
   * that is corrupt or of another layout is moved aside (logged) and the index starts empty.
   */
  public static CacheIndexV1 open(final IndexConfig config) {
    config.conclude();
    final CacheIndexV1 index = new CacheIndexV1(config);
    try {
      index.openStorage();
      return index;
    } catch (CorruptIndexException e) {
      // Set the unusable file aside and start over on a fresh object: nothing of the failed
      // attempt (dictionary, partitions, counts) survives.
      final File file = config.persistenceFile();
      final String aside = file.getPath() + ".corrupt-" + System.currentTimeMillis();
      LOG.error(
          "event=index_set_aside file={} moved_to={} reason=\"{}\": starting with an empty index",
          file,
          aside,
          String.valueOf(e.getCause()));
      moveAside(file, new File(aside));
      moveAside(new File(file.getPath() + ".counters"), new File(aside + ".counters"));
      final CacheIndexV1 fresh = new CacheIndexV1(config);
      try {
        fresh.openStorage();
      } catch (CorruptIndexException again) {
        throw new IllegalStateException("cannot create index file " + file, again.getCause());
      }
      return fresh;
    }
  }

  /** An existing index file that cannot be used as it is. */
  private static final class CorruptIndexException extends Exception {
    private static final long serialVersionUID = 1L;

    CorruptIndexException(final Throwable cause) {
      super(cause);
    }
  }

  private int arenaCapacity() {
    final long max = config.maxEntries();
    return (int)
        Math.min(Integer.MAX_VALUE - 1L, max + Math.max(1024, max / 8) + config.reservedCapacity());
  }

  private void openStorage() throws CorruptIndexException {
    if (file == null) {
      main =
          PrefixStoreV1.inMemory(
              "inference-cache-prefixes",
              config.maxEntries(),
              config.averageHashBytes(),
              config.averageHoldersPerKey());
      arena = CounterArena.inMemory(arenaCapacity());
      return;
    }
    final File marker = new File(file.getPath() + ".open");
    final File counters = new File(file.getPath() + ".counters");
    final boolean existed = file.exists();
    final boolean unclean = existed && marker.exists();
    try {
      openPersisted(counters, existed, unclean);
    } catch (IOException | RuntimeException | Error e) {
      if (e instanceof VirtualMachineError vme && !(e instanceof StackOverflowError)) {
        throw vme;
      }
      closeQuietly();
      throw new CorruptIndexException(e);
    }
    try {
      Files.writeString(marker.toPath(), "open\n");
    } catch (IOException e) {
      throw new IllegalStateException("cannot write " + marker, e);
    }
  }

  private void openPersisted(final File counters, final boolean existed, final boolean unclean)
      throws IOException {
    if (file.getParentFile() != null) {
      Files.createDirectories(file.getParentFile().toPath());
    }
    if (existed && (!counters.exists())) {
      throw new IOException("counter file " + counters + " is missing");
    }
    if (unclean) {
      LOG.warn("event=index_recovering file={}: the last process did not close it cleanly", file);
    }
    main =
        PrefixStoreV1.persisted(
            file,
            config.maxEntries(),
            config.averageHashBytes(),
            config.averageHoldersPerKey(),
            unclean);
    arena = CounterArena.mapped(counters, arenaCapacity());
    if (!existed) {
      writeHeader();
      return;
    }
    final byte[] header = main.getRaw(HEADER_KEY);
    if (header == null || header.length < 8) {
      throw new IOException("index file has no header record");
    }
    final ByteBuffer hb = ByteBuffer.wrap(header);
    if (hb.getInt() != HEADER_MAGIC || hb.getInt() != LAYOUT_VERSION) {
      throw new IOException("index file is of another layout version");
    }
    rebuildFromStorage();
  }

  private void writeHeader() {
    final ByteBuffer hb = ByteBuffer.allocate(8);
    hb.putInt(HEADER_MAGIC).putInt(LAYOUT_VERSION);
    main.putRaw(HEADER_KEY, hb.array());
  }

  private static void moveAside(final File from, final File to) {
    if (from.exists()) {
      try {
        Files.move(from.toPath(), to.toPath(), StandardCopyOption.REPLACE_EXISTING);
      } catch (IOException e) {
        LOG.error("event=index_set_aside_failed file={} reason=\"{}\"", from, String.valueOf(e));
        if (!from.delete()) {
          LOG.error("event=index_delete_failed file={}", from);
        }
      }
    }
  }

  private void closeQuietly() {
    try {
      if (main != null) {
        main.close();
      }
    } catch (RuntimeException ignored) {
      // already failing
    }
    try {
      if (arena != null) {
        arena.close();
      }
    } catch (RuntimeException ignored) {
      // already failing
    }
    try {
      reserved.close();
    } catch (RuntimeException ignored) {
      // already failing
    }
    main = null;
    arena = null;
  }

  // ---------------------------------------------------------------------------------------------
  // Persistence of the dictionary and partitions (metadata records in the main map)

  private static byte[] metaKey(final char kind, final int id) {
    final byte[] k = new byte[9];
    k[0] = (byte) 0xFF;
    k[1] = (byte) 0xFF;
    k[2] = (byte) 0xFF;
    k[3] = (byte) 0xFF;
    k[4] = (byte) kind;
    k[5] = (byte) (id >>> 24);
    k[6] = (byte) (id >>> 16);
    k[7] = (byte) (id >>> 8);
    k[8] = (byte) id;
    return k;
  }

  private void persistNewMetadata() {
    if (file == null) {
      return;
    }
    final int strings = dict.size();
    while (persistedStrings < strings) {
      final int id = persistedStrings;
      main.putRaw(metaKey('S', id), dict.utf8(id));
      persistedStrings++;
    }
    final int parts = partitionIds.size();
    while (persistedPartitions < parts) {
      final Partition p = partitions.get(persistedPartitions);
      final ByteBuffer b = ByteBuffer.allocate(16);
      b.putInt(p.tenant()).putInt(p.model()).putInt(p.scheme()).putInt(p.adapter());
      main.putRaw(metaKey('P', p.id()), b.array());
      persistedPartitions++;
    }
  }

  private void rebuildFromStorage() throws IOException {
    for (int id = 0; ; id++) {
      final byte[] s = main.getRaw(metaKey('S', id));
      if (s == null) {
        persistedStrings = id;
        break;
      }
      dict.restore(id, new String(s, StandardCharsets.UTF_8));
    }
    for (int id = 0; ; id++) {
      final byte[] p = main.getRaw(metaKey('P', id));
      if (p == null) {
        persistedPartitions = id;
        break;
      }
      if (p.length != 16) {
        throw new IOException("partition record " + id + " is torn");
      }
      final ByteBuffer b = ByteBuffer.wrap(p);
      final int t = b.getInt();
      final int m = b.getInt();
      final int s = b.getInt();
      final int a = b.getInt();
      if (t >= persistedStrings
          || m >= persistedStrings
          || s >= persistedStrings
          || a >= persistedStrings) {
        throw new IOException("partition record " + id + " names an unknown string");
      }
      final int assigned = partitionFor(t, m, s, a).id();
      if (assigned != id) {
        throw new IOException("partition record " + id + " is out of order");
      }
    }
    final BitSet used = new BitSet();
    final long[] dropped = new long[1];
    final int strings = persistedStrings;
    main.scanAll(
        (key, keyLength, holders, out) -> {
          final int pid = KeyBuffer.partitionOf(key);
          final Partition p = partitions.get(pid);
          if (p == null || pid >= persistedPartitions || holders.count() == 0) {
            dropped[0] += Math.max(1, holders.count());
            return PrefixStoreV1.EntryVisitor.REMOVE;
          }
          boolean changed = false;
          int kept = 0;
          for (int i = 0; i < holders.count(); i++) {
            final int replica = holders.replica(i);
            final int slot = holders.slot(i);
            final boolean valid =
                replica >= 0
                    && replica < strings
                    && !used.get(Math.max(0, slot))
                    && arena.claimOnRecovery(slot, holders.gen(i));
            if (!valid) {
              dropped[0]++;
              changed = true;
              continue;
            }
            used.set(slot);
            outCopy(out, holders, i, kept++);
          }
          if (kept == 0) {
            return PrefixStoreV1.EntryVisitor.REMOVE;
          }
          keyAdded(p);
          for (int i = 0; i < kept; i++) {
            holderAdded(p, changed ? outReplica(out, i) : holders.replica(i));
          }
          return changed ? PrefixStoreV1.EntryVisitor.REWRITE : PrefixStoreV1.EntryVisitor.KEEP;
        });
    arena.rebuildFreeList(used);
    if (dropped[0] > 0) {
      LOG.warn(
          "event=index_recovered_with_drops file={} dropped_entries={}: untrusted records removed",
          file,
          dropped[0]);
    }
    LOG.info(
        "event=index_reopened file={} entries={} keys={}",
        file,
        totalEntries.get(),
        totalKeys.get());
    flushModelGauges();
  }

  private static void outCopy(
      final HolderBuffer out, final HolderBuffer in, final int from, final int to) {
    HolderBuffersV1.copy(in, from, out, to);
  }

  private static int outReplica(final HolderBuffer out, final int i) {
    return out.replica(i);
  }

  // ---------------------------------------------------------------------------------------------
  // Lifecycle

  /** Starts the TTL sweeper and marks the index ready. */
  public synchronized void start() {
    if (closed) {
      throw new IllegalStateException("index is closed");
    }
    if (sweeper == null) {
      sweeper =
          Executors.newSingleThreadScheduledExecutor(
              r -> {
                final Thread t = new Thread(r, "index-ttl-sweeper");
                t.setDaemon(true);
                return t;
              });
      final long every = config.sweepIntervalNanos();
      sweeper.scheduleWithFixedDelay(
          () -> {
            try {
              sweepExpired();
            } catch (RuntimeException e) {
              LOG.error("event=sweep_failed reason=\"{}\"", String.valueOf(e), e);
            }
          },
          every,
          every,
          TimeUnit.NANOSECONDS);
    }
    ready = true;
  }

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
    if (sweeper != null) {
      sweeper.shutdownNow();
      try {
        sweeper.awaitTermination(5, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    writeLock.lock();
    try {
      closed = true;
      persistNewMetadata();
      main.close();
      reserved.close();
      arena.close();
      if (file != null) {
        final File marker = new File(file.getPath() + ".open");
        if (!marker.delete()) {
          LOG.warn("event=index_marker_not_removed file={}", marker);
        }
      }
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
    final TenantModelState tm = tmLookup(dict.idOf(tenant), dict.idOf(model));
    final Partition p = partition(tm, dict.idOf(scheme), dict.idOf(adapter));
    final int r = dict.idOf(replica);
    if (p == null || r < 0) {
      return -1;
    }
    final KeyBuffer k = new KeyBuffer();
    final HolderBuffer h = new HolderBuffer(8);
    if (!k.set(p.id(), hash, 0, hash.length) || storeOf(p).readHolders(k, h) == 0) {
      return -1;
    }
    final int idx = h.find(r);
    return idx < 0 ? -1 : arena.countAcquire(h.slot(idx));
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

  private Counter counter(final IdArray<Counter> arr, final int id) {
    Counter c = arr.get(id);
    if (c == null) {
      c = new Counter();
      arr.set(id, c);
    }
    return c;
  }

  private TenantModelState tmFor(final int tenant, final int model) {
    final int id = tmIds.getOrAssign(LongIdMap.pack(tenant, model));
    TenantModelState s = tms.get(id);
    if (s == null) {
      s = new TenantModelState(id, tenant, model);
      tms.set(id, s);
    }
    return s;
  }

  private TenantModelState tmLookup(final int tenant, final int model) {
    if (tenant < 0 || model < 0) {
      return null;
    }
    final int id = tmIds.get(LongIdMap.pack(tenant, model));
    return id < 0 ? null : tms.get(id);
  }

  private ScopeState scopeLookup(final TenantModelState tm, final int scheme) {
    if (tm == null || scheme < 0) {
      return null;
    }
    final int id = scopeIds.get(LongIdMap.pack(tm.id, scheme));
    return id < 0 ? null : scopes.get(id);
  }

  private Partition partitionFor(
      final int tenant, final int model, final int scheme, final int adapter) {
    final TenantModelState tm = tmFor(tenant, model);
    final int scopeId = scopeIds.getOrAssign(LongIdMap.pack(tm.id, scheme));
    if (scopes.get(scopeId) == null) {
      scopes.set(scopeId, new ScopeState(scopeId, tm.id, scheme));
      tm.addScope(scopeId);
    }
    final int pid = partitionIds.getOrAssign(LongIdMap.pack(scopeId, adapter));
    Partition p = partitions.get(pid);
    if (p == null) {
      p =
          new Partition(
              pid, tenant, model, scheme, adapter, tm.id, scopeId, tenant == reservedTenantId);
      partitions.set(pid, p);
      tm.addPartition(pid);
    }
    return p;
  }

  private PrefixStoreV1 storeOf(final Partition p) {
    return p.reserved() ? reserved : main;
  }

  // ---------------------------------------------------------------------------------------------
  // Secondary counts (writer only)

  private void keyAdded(final Partition p) {
    totalKeys.add(1);
    counter(tenantKeys, p.tenant()).add(1);
    tms.get(p.tm()).prefixes += 1;
    if (!p.reserved()) {
      counter(modelKeys, p.model()).add(1);
      dirtyModels.add(p.model());
    }
  }

  private void keyRemoved(final Partition p) {
    totalKeys.add(-1);
    counter(tenantKeys, p.tenant()).add(-1);
    tms.get(p.tm()).prefixes -= 1;
    if (!p.reserved()) {
      counter(modelKeys, p.model()).add(-1);
      dirtyModels.add(p.model());
    }
  }

  private void holderAdded(final Partition p, final int replica) {
    totalEntries.add(1);
    if (p.reserved()) {
      reservedEntries.add(1);
    }
    scopes.get(p.scope()).increment(replica, dict);
  }

  private void holderRemoved(final Partition p, final int replica, final int slot) {
    totalEntries.add(-1);
    if (p.reserved()) {
      reservedEntries.add(-1);
    }
    scopes.get(p.scope()).decrement(replica, dict);
    arena.release(slot);
  }

  private void flushModelGauges() {
    if (dirtyModels.isEmpty()) {
      return;
    }
    final IntHashSet.IntIterator it = dirtyModels.iterator();
    while (it.hasNext()) {
      final int model = it.nextValue();
      listener.onIndexEntries(dict.string(model), counter(modelKeys, model).get());
    }
    dirtyModels.clear();
  }

  // ---------------------------------------------------------------------------------------------
  // Change hooks (writer only; names and hashes are materialised only when the listener asks)

  private void reportStored(
      final Partition p, final byte[] hash, final int replica, final int tokens, final long ts) {
    listener.onPrefixStored(
        dict.string(p.tenant()),
        dict.string(p.model()),
        dict.string(replica),
        dict.string(p.scheme()),
        dict.string(p.adapter()),
        hash.clone(),
        tokens,
        ts);
  }

  private void reportRemoved(
      final Partition p, final byte[] hash, final int replica, final String reason, final long ts) {
    listener.onPrefixRemoved(
        dict.string(p.tenant()),
        dict.string(p.model()),
        dict.string(replica),
        dict.string(p.scheme()),
        dict.string(p.adapter()),
        hash,
        reason,
        ts);
  }

  private static byte[] hashOf(final byte[] key, final int keyLength) {
    return Arrays.copyOfRange(key, HolderLayout.KEY_PARTITION_BYTES, keyLength);
  }

  // ---------------------------------------------------------------------------------------------
  // Ingest

  private long tsNanos(final long micros, final long now) {
    return micros == 0 ? now : micros * 1000L;
  }

  private long ttlOf(final int tenant) {
    final long t = policies.ttlNanos(tenant);
    return t > 0 ? t : config.defaultTtlNanos();
  }

  /**
   * Ingests one update (docs/behaviour.md#ingest): upserts every prefix entry, stores the stats
   * row, then enforces the tenant's quota and the global cap. Never throws for bad content:
   * malformed chains and oversize hashes are skipped (and counted).
   */
  public void ingest(final IngestUpdate u) {
    writeLock.lock();
    try {
      ensureOpen();
      final long now = clock.nanoTime();
      final long ts = tsNanos(u.timestampMicros(), now);
      final int tenant = dict.intern(u.tenantId());
      final int model = dict.intern(u.modelId());
      final int replica = dict.intern(u.replicaId());
      if (!u.hashScheme().isEmpty()) {
        final int scheme = dict.intern(u.hashScheme());
        for (IngestPrefix e : u.prefixes()) {
          ingestEntry(u, e, tenant, model, scheme, replica, ts);
        }
      }
      final IngestStats st = u.stats();
      if (st != null) {
        final TenantModelState tm = tmFor(tenant, model);
        tm.stats =
            tm.stats.with(
                new StatsRow(
                    replica,
                    st.cacheMemoryBytes(),
                    finite(st.hitRate()),
                    finite(st.pressure()),
                    st.t2HitTokens(),
                    st.t2QueryTokens(),
                    ts,
                    ts));
        if (listener.wantsChanges()) {
          listener.onReplicaUpdated(
              dict.string(tenant), dict.string(model), dict.string(replica), ts);
        }
      }
      persistNewMetadata();
      if (tenant != reservedTenantId) {
        enforceQuota(tenant);
      }
      enforceCap();
      flushModelGauges();
    } finally {
      writeLock.unlock();
    }
  }

  private static float finite(final float f) {
    return Float.isFinite(f) ? f : 0f;
  }

  private void ingestEntry(
      final IngestUpdate u,
      final IngestPrefix e,
      final int tenant,
      final int model,
      final int scheme,
      final int replica,
      final long ts) {
    final int tier = HolderLayout.tierCode(e.tier());
    final String adapterName =
        e.adapterId() != null && !e.adapterId().isEmpty() ? e.adapterId() : u.adapterId();
    final Partition p = partitionFor(tenant, model, scheme, dict.intern(adapterName));
    final List<byte[]> hashes = e.blockHashes() == null ? List.of() : e.blockHashes();
    final int[] counts = e.blockTokenCounts() == null ? new int[0] : e.blockTokenCounts();
    final byte[] prefix = e.prefixHash() == null ? new byte[0] : e.prefixHash();
    if (!hashes.isEmpty() || counts.length > 0) {
      if (hashes.size() != counts.length) {
        return; // malformed chain entries are dropped whole
      }
      int cumulative = 0;
      for (int j = 0; j < counts.length; j++) {
        cumulative += counts[j]; // int32 running sum, wrapping like upstream
        upsert(p, hashes.get(j), replica, cumulative, ts, tier);
      }
      if (prefix.length > 0) {
        upsert(p, prefix, replica, e.tokenCount(), ts, tier);
      }
    } else {
      upsert(p, prefix, replica, e.tokenCount(), ts, tier);
    }
  }

  private void upsert(
      final Partition p,
      final byte[] hash,
      final int replica,
      final int tokens,
      final long ts,
      final int tier) {
    if (hash == null || !wkey.set(p.id(), hash, 0, hash.length)) {
      rejectedHashes.add(1);
      return;
    }
    if (!arena.hasFree()) {
      evictForSpace();
      if (!arena.hasFree()) {
        droppedFull.add(1);
        return;
      }
      wkey.set(p.id(), hash, 0, hash.length); // eviction reused the key buffer
    }
    final PrefixStoreV1 store = storeOf(p);
    int outcome;
    try {
      outcome = store.upsert(wkey, replica, tokens, ts, tier, arena);
    } catch (IllegalStateException full) {
      // The off-heap map refused to grow (a segment is full): make room and try once more.
      if (p.reserved()) {
        droppedFull.add(1);
        return;
      }
      evictForSpace();
      wkey.set(p.id(), hash, 0, hash.length);
      try {
        outcome = store.upsert(wkey, replica, tokens, ts, tier, arena);
      } catch (IllegalStateException again) {
        droppedFull.add(1);
        LOG.warn("event=index_full reason=\"{}\": entry dropped", String.valueOf(again));
        return;
      }
    }
    if (outcome == PrefixStoreV1.NEW_KEY) {
      keyAdded(p);
      holderAdded(p, replica);
    } else if (outcome == PrefixStoreV1.NEW_HOLDER) {
      holderAdded(p, replica);
    }
    if (listener.wantsChanges()) {
      reportStored(p, hash, replica, tokens, ts);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Events

  /** Applies one event (docs/behaviour.md#events). Unknown types are ignored. */
  public void applyEvent(final IndexEvent e) {
    writeLock.lock();
    try {
      ensureOpen();
      final long now = clock.nanoTime();
      final long ts = tsNanos(e.timestampMicros(), now);
      switch (e.type()) {
        case PREFIX_EVICTED -> evictPrefix(e, ts);
        case REPLICA_UPDATED -> replicaUpdated(e, ts);
        case ALL_CLEARED -> allCleared(e, ts);
        default -> {
          // PREFIX_ADDED carries no scheme or token count; unspecified/unknown: ignored
        }
      }
      flushModelGauges();
    } finally {
      writeLock.unlock();
    }
  }

  private void evictPrefix(final IndexEvent e, final long ts) {
    final int tenant = dict.idOf(e.tenantId());
    final int model = dict.idOf(e.modelId());
    final int replica = dict.idOf(e.replicaId());
    final TenantModelState tm = tmLookup(tenant, model);
    if (tm == null || replica < 0) {
      return;
    }
    final int adapter = e.adapterId().isEmpty() ? -2 : dict.idOf(e.adapterId());
    if (adapter == StringDictionary.MISSING) {
      return;
    }
    for (int pid : tm.partitions()) {
      final Partition p = partitions.get(pid);
      if (adapter != -2 && p.adapter() != adapter) {
        continue;
      }
      if (!wkey.set(pid, e.prefixHash(), 0, e.prefixHash().length)) {
        return;
      }
      removeHolderAt(p, replica, IndexListener.REMOVED_BY_EVENT, ts);
    }
  }

  /** Removes holder {@code replica} of the key in {@code wkey}; true if it was there. */
  private boolean removeHolderAt(
      final Partition p, final int replica, final String reason, final long ts) {
    final int r = storeOf(p).removeHolder(wkey, replica, removed);
    if (r < 0) {
      return false;
    }
    holderRemoved(p, replica, removed.slot(0));
    if (r == 0) {
      keyRemoved(p);
    }
    if (listener.wantsChanges()) {
      reportRemoved(p, wkey.hashCopy(), replica, reason, ts);
    }
    return true;
  }

  private void replicaUpdated(final IndexEvent e, final long ts) {
    final TenantModelState tm = tmLookup(dict.idOf(e.tenantId()), dict.idOf(e.modelId()));
    final int replica = dict.idOf(e.replicaId());
    if (tm == null || replica < 0) {
      return;
    }
    final StatsRow row = tm.stats.get(replica);
    if (row != null) {
      tm.stats = tm.stats.with(row.withLastSeen(ts));
      if (listener.wantsChanges()) {
        listener.onReplicaUpdated(
            dict.string(tm.tenant), dict.string(tm.model), dict.string(replica), ts);
      }
    }
  }

  private void allCleared(final IndexEvent e, final long ts) {
    final TenantModelState tm = tmLookup(dict.idOf(e.tenantId()), dict.idOf(e.modelId()));
    final int replica = dict.idOf(e.replicaId());
    if (tm == null || replica < 0) {
      return;
    }
    tm.stats = tm.stats.without(replica);
    clearReplica(tm, replica);
    if (listener.wantsChanges()) {
      listener.onAllCleared(
          dict.string(tm.tenant), dict.string(tm.model), dict.string(replica), ts);
    }
  }

  private void clearReplica(final TenantModelState tm, final int replica) {
    boolean serving = false;
    for (int sid : tm.scopes()) {
      if (scopes.get(sid).count(replica) > 0) {
        serving = true;
        break;
      }
    }
    if (!serving) {
      return;
    }
    final boolean isReserved = tm.tenant == reservedTenantId;
    final PrefixStoreV1 store = isReserved ? reserved : main;
    final int tmId = tm.id;
    store.scanAll(
        (key, keyLength, holders, out) -> {
          final Partition p = partitions.get(KeyBuffer.partitionOf(key));
          if (p == null || p.tm() != tmId) {
            return PrefixStoreV1.EntryVisitor.KEEP;
          }
          final int idx = holders.find(replica);
          if (idx < 0) {
            return PrefixStoreV1.EntryVisitor.KEEP;
          }
          int kept = 0;
          for (int i = 0; i < holders.count(); i++) {
            if (i != idx) {
              HolderBuffersV1.copy(holders, i, out, kept++);
            }
          }
          holderRemoved(p, replica, holders.slot(idx));
          if (kept == 0) {
            keyRemoved(p);
            return PrefixStoreV1.EntryVisitor.REMOVE;
          }
          HolderBuffersV1.setCount(out, kept);
          return PrefixStoreV1.EntryVisitor.REWRITE;
        });
  }

  // ---------------------------------------------------------------------------------------------
  // TTL sweep

  /**
   * Removes every storage entry and stats row older than its tenant's TTL
   * (docs/behaviour.md#eviction-ttl), one segment at a time (the writer lock is released between
   * segments). Returns the storage entries removed.
   */
  public long sweepExpired() {
    final long[] removedLru = new long[1];
    final long[] removedLfu = new long[1];
    final long now = clock.nanoTime();
    for (PrefixStoreV1 store : new PrefixStoreV1[] {main, reserved}) {
      final int segments;
      writeLock.lock();
      try {
        if (closed) {
          return 0;
        }
        segments = store.segments();
      } finally {
        writeLock.unlock();
      }
      for (int s = 0; s < segments; s++) {
        writeLock.lock();
        try {
          if (closed) {
            return removedLru[0] + removedLfu[0];
          }
          store.scanSegment(
              s,
              (key, keyLength, holders, out) -> {
                final Partition p = partitions.get(KeyBuffer.partitionOf(key));
                if (p == null) {
                  return PrefixStoreV1.EntryVisitor.KEEP;
                }
                final long ttl = ttlOf(p.tenant());
                int kept = 0;
                for (int i = 0; i < holders.count(); i++) {
                  if (now - holders.lastSeen(i) >= ttl) {
                    holderRemoved(p, holders.replica(i), holders.slot(i));
                    if (listener.wantsChanges()) {
                      reportRemoved(
                          p,
                          hashOf(key, keyLength),
                          holders.replica(i),
                          IndexListener.REMOVED_BY_TTL,
                          now);
                    }
                    if (policies.lfu(p.tenant())) {
                      removedLfu[0]++;
                    } else {
                      removedLru[0]++;
                    }
                  } else {
                    HolderBuffersV1.copy(holders, i, out, kept++);
                  }
                }
                if (kept == holders.count()) {
                  return PrefixStoreV1.EntryVisitor.KEEP;
                }
                if (kept == 0) {
                  keyRemoved(p);
                  return PrefixStoreV1.EntryVisitor.REMOVE;
                }
                HolderBuffersV1.setCount(out, kept);
                return PrefixStoreV1.EntryVisitor.REWRITE;
              });
        } finally {
          writeLock.unlock();
        }
      }
    }
    writeLock.lock();
    try {
      if (closed) {
        return removedLru[0] + removedLfu[0];
      }
      final int n = tmIds.size();
      for (int id = 0; id < n; id++) {
        final TenantModelState tm = tms.get(id);
        if (tm == null || tm.stats.size() == 0) {
          continue;
        }
        final long ttl = ttlOf(tm.tenant);
        StatsTable t = tm.stats;
        for (int i = t.size() - 1; i >= 0; i--) {
          final StatsRow row = t.row(i);
          if (now - row.lastSeen() >= ttl) {
            t = t.without(row.replica());
          }
        }
        tm.stats = t;
      }
      if (removedLru[0] > 0) {
        listener.onEvictions("lru", "ttl", removedLru[0]);
      }
      if (removedLfu[0] > 0) {
        listener.onEvictions("lfu", "ttl", removedLfu[0]);
      }
      flushModelGauges();
    } finally {
      writeLock.unlock();
    }
    return removedLru[0] + removedLfu[0];
  }

  // ---------------------------------------------------------------------------------------------
  // Global cap and tenant quotas

  /** A candidate for eviction, ordered as upstream orders victims. */
  private static final class Victim {
    long count;
    long lastSeen;
    int partitionRank;
    byte[] key;
    int replicaRank;
    int replica;
    int partition;
  }

  private int[] partitionRanks() {
    final int n = partitionIds.size();
    final Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(
        order,
        (a, b) -> {
          final Partition x = partitions.get(a);
          final Partition y = partitions.get(b);
          int c = dict.compare(x.tenant(), y.tenant());
          if (c == 0) {
            c = dict.compare(x.model(), y.model());
          }
          if (c == 0) {
            c = dict.compare(x.scheme(), y.scheme());
          }
          if (c == 0) {
            c = dict.compare(x.adapter(), y.adapter());
          }
          return c;
        });
    final int[] rank = new int[n];
    for (int i = 0; i < n; i++) {
      rank[order[i]] = i;
    }
    return rank;
  }

  private int[] nameRanks() {
    final int n = dict.size();
    final Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, dict::compare);
    final int[] rank = new int[n];
    for (int i = 0; i < n; i++) {
      rank[order[i]] = i;
    }
    return rank;
  }

  private static int compareKeyBytes(
      final byte[] a, final int alen, final byte[] b, final int blen) {
    return Arrays.compareUnsigned(
        a, HolderLayout.KEY_PARTITION_BYTES, alen, b, HolderLayout.KEY_PARTITION_BYTES, blen);
  }

  private static final Comparator<Victim> VICTIM_ORDER =
      (x, y) -> {
        int c = Long.compare(x.count, y.count);
        if (c == 0) {
          c = Long.compare(x.lastSeen, y.lastSeen);
        }
        if (c == 0) {
          c = Integer.compare(x.partitionRank, y.partitionRank);
        }
        if (c == 0) {
          c = compareKeyBytes(x.key, x.key.length, y.key, y.key.length);
        }
        if (c == 0) {
          c = Integer.compare(x.replicaRank, y.replicaRank);
        }
        return c;
      };

  private void enforceCap() {
    final long effective = totalEntries.get() - reservedEntries.get();
    final long max = config.maxEntries();
    if (effective <= max) {
      return;
    }
    final long target = max - (long) Math.floor(max * config.evictionHeadroom());
    evictEntries((int) Math.min(Integer.MAX_VALUE, effective - target));
  }

  /**
   * Makes room when the arena or the map ran out mid-ingest. Over the cap, only the excess goes:
   * those are the first entries of the victim order, which the end-of-ingest cap pass would evict
   * anyway (evicting below the cap here would drop entries that pass keeps). At or under the cap (a
   * full map segment), 1 % of the cap goes.
   */
  private void evictForSpace() {
    final long effective = totalEntries.get() - reservedEntries.get();
    final long max = config.maxEntries();
    final long target =
        effective > max ? max : Math.max(0, effective - Math.max(1, (long) (max * 0.01)));
    if (effective > target) {
      evictEntries((int) Math.min(Integer.MAX_VALUE, effective - target));
    }
  }

  private void evictEntries(final int need) {
    if (need <= 0) {
      return;
    }
    final int[] pRank = partitionRanks();
    final int[] nRank = nameRanks();
    final PriorityQueue<Victim> heap =
        new PriorityQueue<>(Math.min(need, 1 << 16), VICTIM_ORDER.reversed());
    final Victim probe = new Victim();
    main.scanAll(
        (key, keyLength, holders, out) -> {
          final Partition p = partitions.get(KeyBuffer.partitionOf(key));
          if (p == null) {
            return PrefixStoreV1.EntryVisitor.KEEP;
          }
          final boolean lfu = policies.lfu(p.tenant());
          for (int i = 0; i < holders.count(); i++) {
            probe.count = lfu ? arena.countAcquire(holders.slot(i)) : 0;
            probe.lastSeen = holders.lastSeen(i);
            probe.partitionRank = pRank[p.id()];
            probe.replicaRank = nRank[holders.replica(i)];
            if (heap.size() >= need) {
              final Victim worst = heap.peek();
              int c = Long.compare(probe.count, worst.count);
              if (c == 0) {
                c = Long.compare(probe.lastSeen, worst.lastSeen);
              }
              if (c == 0) {
                c = Integer.compare(probe.partitionRank, worst.partitionRank);
              }
              if (c == 0) {
                c = compareKeyBytes(key, keyLength, worst.key, worst.key.length);
              }
              if (c == 0) {
                c = Integer.compare(probe.replicaRank, worst.replicaRank);
              }
              if (c >= 0) {
                continue;
              }
              heap.poll();
            }
            final Victim v = new Victim();
            v.count = probe.count;
            v.lastSeen = probe.lastSeen;
            v.partitionRank = probe.partitionRank;
            v.replicaRank = probe.replicaRank;
            v.key = Arrays.copyOf(key, keyLength);
            v.replica = holders.replica(i);
            v.partition = p.id();
            heap.add(v);
          }
          return PrefixStoreV1.EntryVisitor.KEEP;
        });
    long lru = 0;
    long lfu = 0;
    final long now = clock.nanoTime();
    for (Victim v : heap) {
      final Partition p = partitions.get(v.partition);
      wkey.setRaw(v.key, v.key.length);
      if (removeHolderAt(p, v.replica, IndexListener.REMOVED_BY_CAP, now)) {
        if (policies.lfu(p.tenant())) {
          lfu++;
        } else {
          lru++;
        }
      }
    }
    if (lru > 0) {
      listener.onEvictions("lru", "cap", lru);
    }
    if (lfu > 0) {
      listener.onEvictions("lfu", "cap", lfu);
    }
  }

  private void enforceQuota(final int tenant) {
    final long max = policies.maxIndexEntries(tenant);
    if (max < 0) {
      return;
    }
    final Counter keys = tenantKeys.get(tenant);
    final long have = keys == null ? 0 : keys.get();
    if (have <= max) {
      return;
    }
    final long target = max - (long) Math.floor(max * config.evictionHeadroom());
    final int need = (int) Math.min(Integer.MAX_VALUE, have - target);
    final int[] pRank = partitionRanks();
    final Comparator<Victim> order =
        (x, y) -> {
          int c = Long.compare(x.lastSeen, y.lastSeen);
          if (c == 0) {
            c = Integer.compare(x.partitionRank, y.partitionRank);
          }
          if (c == 0) {
            c = compareKeyBytes(x.key, x.key.length, y.key, y.key.length);
          }
          return c;
        };
    final PriorityQueue<Victim> heap =
        new PriorityQueue<>(Math.min(need, 1 << 16), order.reversed());
    main.scanAll(
        (key, keyLength, holders, out) -> {
          final Partition p = partitions.get(KeyBuffer.partitionOf(key));
          if (p == null || p.tenant() != tenant) {
            return PrefixStoreV1.EntryVisitor.KEEP;
          }
          long newest = Long.MIN_VALUE;
          for (int i = 0; i < holders.count(); i++) {
            newest = Math.max(newest, holders.lastSeen(i));
          }
          final Victim v = new Victim();
          v.lastSeen = newest;
          v.partitionRank = pRank[p.id()];
          v.key = Arrays.copyOf(key, keyLength);
          v.partition = p.id();
          if (heap.size() < need) {
            heap.add(v);
          } else if (order.compare(v, heap.peek()) < 0) {
            heap.poll();
            heap.add(v);
          }
          return PrefixStoreV1.EntryVisitor.KEEP;
        });
    long evicted = 0;
    final long now = clock.nanoTime();
    for (Victim v : heap) {
      final Partition p = partitions.get(v.partition);
      wkey.setRaw(v.key, v.key.length);
      final int n = main.removeKey(wkey, removed);
      if (n > 0) {
        final boolean report = listener.wantsChanges();
        final byte[] hash = report ? wkey.hashCopy() : null;
        for (int i = 0; i < n; i++) {
          holderRemoved(p, removed.replica(i), removed.slot(i));
          if (report) {
            reportRemoved(p, hash, removed.replica(i), IndexListener.REMOVED_BY_QUOTA, now);
          }
        }
        keyRemoved(p);
        evicted++;
      }
    }
    if (evicted > 0) {
      listener.onTenantEvictions(dict.string(tenant), "over_entries", evicted);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Aggregates

  /**
   * GetCacheState for (tenant, model) (docs/behaviour.md#get-cache-state); empty for the reserved
   * tenant or unknown keys.
   */
  public CacheStateView cacheState(final String tenant, final String model) {
    final int t = dict.idOf(tenant);
    if (t == reservedTenantId) {
      return CacheStateView.EMPTY;
    }
    final TenantModelState tm = tmLookup(t, dict.idOf(model));
    if (tm == null) {
      return CacheStateView.EMPTY;
    }
    final StatsTable stats = tm.stats;
    final List<StatsRow> rows = new ArrayList<>();
    for (int i = 0; i < stats.size(); i++) {
      rows.add(stats.row(i));
    }
    rows.sort((a, b) -> dict.compare(a.replica(), b.replica()));
    final List<CacheStateView.ReplicaStatsRow> out = new ArrayList<>(rows.size());
    for (StatsRow r : rows) {
      out.add(
          new CacheStateView.ReplicaStatsRow(
              dict.string(r.replica()),
              r.cacheMemoryBytes(),
              r.hitRate(),
              r.pressure(),
              r.t2HitTokens(),
              r.t2QueryTokens()));
    }
    return new CacheStateView(tm.prefixes, out);
  }

  /** Per (tenant, replica) accumulator of {@link #snapshot()}. */
  private static final class RowAcc {
    final int tenant;
    final int replica;
    StatsRow stats;
    long prefixCount;
    long lastEventAt;

    RowAcc(final int tenant, final int replica) {
      this.tenant = tenant;
      this.replica = replica;
    }
  }

  /**
   * The {@code /snapshot} aggregate (docs/behaviour.md#snapshot). Walks the index once under the
   * writer lock (ingest waits; lookups do not).
   */
  public IndexSnapshot snapshot() {
    writeLock.lock();
    try {
      ensureOpen();
      final java.util.Map<Long, RowAcc> rows = new java.util.HashMap<>();
      final java.util.Set<Integer> tenants = new java.util.HashSet<>();
      final int tmn = tmIds.size();
      for (int id = 0; id < tmn; id++) {
        final TenantModelState tm = tms.get(id);
        if (tm == null || tm.tenant == reservedTenantId) {
          continue;
        }
        final StatsTable st = tm.stats;
        for (int i = 0; i < st.size(); i++) {
          final StatsRow r = st.row(i);
          final RowAcc acc =
              rows.computeIfAbsent(
                  LongIdMap.pack(tm.tenant, r.replica()), k -> new RowAcc(tm.tenant, r.replica()));
          if (acc.stats == null || r.lastSeen() > acc.stats.lastSeen()) {
            acc.stats = r;
          }
          tenants.add(tm.tenant);
        }
      }
      main.scanAll(
          (key, keyLength, holders, out) -> {
            final Partition p = partitions.get(KeyBuffer.partitionOf(key));
            if (p == null || p.reserved()) {
              return PrefixStoreV1.EntryVisitor.KEEP;
            }
            tenants.add(p.tenant());
            for (int i = 0; i < holders.count(); i++) {
              final int replica = holders.replica(i);
              final RowAcc acc =
                  rows.computeIfAbsent(
                      LongIdMap.pack(p.tenant(), replica), k -> new RowAcc(p.tenant(), replica));
              acc.prefixCount++;
              acc.lastEventAt = Math.max(acc.lastEventAt, holders.lastSeen(i));
            }
            return PrefixStoreV1.EntryVisitor.KEEP;
          });
      final List<RowAcc> accs = new ArrayList<>(rows.values());
      accs.sort(
          (a, b) -> {
            final int c = dict.compare(a.tenant, b.tenant);
            return c != 0 ? c : dict.compare(a.replica, b.replica);
          });
      final List<IndexSnapshot.ReplicaRow> replicaRows = new ArrayList<>(accs.size());
      final java.util.Map<Integer, double[]> hit = new java.util.HashMap<>();
      for (RowAcc a : accs) {
        final StatsRow s = a.stats;
        replicaRows.add(
            new IndexSnapshot.ReplicaRow(
                dict.string(a.replica),
                dict.string(a.tenant),
                s == null ? 0 : s.cacheMemoryBytes(),
                s == null ? 0f : s.hitRate(),
                s == null ? 0f : s.pressure(),
                s == null ? 0 : s.lastSeen(),
                a.prefixCount,
                a.lastEventAt,
                s != null,
                s == null ? 0 : s.t2HitTokens(),
                s == null ? 0 : s.t2QueryTokens()));
        if (s != null) {
          final double[] sum = hit.computeIfAbsent(a.tenant, k -> new double[2]);
          sum[0] += s.hitRate();
          sum[1] += 1;
        }
      }
      final List<Integer> tenantIds = new ArrayList<>(tenants);
      tenantIds.sort(dict::compare);
      final List<IndexSnapshot.TenantRow> tenantRows = new ArrayList<>(tenantIds.size());
      long total = 0;
      for (int t : tenantIds) {
        final long entries = tenantKeyCount(t);
        final double[] sum = hit.get(t);
        tenantRows.add(
            new IndexSnapshot.TenantRow(
                dict.string(t),
                entries,
                sum == null ? 0f : (float) (sum[0] / sum[1]),
                sum != null));
        total += entries;
      }
      return new IndexSnapshot(replicaRows, tenantRows, total, 0);
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
      final long[] entries = new long[2];
      final long[] keys = new long[1];
      final java.util.Map<Integer, Long> perTenant = new java.util.HashMap<>();
      final java.util.Map<Long, Long> perScopeReplica = new java.util.HashMap<>();
      final PrefixStoreV1.EntryVisitor v =
          (key, keyLength, holders, out) -> {
            final Partition p = partitions.get(KeyBuffer.partitionOf(key));
            keys[0]++;
            entries[p.reserved() ? 1 : 0] += holders.count();
            perTenant.merge(p.tenant(), 1L, Long::sum);
            for (int i = 0; i < holders.count(); i++) {
              perScopeReplica.merge(LongIdMap.pack(p.scope(), holders.replica(i)), 1L, Long::sum);
            }
            return PrefixStoreV1.EntryVisitor.KEEP;
          };
      main.scanAll(v);
      reserved.scanAll(v);
      final List<String> problems = new ArrayList<>();
      if (keys[0] != totalKeys.get()) {
        problems.add("totalKeys " + totalKeys.get() + " != recount " + keys[0]);
      }
      if (entries[0] + entries[1] != totalEntries.get()) {
        problems.add(
            "totalEntries " + totalEntries.get() + " != recount " + (entries[0] + entries[1]));
      }
      if (entries[1] != reservedEntries.get()) {
        problems.add("reservedEntries " + reservedEntries.get() + " != recount " + entries[1]);
      }
      for (int t = 0; t < dict.size(); t++) {
        final long want = perTenant.getOrDefault(t, 0L);
        if (tenantKeyCount(t) != want) {
          problems.add("tenant " + dict.string(t) + " keys " + tenantKeyCount(t) + " != " + want);
        }
      }
      for (int s = 0; s < scopeIds.size(); s++) {
        final ScopeState sc = scopes.get(s);
        for (int r = 0; r < dict.size(); r++) {
          final long want = perScopeReplica.getOrDefault(LongIdMap.pack(s, r), 0L);
          if (sc.count(r) != want || sc.serves(r) != (want > 0)) {
            problems.add(
                "scope " + s + " replica " + dict.string(r) + " " + sc.count(r) + " != " + want);
          }
        }
      }
      if (arena.used() != totalEntries.get()) {
        problems.add("LFU slots in use " + arena.used() + " != entries " + totalEntries.get());
      }
      return problems;
    } finally {
      writeLock.unlock();
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("index is closed");
    }
  }

  // Package-private access for the lookup and aggregate code in this package.
  StringDictionary dictionary() {
    return dict;
  }

  PrefixStoreV1 mainStore() {
    return main;
  }

  PrefixStoreV1 reservedStore() {
    return reserved;
  }

  CounterArena arena() {
    return arena;
  }

  IndexConfig config() {
    return config;
  }

  TenantPolicies policies() {
    return policies;
  }

  /** Whether {@link #policies()} reads {@link #policyStore()} (no policies from the config). */
  boolean policiesFromStore() {
    return policiesFromStore;
  }

  LookupsV1 lookups() {
    return lookups;
  }

  EpochNanoClock clock() {
    return clock;
  }

  TenantModelState tm(final int tenant, final int model) {
    return tmLookup(tenant, model);
  }

  ScopeState scope(final TenantModelState tm, final int scheme) {
    return scopeLookup(tm, scheme);
  }

  Partition partition(final TenantModelState tm, final int scheme, final int adapter) {
    final ScopeState s = scopeLookup(tm, scheme);
    if (s == null || adapter < 0) {
      return null;
    }
    final int pid = partitionIds.get(LongIdMap.pack(s.id, adapter));
    return pid < 0 ? null : partitions.get(pid);
  }

  Partition partitionById(final int pid) {
    return partitions.get(pid);
  }

  int partitionCount() {
    return partitionIds.size();
  }

  TenantModelState tmById(final int id) {
    return tms.get(id);
  }

  int tmCount() {
    return tmIds.size();
  }

  long ttlNanosOf(final int tenant) {
    return ttlOf(tenant);
  }

  int reservedTenantId() {
    return reservedTenantId;
  }

  long tenantKeyCount(final int tenant) {
    final Counter c = tenantKeys.get(tenant);
    return c == null ? 0 : c.get();
  }

  /** Storage entries (one per (prefix key, replica)), reserved tenant included. */
  public long totalEntries() {
    return totalEntries.get();
  }

  /** Storage entries of the reserved probe tenant. */
  public long reservedEntries() {
    return reservedEntries.get();
  }

  /** Distinct prefix keys, reserved tenant included. */
  public long totalKeys() {
    return totalKeys.get();
  }

  /** Distinct prefix keys of {@code model}, reserved tenant excluded (the index gauge). */
  public long modelKeys(final String model) {
    final int id = dict.idOf(model);
    final Counter c = id < 0 ? null : modelKeys.get(id);
    return c == null ? 0 : c.get();
  }

  /** Hashes rejected at ingest for being longer than {@link HolderLayout#MAX_HASH_BYTES}. */
  public long rejectedHashes() {
    return rejectedHashes.get();
  }

  /** Entries dropped because no room could be made (should stay 0). */
  public long droppedFull() {
    return droppedFull.get();
  }

  /** Off-heap bytes used by the prefix map and the LFU counters (reserved map excluded). */
  public long offHeapBytes() {
    return main.offHeapBytes() + arena.bytes();
  }

  /** Names of every interned string, for diagnostics. */
  List<String> names() {
    final List<String> out = new ArrayList<>();
    for (int i = 0; i < dict.size(); i++) {
      out.add(dict.string(i));
    }
    return out;
  }
}
