package io.inferencecache.engine;

import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.RunCursor;
import io.inferencecache.engine.internal.RunStore;
import io.inferencecache.engine.internal.ScopeState;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.StatsTable;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;
import org.agrona.concurrent.EpochNanoClock;

/**
 * The read path of {@link CacheIndex} (docs/behaviour.md#lookup-walk and docs/behaviour.md#scores
 * and docs/behaviour.md#tenant-hot and docs/behaviour.md#affinity and
 * docs/behaviour.md#lookup-route and docs/behaviour.md#miss-classification). Allocation-free,
 * lock-free.
 */
final class Lookups {
  private final EngineState state;
  private final StringDictionary dict;
  private final IndexConfig cfg;
  private final PartitionRegistry registry;
  private final SecondaryCounts counts;
  private final IndexStorage storage;
  private final LfuCounters lfuCounters;
  private final EpochNanoClock clock;

  Lookups(final EngineState state) {
    this.state = state;
    this.dict = state.dict;
    this.cfg = state.config;
    this.registry = state.registry;
    this.counts = state.counts;
    this.storage = state.storage;
    this.lfuCounters = state.lfuCounters;
    this.clock = state.clock;
  }

  /**
   * Plain lookup (docs/behaviour.md#lookup-walk): the scored holders, no fallback, no
   * classification.
   */
  void lookup(final LookupRequest q, final LookupResult r) {
    r.clear();
    if (q.scheme.isEmpty()) {
      return;
    }
    final int tenant = q.tenant.resolve(dict);
    r.tenantId = tenant;
    final TenantModelState tm = registry.tm(tenant, q.model.resolve(dict));
    if (tm == null) {
      return;
    }
    final int scheme = q.scheme.resolve(dict);
    final ScopeState scope = registry.scope(tm, scheme);
    if (scope == null) {
      return;
    }
    final Partition p = registry.partition(scope, q.adapter.resolve(dict));
    if (p == null) {
      return;
    }
    if (q.hasChain()) {
      if (q.chainMalformed()) {
        return;
      }
      walkChain(q, r, tm, scope, p, recordsCredits(tenant), q.maxReplicas, 0);
    } else {
      exact(q, r, tm, scope, p, recordsCredits(tenant), q.maxReplicas, 0);
    }
    r.outcome = r.size > 0 ? Outcome.PREFIX_MATCH : Outcome.NONE;
  }

  /**
   * The index part of LookupRoute (docs/behaviour.md#lookup-route and
   * docs/behaviour.md#miss-classification), resolving the tenant and model itself.
   */
  void lookupAndClassify(final LookupRequest q, final LookupResult r) {
    if (q.tenant.isEmpty() || q.model.isEmpty() || q.scheme.isEmpty()) {
      r.clear();
      return;
    }
    final int tenant = q.tenant.resolve(dict);
    lookupAndClassify(
        q, r, tenant, q.model.resolve(dict), recordsCredits(tenant), q.maxReplicas, 0);
  }

  /**
   * Whether a lookup of {@code tenant} records the LFU entries it touches: only for a tenant that
   * evicts by LFU, the only one {@link #creditDelivered} credits.
   */
  private boolean recordsCredits(final int tenant) {
    return tenant >= 0 && lfuCounters.lfu(tenant);
  }

  /**
   * The index part of LookupRoute with the tenant and model ids the caller already resolved ({@link
   * LookupRouter}); records the resolved ids in {@code r} for {@link #affinityHint( LookupResult,
   * byte[])} and {@link #creditDelivered(LookupResult, boolean)}. Records the LFU entries the match
   * touches only when {@code credit} (the tenant evicts by LFU). Keeps only the best {@code limit}
   * replicas when {@code limit > 0} (partial selection: the others are never sorted); with a
   * matched-tokens {@code floor > 0}, a prefix match's replicas below it rank after every other, so
   * the best {@code limit} at or above the floor are kept (the caller then drops those below).
   */
  void lookupAndClassify(
      final LookupRequest q,
      final LookupResult r,
      final int tenant,
      final int model,
      final boolean credit,
      final int limit,
      final int floor) {
    r.clear();
    if (q.tenant.isEmpty() || q.model.isEmpty() || q.scheme.isEmpty()) {
      return;
    }
    final int scheme = q.scheme.resolve(dict);
    r.tenantId = tenant;
    r.modelId = model;
    r.schemeId = scheme;
    final TenantModelState tm = registry.tm(tenant, model);
    final ScopeState scope = registry.scope(tm, scheme);
    final Partition p = scope == null ? null : registry.partition(scope, q.adapter.resolve(dict));
    if (q.hasChain()) {
      if (q.chainMalformed()) {
        return;
      }
      if (p != null) {
        walkChain(q, r, tm, scope, p, credit, limit, floor);
      }
      r.outcome = r.size > 0 ? Outcome.PREFIX_MATCH : classify(tenant, tm, scope);
      return;
    }
    if (p != null) {
      exact(q, r, tm, scope, p, credit, limit, floor);
      if (r.size > 0) {
        r.outcome = Outcome.PREFIX_MATCH;
        return;
      }
    }
    if (tenantHot(q, r, tm, scope, limit)) {
      r.outcome = Outcome.TENANT_HOT;
      return;
    }
    r.outcome = classify(tenant, tm, scope);
  }

  private Outcome classify(final int tenant, final TenantModelState tm, final ScopeState scope) {
    if (counts.totalKeys() == 0) {
      return Outcome.NONE;
    }
    if (tenant < 0 || counts.tenantKeys(tenant) == 0) {
      return Outcome.UNKNOWN_TENANT;
    }
    if (tm == null || tm.prefixes == 0) {
      return Outcome.UNKNOWN_MODEL;
    }
    if (scope == null || scope.servingCount() == 0) {
      return Outcome.UNKNOWN_HASH_SCHEME;
    }
    return Outcome.NONE;
  }

  private RunStore storeOf(final Partition p) {
    return p.reserved() ? storage.reserved() : storage.main();
  }

  private float pressureFactor(
      final StatsTable stats, final int replica, final long now, final long ttl) {
    if (stats.size() == 0) {
      return ScoreMath.pressureFactor(cfg.pressureWeight(), 0f); // no row: pressure 0
    }
    final StatsRow row = stats.get(replica);
    float pressure = 0f;
    if (row != null && ScoreMath.freshness(now - row.statsReported(), ttl) > 0f) {
      pressure = row.pressure();
    }
    return ScoreMath.pressureFactor(cfg.pressureWeight(), pressure);
  }

  private void exact(
      final LookupRequest q,
      final LookupResult r,
      final TenantModelState tm,
      final ScopeState scope,
      final Partition p,
      final boolean credit,
      final int limit,
      final int floor) {
    final KeyBuffer k = r.key;
    if (!k.set(p.id(), q.exact, 0, q.exactLength)) {
      return;
    }
    final long now = clock.nanoTime();
    final long ttl = state.ttlNanosOf(p.tenant());
    if (!r.exactRead.read(r, storeOf(p), k, now, ttl, credit)) {
      return;
    }
    final float slo = ScoreMath.sloCoefficient(q.ttftMs, cfg.sloTightTtftMs(), cfg.sloTightBias());
    final StatsTable stats = tm.stats;
    for (int run = 0; run < r.runs; run++) {
      final float fresh = ScoreMath.freshness(now - r.runOldest[run], ttl);
      final int replica = r.runReplica[run];
      final int tokens = r.runMatched[run];
      r.runDelivered[run] = true;
      final float s =
          ScoreMath.baseScore(
              tokens, fresh, pressureFactor(stats, replica, now, ttl), 1f + fresh * slo);
      r.addEntry(replica, s, tokens, fresh, HolderLayout.wireTier(r.runTier[run]), run);
    }
    final float dp = ScoreMath.distinguishingPower(r.size, scope.servingCount());
    for (int i = 0; i < r.size; i++) {
      r.score[i] *= dp;
    }
    sortByScore(r, limit, floor);
  }

  /**
   * The chain walk ({@link ChainWalk}), then each replica's run scored, scaled by the
   * distinguishing power of its depth, and sorted by score.
   */
  private void walkChain(
      final LookupRequest q,
      final LookupResult r,
      final TenantModelState tm,
      final ScopeState scope,
      final Partition p,
      final boolean credit,
      final int limit,
      final int floor) {
    if (q.hashCount == 0) {
      return;
    }
    final long now = clock.nanoTime();
    final long ttl = state.ttlNanosOf(p.tenant());
    r.walk.walk(q, r, storeOf(p), p.id(), now, ttl, credit);

    final float slo = ScoreMath.sloCoefficient(q.ttftMs, cfg.sloTightTtftMs(), cfg.sloTightBias());
    final StatsTable stats = tm.stats;
    for (int run = 0; run < r.runs; run++) {
      final int matched = r.runMatched[run];
      if (matched <= 0) {
        continue;
      }
      final float fresh = ScoreMath.freshness(now - r.runOldest[run], ttl);
      if (fresh <= 0f) {
        continue;
      }
      final int replica = r.runReplica[run];
      final float s =
          ScoreMath.baseScore(
              matched, fresh, pressureFactor(stats, replica, now, ttl), 1f + fresh * slo);
      r.runDelivered[run] = true;
      r.addEntry(replica, s, matched, fresh, HolderLayout.wireTier(r.runTier[run]), run);
    }
    final int total = scope.servingCount();
    if (total > 1 && r.size > 0) {
      applyDistinguishingPower(r, total);
    }
    sortByScore(r, limit, floor);
  }

  private boolean tenantHot(
      final LookupRequest q,
      final LookupResult r,
      final TenantModelState tm,
      final ScopeState scope,
      final int limit) {
    final long maxAge = cfg.tenantHotMaxAgeNanos();
    if (maxAge <= 0 || tm == null || scope == null) {
      return false;
    }
    final StatsTable stats = tm.stats;
    if (stats.size() == 0) {
      return false;
    }
    final long now = clock.nanoTime();
    final float slo = ScoreMath.sloCoefficient(q.ttftMs, cfg.sloTightTtftMs(), cfg.sloTightBias());
    final float minHitRate = cfg.tenantHotMinHitRate();
    for (int i = 0; i < stats.size(); i++) {
      final StatsRow row = stats.row(i);
      final long age = now - row.statsReported();
      if (age >= maxAge || row.hitRate() < minHitRate || !scope.serves(row.replica())) {
        continue;
      }
      final float recency = ScoreMath.recency(age, maxAge);
      final float pf = ScoreMath.pressureFactor(cfg.pressureWeight(), row.pressure());
      final float s = row.hitRate() * recency * pf * (1f + recency * slo);
      r.addEntry(row.replica(), s, 0, row.hitRate(), Tier.UNSPECIFIED, -1);
    }
    if (r.size == 0) {
      return false;
    }
    sortByScore(r, limit, 0);
    return true;
  }

  /**
   * Multiplies each entry's score by the distinguishing power of its depth
   * (docs/behaviour.md#scores): of the number of entries that matched at least as many tokens.
   * Those counts come from the matched values sorted on their own; the entries keep their order
   * (the sort by score decides it).
   */
  private static void applyDistinguishingPower(final LookupResult r, final int total) {
    final int n = r.size;
    final int[] v = r.matchedScratch(n);
    System.arraycopy(r.matched, 0, v, 0, n);
    RankSelection.sortAscending(v, n);
    for (int i = 0; i < n; i++) {
      final int m = r.matched[i];
      r.score[i] *= ScoreMath.distinguishingPower(RankSelection.countAtLeast(v, n, m), total);
    }
  }

  /**
   * Score descending, then replica name ascending (unsigned UTF-8), keeping only the best {@code
   * limit} entries when {@code limit > 0} (the others are dropped and their LFU entries not
   * credited). When every replica has a rank in the dictionary (and no score is NaN) each entry is
   * one {@code long} (the score's order bits above the name's rank, {@link #sortKey}) and the best
   * {@code limit} are selected by a bounded heap and only they are sorted ({@link RankSelection});
   * otherwise an insertion sort compares entry by entry. The order is applied to the entries once.
   * With a cap, entries below a matched-tokens {@code floor > 0} get the last key, so the best
   * {@code limit} kept include every entry at or above the floor that the caller's cap keeps after
   * dropping those below it; the fallback sort then keeps every entry.
   */
  private void sortByScore(final LookupResult r, final int limit, final int floor) {
    final int n = r.size;
    int keep = limit > 0 && limit < n ? limit : n;
    if (n < 2) {
      return;
    }
    final int[] rank = dict.ranks();
    boolean keyed = true;
    for (int i = 0; i < n && keyed; i++) {
      final float s = r.score[i];
      keyed = r.replica[i] < rank.length && s == s;
    }
    final int[] o = r.identityOrder(n);
    if (keyed) {
      final long[] key = r.sortKeys(n);
      for (int i = 0; i < n; i++) {
        key[i] =
            floor > 0 && keep < n && r.matched[i] < floor
                ? Long.MAX_VALUE
                : sortKey(r.score[i], rank[r.replica[i]]);
      }
      RankSelection.smallestSorted(key, o, n, keep);
    } else {
      for (int i = 1; i < n; i++) {
        final int x = o[i];
        int j = i;
        for (; j > 0 && before(r, x, o[j - 1]); j--) {
          o[j] = o[j - 1];
        }
        o[j] = x;
      }
      if (floor > 0) {
        keep = n;
      }
    }
    r.reorder(o, n);
    r.truncate(keep);
  }

  /**
   * A key whose ascending order is {@code score} descending, then {@code rank} ascending: the
   * score's bits turned into a signed order ({@code -0} as {@code 0}, as {@code !=} sees them) and
   * inverted, above the rank. Not for NaN.
   */
  static long sortKey(final float score, final int rank) {
    final int bits = Float.floatToRawIntBits(score + 0f);
    final int ordered = bits ^ ((bits >> 31) & 0x7FFFFFFF);
    return ((long) ~ordered << 32) | (rank & 0xFFFFFFFFL);
  }

  /** Whether entry {@code a} sorts before {@code b}: score descending, then the replica name. */
  private boolean before(final LookupResult r, final int a, final int b) {
    final float sa = r.score[a];
    final float sb = r.score[b];
    if (sa != sb) {
      return sa > sb;
    }
    return dict.compare(r.replica[a], r.replica[b]) < 0;
  }

  /** AFFINITY_HINT candidate (docs/behaviour.md#affinity), or -1. */
  int affinityHint(final LookupRequest q, final byte[] seedDigest) {
    if (q.scheme.isEmpty()) {
      return -1;
    }
    return affinityHint(
        q.tenant.resolve(dict), q.model.resolve(dict), q.scheme.resolve(dict), seedDigest);
  }

  /**
   * AFFINITY_HINT candidate for the scope {@link #lookupAndClassify} resolved into {@code r}, or
   * -1.
   */
  int affinityHint(final LookupResult r, final byte[] seedDigest) {
    if (r.schemeId < 0) {
      return -1;
    }
    return affinityHint(r.tenantId, r.modelId, r.schemeId, seedDigest);
  }

  private int affinityHint(
      final int tenant, final int model, final int scheme, final byte[] seedDigest) {
    if (seedDigest == null || seedDigest.length < 8) {
      return -1;
    }
    final TenantModelState tm = registry.tm(tenant, model);
    final ScopeState scope = registry.scope(tm, scheme);
    if (scope == null) {
      return -1;
    }
    final int[] candidates = scope.servingByName();
    if (candidates.length == 0) {
      return -1;
    }
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (seedDigest[i] & 0xFFL);
    }
    return candidates[(int) Long.remainderUnsigned(v, candidates.length)];
  }

  /** Credits the LFU counters of a delivered PREFIX_MATCH (no-op for LRU tenants). */
  int creditDelivered(final LookupResult r) {
    return r.tenantId < 0 ? 0 : creditDelivered(r, lfuCounters.lfu(r.tenantId));
  }

  /**
   * Credits the LFU counters of a delivered PREFIX_MATCH whose tenant evicts by LFU when {@code
   * lfu} (the caller resolved the tenant's policy already).
   */
  int creditDelivered(final LookupResult r, final boolean lfu) {
    if (!lfu || r.outcome != Outcome.PREFIX_MATCH || r.size == 0 || r.tenantId < 0) {
      return 0;
    }
    int credited = 0;
    for (int c = 0; c < r.credits; c++) {
      if (r.runDelivered[r.creditRun[c]]
          && storage.arena().incrementIfGeneration(r.creditSlot(c), r.creditGen(c))) {
        credited++;
      }
    }
    return credited;
  }

  /**
   * The LFU access count of the holder {@code replica} of an exact key, or -1 if absent (tests and
   * diagnostics; allocates).
   */
  long accessCount(
      final int tenant,
      final int model,
      final int scheme,
      final int adapter,
      final byte[] hash,
      final int r) {
    final Partition p = registry.partition(registry.tm(tenant, model), scheme, adapter);
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
   * Computes SHA-256 of the request's canonical affinity seed into {@code out} (32 bytes): the
   * chain as {@code u32be(len) ‖ hash} per block when present, else the exact hash. Returns false
   * when there is no seed (no chain and an empty exact hash). Allocation-free.
   */
  static boolean affinitySeedDigest(
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
}
