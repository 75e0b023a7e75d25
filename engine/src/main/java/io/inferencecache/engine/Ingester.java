package io.inferencecache.engine;

import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;
import java.util.List;
import org.agrona.concurrent.EpochNanoClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The write path of the subscribers' updates (docs/behaviour.md#ingest — prefix entries, the stats
 * row, then the tenant's quota and the global cap); events are {@link EventApplier}'s. Full storage
 * never throws: the arena or map running out evicts by {@link VictimOrder} and the entry is retried
 * once.
 *
 * <p><b>Threads.</b> Index writer only (the caller holds the writer lock).
 */
final class Ingester {
  private static final Logger LOG = LoggerFactory.getLogger(CacheIndex.class);

  private final EpochNanoClock clock;
  private final PartitionRegistry registry;
  private final StringDictionary dict;
  private final SecondaryCounts counts;
  private final IndexStorage storage;
  private final IndexChanges changes;
  private final IndexListener listener;
  private final Evictor evictor;
  private final LfuCounters lfu;
  // Whether the update's new entries get an LFU counter (its tenant's, set once per update).
  private boolean counter;
  private final KeyBuffer wkey = new KeyBuffer();

  /**
   * Blocks of a chain whose directory slots are read in one go before they are upserted ({@link
   * RunStore#prefetch}): enough misses to overlap, few enough to stay in the L1 cache.
   */
  static final int PREFETCH_BLOCKS = 32;

  private final KeyBuffer pkey = new KeyBuffer(); // the prefetch's scratch
  // A chain's cumulative token counts (block j: the sum of its counts up to j), reused.
  private int[] cumulative = new int[64];

  Ingester(final EngineState state, final IndexChanges changes, final Evictor evictor) {
    this.clock = state.clock;
    this.registry = state.registry;
    this.dict = state.dict;
    this.counts = state.counts;
    this.storage = state.storage;
    this.changes = changes;
    this.listener = changes.listener();
    this.evictor = evictor;
    this.lfu = state.lfuCounters;
  }

  /** Wires the storage's drop reports to this writer (after the storage is open). */
  void attach() {
    storage.main().dropSink(new Refusals(true));
    storage.reserved().dropSink(new Refusals(false));
  }

  /** A map's refused changes; {@code retriable}: the main map, which can make room. */
  private final class Refusals implements RunStore.DropSink {
    private final boolean retriable;

    Refusals(final boolean retriable) {
      this.retriable = retriable;
    }

    @Override
    public void dropped(
        final byte[] key,
        final int keyLength,
        final int replica,
        final int slot,
        final boolean keyGone) {
      refused(key, keyLength, replica, slot, keyGone, retriable);
    }

    @Override
    public void refreshLost(final byte[] key, final int keyLength, final int replica) {
      refreshRefused(key, keyLength, replica, retriable);
    }
  }

  /** A report's timestamp in nanoseconds; 0 (unset) is {@code now}. */
  static long tsNanos(final long micros, final long now) {
    return micros == 0 ? now : micros * 1000L;
  }

  private static float finite(final float f) {
    return Float.isFinite(f) ? f : 0f;
  }

  // ---------------------------------------------------------------------------------------------
  // Updates

  void ingest(final IngestUpdate u) {
    final long now = clock.nanoTime();
    final long ts = tsNanos(u.timestampMicros(), now);
    final int tenant = dict.intern(u.tenantId());
    final int model = dict.intern(u.modelId());
    final int replica = dict.intern(u.replicaId());
    counter = lfu.prepare(tenant);
    if (!u.hashScheme().isEmpty()) {
      final int scheme = dict.intern(u.hashScheme());
      beginJournal(replica, ts);
      try {
        for (IngestPrefix e : u.prefixes()) {
          ingestEntry(u, e, tenant, model, scheme, replica, ts);
        }
        storage.main().flush();
        storage.reserved().flush();
        retryRefused();
      } finally {
        endJournal();
      }
    }
    final IngestStats st = u.stats();
    if (st != null) {
      final TenantModelState tm = registry.tmFor(tenant, model);
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
    storage.persistNewMetadata();
    if (tenant != registry.reservedTenantId()) {
      evictor.enforceQuota(tenant);
    }
    evictor.enforceCap();
    counts.flushModelGauges(listener);
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
    final Partition p = registry.partitionFor(tenant, model, scheme, dict.intern(adapterName));
    final List<byte[]> hashes = e.blockHashes() == null ? List.of() : e.blockHashes();
    final int[] blockCounts = e.blockTokenCounts() == null ? new int[0] : e.blockTokenCounts();
    final byte[] prefix = e.prefixHash() == null ? new byte[0] : e.prefixHash();
    final RunStore store = storage.storeOf(p);
    if (!hashes.isEmpty() || blockCounts.length > 0) {
      if (hashes.size() != blockCounts.length) {
        return; // malformed chain entries are dropped whole
      }
      final int n = blockCounts.length;
      if (cumulative.length < n) {
        cumulative = new int[Math.max(n, cumulative.length * 2)];
      }
      int sum = 0;
      for (int j = 0; j < n; j++) {
        sum += blockCounts[j]; // int32 running sum, wrapping like upstream
        cumulative[j] = sum;
      }
      chainStart(store);
      // A refresh per run is tried where the chain starts and where the last one ended; once the
      // store declines, the rest of the chain is upserted block by block.
      boolean perRun = true;
      int prefetched = 0;
      for (int j = 0; j < n; ) {
        final int refreshed = perRun ? refreshInPlace(p, store, hashes, j, replica, ts, tier) : 0;
        if (refreshed > 0) {
          j += refreshed;
        } else {
          perRun = false;
          if (j >= prefetched) {
            prefetched = Math.min(n, j + PREFETCH_BLOCKS);
            if (prefetched - j > 1) { // one block alone has no miss to overlap
              store.prefetch(pkey, p.id(), hashes, j, prefetched);
            }
          }
          upsert(p, hashes.get(j), replica, cumulative[j], ts, tier);
          j++;
        }
      }
      if (prefix.length > 0) {
        chainStart(store); // the whole-prefix key is not a block of the chain's run
        upsert(p, prefix, replica, e.tokenCount(), ts, tier);
      }
    } else {
      chainStart(store);
      upsert(p, prefix, replica, e.tokenCount(), ts, tier);
    }
  }

  /**
   * Refreshes, per run, the blocks {@code hashes[from..]} a replica re-reports where the store can
   * do so exactly as the per-block upserts would ({@link RunStore#refreshChain}); each refreshed
   * block is journalled and reported like an upsert whose outcome is {@link RunStore#REFRESHED}.
   * Returns how many blocks it refreshed (0: upsert block {@code from}). Not taken while the arena
   * is full: there an upsert makes room first, whatever its outcome.
   */
  private int refreshInPlace(
      final Partition p,
      final RunStore store,
      final List<byte[]> hashes,
      final int from,
      final int replica,
      final long ts,
      final int tier) {
    final byte[] first = hashes.get(from);
    if (first == null
        || refusedCount > 0
        || !storage.arena().hasFree()
        || !wkey.set(p.id(), first, 0, first.length)) {
      return 0;
    }
    final int n = store.refreshChain(wkey, hashes, from, cumulative, replica, ts, tier);
    for (int j = from; j < from + n; j++) {
      final int k = journal(p.id(), hashes.get(j), cumulative[j], tier);
      if (listener.wantsChanges()) {
        changes.reportStored(p, journalHash[k], replica, journalTokens[k], journalTs);
      }
    }
    return n;
  }

  private void upsert(
      final Partition p,
      final byte[] hash,
      final int replica,
      final int tokens,
      final long ts,
      final int tier) {
    if (hash == null || !wkey.set(p.id(), hash, 0, hash.length)) {
      counts.hashRejected();
      return;
    }
    if (!storage.arena().hasFree()) {
      evictor.evictForSpace();
      if (!storage.arena().hasFree()) {
        counts.entryDroppedFull();
        retryRefused();
        return;
      }
    }
    if (counter && !storage.arena().counterRoom()) {
      counterRoomFailed(); // evicting would not help: the counters' memory cannot grow
      retryRefused();
      return;
    }
    counterRoomFailing = false;
    store(p, journal(p.id(), hash, tokens, tier), false, false, false);
    retryRefused();
  }

  // Whether the counters' memory could not grow at the last upsert of an LFU tenant's entry.
  private boolean counterRoomFailing;

  /**
   * Drops an LFU tenant's upsert for which no counter can be made (direct memory or the counter
   * file cannot grow); the first of a series is logged.
   */
  private void counterRoomFailed() {
    counts.entryDroppedFull();
    if (!counterRoomFailing) {
      counterRoomFailing = true;
      LOG.error(
          "event=lfu_counters_failed: the LFU counters cannot grow (direct memory or disk);"
              + " LFU tenants' upserts are dropped until they can");
    }
  }

  /**
   * Whether one more entry fits: the storage budget has room and, for an LFU tenant's entry, a
   * counter can be handed out (false only when the counters cannot grow: memory or disk exhausted).
   * For the retry of refused upserts, after eviction.
   */
  private boolean room() {
    return storage.arena().hasFree() && (!counter || storage.arena().counterRoom());
  }

  // ---------------------------------------------------------------------------------------------
  // Full storage: evict by the victim order, retry once, drop only then (design.md §5)

  // The upserts of the update being ingested (the writer's journal, reused): what a refused cell
  // is retried with. One replica and one timestamp per update.
  private boolean inUpdate;
  private boolean retrying;
  private int journalReplica;
  private long journalTs;
  private int journalSize;
  private int[] journalPartition = new int[64];
  private byte[][] journalHash = new byte[64][];
  private int[] journalTokens = new int[64];
  private int[] journalTier = new int[64];
  private boolean[] journalChainStart = new boolean[64];
  private boolean chainStarts;
  // The journal entries the storage refused on their first attempt, and whether the listener has
  // already been told they were stored (a run refused at its store) or not (refused at its upsert).
  private int refusedCount;
  private int[] refused = new int[16];
  private boolean[] refusedReported = new boolean[16];
  // whether the refused upsert was a refresh (its holder stayed stored with its previous values)
  private boolean[] refusedRefresh = new boolean[16];

  private void beginJournal(final int replica, final long ts) {
    inUpdate = true;
    journalReplica = replica;
    journalTs = ts;
    journalSize = 0;
    refusedCount = 0;
  }

  private void endJournal() {
    inUpdate = false;
    java.util.Arrays.fill(journalHash, 0, journalSize, null);
    journalSize = 0;
    refusedCount = 0;
  }

  private int journal(final int partition, final byte[] hash, final int tokens, final int tier) {
    final int j = journalSize;
    if (j == journalPartition.length) {
      final int n = j * 2;
      journalPartition = java.util.Arrays.copyOf(journalPartition, n);
      journalHash = java.util.Arrays.copyOf(journalHash, n);
      journalTokens = java.util.Arrays.copyOf(journalTokens, n);
      journalTier = java.util.Arrays.copyOf(journalTier, n);
      journalChainStart = java.util.Arrays.copyOf(journalChainStart, n);
    }
    journalPartition[j] = partition;
    journalHash[j] = hash;
    journalTokens[j] = tokens;
    journalTier[j] = tier;
    journalChainStart[j] = chainStarts;
    chainStarts = false;
    journalSize = j + 1;
    return j;
  }

  /** The next upsert starts a chain (it is not appended to the previous block's run). */
  private void chainStart(final RunStore store) {
    store.chainStart();
    chainStarts = true;
  }

  /** The latest journal entry that upserted {@code key}, or -1. */
  private int journalIndexOf(final byte[] key, final int keyLength) {
    final int pid = KeyBuffer.partitionOf(key);
    final int len = keyLength - HolderLayout.KEY_PARTITION_BYTES;
    for (int j = journalSize - 1; j >= 0; j--) {
      final byte[] h = journalHash[j];
      if (journalPartition[j] == pid
          && h.length == len
          && java.util.Arrays.equals(h, 0, len, key, HolderLayout.KEY_PARTITION_BYTES, keyLength)) {
        return j;
      }
    }
    return -1;
  }

  private void refuse(final int j, final boolean reported, final boolean refresh) {
    for (int k = 0; k < refusedCount; k++) {
      if (refused[k] == j) {
        refusedReported[k] |= reported;
        refusedRefresh[k] |= refresh;
        return;
      }
    }
    if (refusedCount == refused.length) {
      refused = java.util.Arrays.copyOf(refused, refusedCount * 2);
      refusedReported = java.util.Arrays.copyOf(refusedReported, refusedCount * 2);
      refusedRefresh = java.util.Arrays.copyOf(refusedRefresh, refusedCount * 2);
    }
    refused[refusedCount] = j;
    refusedReported[refusedCount] = reported;
    refusedRefresh[refusedCount] = refresh;
    refusedCount++;
  }

  /**
   * Upserts journal entry {@code j} (its key in {@link #wkey}). A map that refuses to grow for a
   * block appended to a run throws here; a first attempt is then kept for {@link #retryRefused}.
   * {@code reported}: a retry whose first attempt the listener was already told was stored; {@code
   * refresh}: that first attempt was a refresh, so a retry that stores the holder anew (it was
   * evicted, and reported removed, in between) is reported stored again.
   */
  private void store(
      final Partition p,
      final int j,
      final boolean retry,
      final boolean reported,
      final boolean refresh) {
    final int replica = journalReplica;
    final int outcome;
    try {
      outcome =
          storage
              .storeOf(p)
              .upsert(
                  wkey,
                  replica,
                  journalTokens[j],
                  journalTs,
                  journalTier[j],
                  storage.arena(),
                  counter);
    } catch (IllegalStateException full) {
      if (!retry && !p.reserved()) {
        refuse(j, false, false);
      } else if (refresh) {
        refreshDroppedForGood();
      } else {
        dropForGood(p, journalHash[j], replica, reported);
      }
      return;
    }
    changes.counted(p, outcome, replica);
    final boolean tell = !reported || (refresh && outcome != RunStore.REFRESHED);
    if (tell && listener.wantsChanges()) {
      changes.reportStored(p, journalHash[j], replica, journalTokens[j], journalTs);
    }
  }

  /**
   * Makes room and retries, once, every upsert the main map refused since the last call: the
   * pending run is stored first (so every first attempt's outcome is known), then {@link
   * Evictor#evictForSpace} evicts by the victim order, then the refused entries are upserted again
   * in their ingest order and stored. What the map refuses then is dropped for good.
   */
  private void retryRefused() {
    if (refusedCount == 0 || retrying) {
      return;
    }
    final RunStore main = storage.main();
    main.flush();
    retrying = true;
    try {
      evictor.evictForSpace();
      sortRefused();
      int previous = -2;
      for (int k = 0; k < refusedCount; k++) {
        final int j = refused[k];
        final Partition p = registry.partitionById(journalPartition[j]);
        final boolean reported = refusedReported[k];
        final boolean refresh = refusedRefresh[k];
        wkey.set(p.id(), journalHash[j], 0, journalHash[j].length);
        if (!room()) {
          if (refresh) {
            refreshDroppedForGood();
          } else {
            dropForGood(p, journalHash[j], journalReplica, reported);
          }
          continue;
        }
        if (journalChainStart[j] || j != previous + 1) {
          main.chainStart();
        }
        previous = j;
        store(p, j, true, reported, refresh);
      }
      main.flush();
    } finally {
      retrying = false;
      refusedCount = 0;
    }
  }

  private void sortRefused() {
    for (int k = 1; k < refusedCount; k++) {
      final int j = refused[k];
      final boolean rep = refusedReported[k];
      final boolean fresh = refusedRefresh[k];
      int i = k - 1;
      while (i >= 0 && refused[i] > j) {
        refused[i + 1] = refused[i];
        refusedReported[i + 1] = refusedReported[i];
        refusedRefresh[i + 1] = refusedRefresh[i];
        i--;
      }
      refused[i + 1] = j;
      refusedReported[i + 1] = rep;
      refusedRefresh[i + 1] = fresh;
    }
  }

  /**
   * A holder a map did not store after all (it refused to grow when the writer stored the run):
   * uncounted and its slot freed at once; in the main map retried once if it is an upsert of this
   * update, else (and always in the reserved map, which is not evicted by size) dropped for good.
   */
  private void refused(
      final byte[] key,
      final int keyLength,
      final int replica,
      final int slot,
      final boolean keyGone,
      final boolean retriable) {
    final Partition p = registry.partitionById(KeyBuffer.partitionOf(key));
    changes.holderGone(p, replica, slot, keyGone);
    final int j = retriable && inUpdate && !retrying ? journalIndexOf(key, keyLength) : -1;
    if (j >= 0) {
      refuse(j, true, false);
    } else {
      dropForGood(p, IndexChanges.hashOf(key, keyLength), replica, true);
    }
  }

  /**
   * A refresh a map did not store after all: the holder stays stored, counted, with its previous
   * values; in the main map retried once if it is an upsert of this update, else counted dropped.
   */
  private void refreshRefused(
      final byte[] key, final int keyLength, final int replica, final boolean retriable) {
    final int j = retriable && inUpdate && !retrying ? journalIndexOf(key, keyLength) : -1;
    if (j >= 0) {
      refuse(j, true, true);
    } else {
      refreshDroppedForGood();
    }
  }

  /**
   * Counts a refresh no room could be made for. The holder is still stored (with its previous
   * values), so the listener, told it was stored, is not told it was removed.
   */
  private void refreshDroppedForGood() {

    counts.entryDroppedFull();
    LOG.warn("event=index_full: refresh dropped");
  }

  /**
   * Counts an entry no room could be made for; one the listener was told was stored is reported
   * removed to make room (reason cap).
   */
  private void dropForGood(
      final Partition p, final byte[] hash, final int replica, final boolean reported) {

    counts.entryDroppedFull();
    LOG.warn("event=index_full: entry dropped");
    if (reported && listener.wantsChanges()) {
      changes.reportRemoved(
          p, hash.clone(), replica, IndexListener.REMOVED_BY_CAP, clock.nanoTime());
    }
  }
}
