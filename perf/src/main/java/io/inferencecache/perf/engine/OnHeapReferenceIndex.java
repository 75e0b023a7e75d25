package io.inferencecache.perf.engine;

import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.Outcome;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import org.agrona.concurrent.EpochNanoClock;

/**
 * The baseline the engine is measured against: the upstream (Go) index design transposed to plain
 * Java collections on the heap. Nested hash maps — prefix key {@code (tenant, model, scheme,
 * adapter, hash)} → {@code replica → Entry} — with the secondary counts of
 * docs/behaviour.md#index-model kept in lock-step, all under one {@link ReentrantReadWriteLock};
 * LFU access counts are {@link AtomicLong}s bumped outside the lock.
 *
 * <p>Lookup semantics are those of the engine ({@code CacheIndex#lookup} and {@code
 * CacheIndex#lookupRoute}, docs/behaviour.md#lookup-walk, #scores, #tenant-hot,
 * #miss-classification): freshness, pressure and SLO factors, depth-aware distinguishing power,
 * score-then-replica ordering, matched tokens from the request's counts, TENANT_HOT on exact misses
 * and the miss classification, with the same float32 operation order so scores are bit-identical.
 * Not implemented (no benchmark reaches them): TTL sweep, global cap, tenant quotas, events,
 * per-tenant TTL policies (one TTL for every tenant).
 *
 * <p>Inputs are the engine's own {@link IngestUpdate} and {@link LookupRequest}, so both indexes
 * are driven by the same benchmark data. Lookups allocate (keys, runs, the result), as the upstream
 * design does.
 */
public final class OnHeapReferenceIndex {
  /** A distinct prefix key. The hash is an owned copy (ingest) or a view (lookup probes). */
  record PrefixKey(String tenant, String model, String scheme, String adapter, ByteBuffer hash) {}

  record TenantModel(String tenant, String model) {}

  record Scope(String tenant, String model, String scheme) {}

  record StatsKey(String tenant, String model, String replica) {}

  /** One storage entry: (prefix key, replica). */
  static final class Entry {
    int tokenCount;
    long lastSeen;
    int tier;
    final AtomicLong accessCount = new AtomicLong();
  }

  static final class StatEntry {
    IngestStats stats;
    long lastSeen;
    long statsReported;
  }

  /** One scored replica. */
  public record ScoredReplica(
      String replicaId, float score, int matchedTokens, float estimatedCacheHitProb, int tier) {}

  /**
   * A lookup's answer: the outcome, the scores best first and the LFU entries a delivery credits.
   */
  public record Result(Outcome outcome, List<ScoredReplica> scores, List<Entry> hits) {
    static final Result NONE = new Result(Outcome.NONE, List.of(), List.of());

    static Result of(final Outcome o) {
      return o == Outcome.NONE ? NONE : new Result(o, List.of(), List.of());
    }
  }

  private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
  private final EpochNanoClock clock;
  private final long ttlNanos;
  private final float pressureWeight;
  private final int sloTightTtftMs;
  private final float sloTightBias;
  private final long tenantHotMaxAgeNanos;
  private final float tenantHotMinHitRate;

  private final Map<PrefixKey, Map<String, Entry>> prefixes = new HashMap<>();
  private final Map<StatsKey, StatEntry> stats = new HashMap<>();
  private final Map<String, Long> prefixesByTenant = new HashMap<>();
  private final Map<TenantModel, Long> prefixesByTenantModel = new HashMap<>();
  private final Map<Scope, Map<String, Integer>> servingByScope = new HashMap<>();
  private final Map<TenantModel, Set<String>> replicasByModel = new HashMap<>();
  private long totalEntries;

  /** An index with the engine's defaults, reading time from {@code clock}. */
  public OnHeapReferenceIndex(final EpochNanoClock clock) {
    this(new IndexConfig().clock(clock));
  }

  /** An index with the scoring settings of {@code config} (its TTL, weights and clock). */
  public OnHeapReferenceIndex(final IndexConfig config) {
    config.conclude();
    this.clock = config.clock();
    this.ttlNanos = config.defaultTtlNanos();
    this.pressureWeight = config.pressureWeight();
    this.sloTightTtftMs = config.sloTightTtftMs();
    this.sloTightBias = config.sloTightBias();
    this.tenantHotMaxAgeNanos = config.tenantHotMaxAgeNanos();
    this.tenantHotMinHitRate = config.tenantHotMinHitRate();
  }

  /** Storage entries (one per (prefix key, replica)). */
  public long totalEntries() {
    lock.readLock().lock();
    try {
      return totalEntries;
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Distinct prefix keys. */
  public long totalKeys() {
    lock.readLock().lock();
    try {
      return prefixes.size();
    } finally {
      lock.readLock().unlock();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Ingest (docs/behaviour.md#ingest)

  /** Ingests one update under the write lock. */
  public void ingest(final IngestUpdate u) {
    lock.writeLock().lock();
    try {
      final long now = clock.nanoTime();
      final long ts = u.timestampMicros() == 0 ? now : u.timestampMicros() * 1000L;
      if (!u.hashScheme().isEmpty()) {
        for (IngestPrefix e : u.prefixes()) {
          ingestEntry(u, e, ts);
        }
      }
      final IngestStats st = u.stats();
      if (st != null) {
        final StatsKey key = new StatsKey(u.tenantId(), u.modelId(), u.replicaId());
        final StatEntry row = stats.computeIfAbsent(key, k -> new StatEntry());
        row.stats =
            new IngestStats(
                st.cacheMemoryBytes(),
                finite(st.hitRate()),
                finite(st.pressure()),
                st.t2HitTokens(),
                st.t2QueryTokens());
        row.lastSeen = ts;
        row.statsReported = ts;
        replicasByModel
            .computeIfAbsent(new TenantModel(u.tenantId(), u.modelId()), k -> new HashSet<>())
            .add(u.replicaId());
      }
    } finally {
      lock.writeLock().unlock();
    }
  }

  private static float finite(final float f) {
    return Float.isFinite(f) ? f : 0f;
  }

  private void ingestEntry(final IngestUpdate u, final IngestPrefix e, final long ts) {
    final int tier = e.tier() == 0 ? 1 : e.tier();
    final String adapter =
        e.adapterId() != null && !e.adapterId().isEmpty() ? e.adapterId() : u.adapterId();
    final List<byte[]> hashes = e.blockHashes() == null ? List.of() : e.blockHashes();
    final int[] counts = e.blockTokenCounts() == null ? new int[0] : e.blockTokenCounts();
    final byte[] prefix = e.prefixHash() == null ? new byte[0] : e.prefixHash();
    if (!hashes.isEmpty() || counts.length > 0) {
      if (hashes.size() != counts.length) {
        return;
      }
      int cumulative = 0;
      for (int j = 0; j < counts.length; j++) {
        cumulative += counts[j];
        upsert(u, adapter, hashes.get(j), cumulative, ts, tier);
      }
      if (prefix.length > 0) {
        upsert(u, adapter, prefix, e.tokenCount(), ts, tier);
      }
    } else {
      upsert(u, adapter, prefix, e.tokenCount(), ts, tier);
    }
  }

  private void upsert(
      final IngestUpdate u,
      final String adapter,
      final byte[] hash,
      final int tokens,
      final long ts,
      final int tier) {
    final PrefixKey key =
        new PrefixKey(
            u.tenantId(),
            u.modelId(),
            u.hashScheme(),
            adapter,
            ByteBuffer.wrap(Arrays.copyOf(hash, hash.length)));
    Map<String, Entry> holders = prefixes.get(key);
    if (holders == null) {
      holders = new HashMap<>();
      prefixes.put(key, holders);
      prefixesByTenant.merge(u.tenantId(), 1L, Long::sum);
      prefixesByTenantModel.merge(new TenantModel(u.tenantId(), u.modelId()), 1L, Long::sum);
    }
    Entry entry = holders.get(u.replicaId());
    if (entry == null) {
      entry = new Entry();
      holders.put(u.replicaId(), entry);
      totalEntries++;
      servingByScope
          .computeIfAbsent(
              new Scope(u.tenantId(), u.modelId(), u.hashScheme()), k -> new HashMap<>())
          .merge(u.replicaId(), 1, Integer::sum);
    }
    entry.tokenCount = tokens;
    entry.lastSeen = ts;
    entry.tier = tier;
  }

  // ---------------------------------------------------------------------------------------------
  // Lookups (docs/behaviour.md#lookup-walk, #scores, #tenant-hot)

  /**
   * The plain lookup (docs/behaviour.md#lookup-walk): scored holders of the chain or exact key, no
   * fallback.
   */
  public Result lookup(final LookupRequest q) {
    final String scheme = q.hashScheme().toString();
    if (scheme.isEmpty()) {
      return Result.NONE;
    }
    lock.readLock().lock();
    try {
      final Result r = match(q, scheme);
      return r == null ? Result.NONE : r;
    } finally {
      lock.readLock().unlock();
    }
  }

  /**
   * The index part of LookupRoute (step 11 of docs/behaviour.md#lookup-route), as the engine's
   * {@code lookupRoute}.
   */
  public Result lookupRoute(final LookupRequest q) {
    final String tenant = q.tenant().toString();
    final String model = q.model().toString();
    final String scheme = q.hashScheme().toString();
    if (tenant.isEmpty() || model.isEmpty() || scheme.isEmpty()) {
      return Result.NONE;
    }
    lock.readLock().lock();
    try {
      if (q.hasChain() && q.chainMalformed()) {
        return Result.NONE;
      }
      final Result r = match(q, scheme);
      if (r != null) {
        return r;
      }
      if (!q.hasChain()) {
        final Result hot = tenantHot(q, tenant, model, scheme);
        if (hot != null) {
          return hot;
        }
      }
      return Result.of(classify(tenant, model, scheme));
    } finally {
      lock.readLock().unlock();
    }
  }

  /** Credits the LFU counters of a delivered PREFIX_MATCH; returns the number credited. */
  public int creditDelivered(final Result r) {
    if (r.outcome() != Outcome.PREFIX_MATCH) {
      return 0;
    }
    for (Entry e : r.hits()) {
      e.accessCount.incrementAndGet();
    }
    return r.hits().size();
  }

  /** PREFIX_MATCH result or null on a miss; caller holds the read lock. */
  private Result match(final LookupRequest q, final String scheme) {
    if (q.hasChain()) {
      return q.chainMalformed() ? null : walkChain(q, scheme);
    }
    return exact(q, scheme);
  }

  private PrefixKey probe(
      final LookupRequest q, final String scheme, final byte[] b, final int off, final int len) {
    return new PrefixKey(
        q.tenant().toString(),
        q.model().toString(),
        scheme,
        q.adapter().toString(),
        ByteBuffer.wrap(b, off, len));
  }

  private float pressureFactor(
      final String tenant, final String model, final String replica, final long now) {
    final StatEntry row = stats.get(new StatsKey(tenant, model, replica));
    float pressure = 0f;
    if (row != null && ReferenceScoring.freshness(now - row.statsReported, ttlNanos) > 0f) {
      pressure = row.stats.pressure();
    }
    return pressureFactor(pressure);
  }

  private float pressureFactor(final float pressure) {
    final float f = 1f - pressureWeight * pressure;
    if (f < 0f) {
      return 0f;
    }
    return f > 1f ? 1f : f;
  }

  private float sloCoefficient(final int ttftMs) {
    return sloTightTtftMs > 0 && sloTightBias > 0f && ttftMs > 0 && ttftMs < sloTightTtftMs
        ? sloTightBias
        : 0f;
  }

  private int servingCount(final String tenant, final String model, final String scheme) {
    final Map<String, Integer> serving = servingByScope.get(new Scope(tenant, model, scheme));
    return serving == null ? 0 : serving.size();
  }

  private Result exact(final LookupRequest q, final String scheme) {
    final PrefixKey key = probe(q, scheme, q.exactArray(), 0, q.exactLength());
    final Map<String, Entry> holders = prefixes.get(key);
    if (holders == null || holders.isEmpty()) {
      return null;
    }
    final long now = clock.nanoTime();
    final float slo = sloCoefficient(q.ttftMs());
    final List<ScoredReplica> scores = new ArrayList<>(holders.size());
    final List<Entry> hits = new ArrayList<>(holders.size());
    for (Map.Entry<String, Entry> h : holders.entrySet()) {
      final Entry e = h.getValue();
      final float fresh = ReferenceScoring.freshness(now - e.lastSeen, ttlNanos);
      if (fresh <= 0f) {
        continue;
      }
      final float s =
          (float) e.tokenCount
              * fresh
              * pressureFactor(key.tenant(), key.model(), h.getKey(), now)
              * (1f + fresh * slo);
      scores.add(
          new ScoredReplica(h.getKey(), s, e.tokenCount, fresh, ReferenceScoring.wireTier(e.tier)));
      if (e.tokenCount > 0) {
        hits.add(e);
      }
    }
    if (scores.isEmpty()) {
      return null;
    }
    final float dp =
        ReferenceScoring.distinguishingPower(
            scores.size(), servingCount(key.tenant(), key.model(), scheme));
    for (int i = 0; i < scores.size(); i++) {
      final ScoredReplica s = scores.get(i);
      scores.set(i, ReferenceScoring.withScore(s, s.score() * dp));
    }
    scores.sort(ReferenceScoring.BY_SCORE);
    return new Result(Outcome.PREFIX_MATCH, scores, hits);
  }

  /** A replica's leading run of matched blocks. */
  private static final class Run {
    final String replica;
    int matched;
    long oldest;
    int tier;
    final List<Entry> hits = new ArrayList<>();

    Run(final String replica, final int matched, final long oldest, final int tier) {
      this.replica = replica;
      this.matched = matched;
      this.oldest = oldest;
      this.tier = tier;
    }
  }

  private Result walkChain(final LookupRequest q, final String scheme) {
    final int blocks = q.blockHashCount();
    if (blocks == 0) {
      return null;
    }
    final long now = clock.nanoTime();
    final byte[] chain = q.blockHashArray();
    final PrefixKey first = probe(q, scheme, chain, q.blockHashOffset(0), q.blockHashLength(0));
    final Map<String, Entry> seed = prefixes.get(first);
    if (seed == null) {
      return null;
    }
    final List<Run> running = new ArrayList<>(seed.size());
    for (Map.Entry<String, Entry> h : seed.entrySet()) {
      final Entry e = h.getValue();
      if (now - e.lastSeen >= ttlNanos) {
        continue;
      }
      final Run run = new Run(h.getKey(), q.blockTokenCount(0), e.lastSeen, e.tier);
      run.hits.add(e);
      running.add(run);
    }
    final List<Run> finished = new ArrayList<>(running.size());
    for (int b = 1; b < blocks && !running.isEmpty(); b++) {
      final Map<String, Entry> holders =
          prefixes.get(probe(q, scheme, chain, q.blockHashOffset(b), q.blockHashLength(b)));
      final int add = q.blockTokenCount(b);
      for (int i = running.size() - 1; i >= 0; i--) {
        final Run run = running.get(i);
        final Entry e = holders == null ? null : holders.get(run.replica);
        if (e != null && now - e.lastSeen < ttlNanos) {
          run.matched += add;
          run.oldest = Math.min(run.oldest, e.lastSeen);
          run.tier = ReferenceScoring.worstTier(run.tier, e.tier);
          run.hits.add(e);
        } else {
          finished.add(running.remove(i));
        }
      }
    }
    finished.addAll(running);

    final float slo = sloCoefficient(q.ttftMs());
    final String tenant = first.tenant();
    final String model = first.model();
    final List<ScoredReplica> scores = new ArrayList<>(finished.size());
    final List<Entry> hits = new ArrayList<>();
    for (Run run : finished) {
      if (run.matched <= 0) {
        continue;
      }
      final float fresh = ReferenceScoring.freshness(now - run.oldest, ttlNanos);
      if (fresh <= 0f) {
        continue;
      }
      final float s =
          (float) run.matched
              * fresh
              * pressureFactor(tenant, model, run.replica, now)
              * (1f + fresh * slo);
      scores.add(
          new ScoredReplica(
              run.replica, s, run.matched, fresh, ReferenceScoring.wireTier(run.tier)));
      hits.addAll(run.hits);
    }
    if (scores.isEmpty()) {
      return null;
    }
    final int total = servingCount(tenant, model, scheme);
    if (total > 1) {
      scores.sort(ReferenceScoring.BY_MATCHED);
      int i = 0;
      while (i < scores.size()) {
        int j = i;
        while (j < scores.size()
            && scores.get(j).matchedTokens() == scores.get(i).matchedTokens()) {
          j++;
        }
        final float dp = ReferenceScoring.distinguishingPower(j, total);
        for (int x = i; x < j; x++) {
          final ScoredReplica s = scores.get(x);
          scores.set(x, ReferenceScoring.withScore(s, s.score() * dp));
        }
        i = j;
      }
    }
    scores.sort(ReferenceScoring.BY_SCORE);
    return new Result(Outcome.PREFIX_MATCH, scores, hits);
  }

  private Result tenantHot(
      final LookupRequest q, final String tenant, final String model, final String scheme) {
    if (tenantHotMaxAgeNanos <= 0) {
      return null;
    }
    final Set<String> replicas = replicasByModel.get(new TenantModel(tenant, model));
    final Map<String, Integer> serving = servingByScope.get(new Scope(tenant, model, scheme));
    if (replicas == null || serving == null) {
      return null;
    }
    final long now = clock.nanoTime();
    final float slo = sloCoefficient(q.ttftMs());
    final List<ScoredReplica> scores = new ArrayList<>();
    for (String replica : replicas) {
      final StatEntry row = stats.get(new StatsKey(tenant, model, replica));
      final long age = now - row.statsReported;
      final float hitRate = row.stats.hitRate();
      if (age >= tenantHotMaxAgeNanos
          || hitRate < tenantHotMinHitRate
          || !serving.containsKey(replica)) {
        continue;
      }
      final float recency =
          age <= 0 ? 1f : 1f - (float) age / (float) tenantHotMaxAgeNanos; // age < maxAge here
      final float pf = pressureFactor(row.stats.pressure());
      final float s = hitRate * recency * pf * (1f + recency * slo);
      scores.add(new ScoredReplica(replica, s, 0, hitRate, 0));
    }
    if (scores.isEmpty()) {
      return null;
    }
    scores.sort(ReferenceScoring.BY_SCORE);
    return new Result(Outcome.TENANT_HOT, scores, List.of());
  }

  private Outcome classify(final String tenant, final String model, final String scheme) {
    if (prefixes.isEmpty()) {
      return Outcome.NONE;
    }
    if (prefixesByTenant.getOrDefault(tenant, 0L) == 0) {
      return Outcome.UNKNOWN_TENANT;
    }
    if (prefixesByTenantModel.getOrDefault(new TenantModel(tenant, model), 0L) == 0) {
      return Outcome.UNKNOWN_MODEL;
    }
    if (servingCount(tenant, model, scheme) == 0) {
      return Outcome.UNKNOWN_HASH_SCHEME;
    }
    return Outcome.NONE;
  }
}
