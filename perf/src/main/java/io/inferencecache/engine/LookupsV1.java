/*
 * Perf-scope copy of the engine's v1 layout (one Chronicle entry per block, 24-byte holder records),
 * kept only as the oracle of the v1/v2 differential test and the v1 column of the side-by-side
 * benchmarks. Not part of the product; delete once v2's figures are published.
 */
package io.inferencecache.engine;

import io.inferencecache.engine.internal.HolderBuffer;
import io.inferencecache.engine.internal.HolderLayout;
import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.Partition;
import io.inferencecache.engine.internal.PrefixStoreV1;
import io.inferencecache.engine.internal.ScopeState;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.StatsTable;
import io.inferencecache.engine.internal.StringDictionary;
import io.inferencecache.engine.internal.TenantModelState;

/**
 * The read path of {@link CacheIndexV1} (docs/behaviour.md#lookup-walk and docs/behaviour.md#scores
 * and docs/behaviour.md#tenant-hot and docs/behaviour.md#affinity and
 * docs/behaviour.md#lookup-route and docs/behaviour.md#miss-classification). Allocation-free,
 * lock-free.
 */
final class LookupsV1 {
  private static final ThreadLocal<HolderBuffer> HOLDERS =
      ThreadLocal.withInitial(() -> new HolderBuffer(32));

  private final CacheIndexV1 index;
  private final StringDictionary dict;
  private final IndexConfig cfg;

  LookupsV1(final CacheIndexV1 index) {
    this.index = index;
    this.dict = index.dictionary();
    this.cfg = index.config();
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
    final TenantModelState tm = index.tm(tenant, q.model.resolve(dict));
    if (tm == null) {
      return;
    }
    final int scheme = q.scheme.resolve(dict);
    final ScopeState scope = index.scope(tm, scheme);
    if (scope == null) {
      return;
    }
    final Partition p = index.partition(tm, scheme, q.adapter.resolve(dict));
    if (p == null) {
      return;
    }
    if (q.hasChain()) {
      if (q.chainMalformed()) {
        return;
      }
      walkChain(q, r, tm, scope, p);
    } else {
      exact(q, r, tm, scope, p);
    }
    r.outcome = r.size > 0 ? Outcome.PREFIX_MATCH : Outcome.NONE;
  }

  /**
   * The index part of LookupRoute (docs/behaviour.md#lookup-route and
   * docs/behaviour.md#miss-classification), resolving the tenant and model itself.
   */
  void lookupRoute(final LookupRequest q, final LookupResult r) {
    if (q.tenant.isEmpty() || q.model.isEmpty() || q.scheme.isEmpty()) {
      r.clear();
      return;
    }
    lookupRoute(q, r, q.tenant.resolve(dict), q.model.resolve(dict));
  }

  /**
   * The index part of LookupRoute with the tenant and model ids the caller already resolved ({@link
   * LookupRouter}); records the resolved ids in {@code r} for {@link #affinityHint( LookupResult,
   * byte[])} and {@link #creditDelivered(LookupResult, boolean)}.
   */
  void lookupRoute(final LookupRequest q, final LookupResult r, final int tenant, final int model) {
    r.clear();
    if (q.tenant.isEmpty() || q.model.isEmpty() || q.scheme.isEmpty()) {
      return;
    }
    final int scheme = q.scheme.resolve(dict);
    r.tenantId = tenant;
    r.modelId = model;
    r.schemeId = scheme;
    final TenantModelState tm = index.tm(tenant, model);
    final ScopeState scope = index.scope(tm, scheme);
    final Partition p = scope == null ? null : index.partition(tm, scheme, q.adapter.resolve(dict));
    if (q.hasChain()) {
      if (q.chainMalformed()) {
        return;
      }
      if (p != null) {
        walkChain(q, r, tm, scope, p);
      }
      r.outcome = r.size > 0 ? Outcome.PREFIX_MATCH : classify(tenant, tm, scope);
      return;
    }
    if (p != null) {
      exact(q, r, tm, scope, p);
      if (r.size > 0) {
        r.outcome = Outcome.PREFIX_MATCH;
        return;
      }
    }
    if (tenantHot(q, r, tm, scope)) {
      r.outcome = Outcome.TENANT_HOT;
      return;
    }
    r.outcome = classify(tenant, tm, scope);
  }

  private Outcome classify(final int tenant, final TenantModelState tm, final ScopeState scope) {
    if (index.totalKeys() == 0) {
      return Outcome.NONE;
    }
    if (tenant < 0 || index.tenantKeyCount(tenant) == 0) {
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

  private PrefixStoreV1 storeOf(final Partition p) {
    return p.reserved() ? index.reservedStore() : index.mainStore();
  }

  private float pressureFactor(
      final StatsTable stats, final int replica, final long now, final long ttl) {
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
      final Partition p) {
    final KeyBuffer k = r.key;
    if (!k.set(p.id(), q.exact, 0, q.exactLength)) {
      return;
    }
    final HolderBuffer h = HOLDERS.get();
    final int n = storeOf(p).readHolders(k, h);
    if (n == 0) {
      return;
    }
    final long now = index.clock().nanoTime();
    final long ttl = index.ttlNanosOf(p.tenant());
    final float slo = ScoreMath.sloCoefficient(q.ttftMs, cfg.sloTightTtftMs(), cfg.sloTightBias());
    final StatsTable stats = tm.stats;
    r.ensureRuns(n);
    for (int i = 0; i < n; i++) {
      final float fresh = ScoreMath.freshness(now - h.lastSeen(i), ttl);
      if (fresh <= 0f) {
        continue;
      }
      final int replica = h.replica(i);
      final int tokens = h.tokens(i);
      final int run = r.runs++;
      r.runReplica[run] = replica;
      r.runDelivered[run] = true;
      final float s =
          ScoreMath.baseScore(
              tokens, fresh, pressureFactor(stats, replica, now, ttl), 1f + fresh * slo);
      r.addEntry(replica, s, tokens, fresh, HolderLayout.wireTier(h.tier(i)), run);
      if (tokens > 0) {
        r.addCredit(run, h.slot(i), h.gen(i));
      }
    }
    final float dp = ScoreMath.distinguishingPower(r.size, scope.servingCount());
    for (int i = 0; i < r.size; i++) {
      r.score[i] *= dp;
    }
    sortByScore(r);
  }

  private void walkChain(
      final LookupRequest q,
      final LookupResult r,
      final TenantModelState tm,
      final ScopeState scope,
      final Partition p) {
    final int blocks = q.hashCount;
    if (blocks == 0) {
      return;
    }
    final KeyBuffer k = r.key;
    final HolderBuffer h = HOLDERS.get();
    final PrefixStoreV1 store = storeOf(p);
    final long now = index.clock().nanoTime();
    final long ttl = index.ttlNanosOf(p.tenant());
    final int[] counts = q.counts;

    if (!k.set(p.id(), q.chainBytes, q.hashOffset[0], q.hashLength[0])) {
      return;
    }
    int n = store.readHolders(k, h);
    r.ensureRuns(n);
    for (int i = 0; i < n; i++) {
      final long seen = h.lastSeen(i);
      if (now - seen >= ttl) {
        continue; // freshness 0
      }
      final int run = r.runs++;
      r.runReplica[run] = h.replica(i);
      r.runMatched[run] = counts[0];
      r.runOldest[run] = seen;
      r.runTier[run] = h.tier(i);
      r.runAlive[run] = true;
      r.runDelivered[run] = false;
      r.addCredit(run, h.slot(i), h.gen(i));
    }
    int alive = r.runs;
    for (int b = 1; b < blocks && alive > 0; b++) {
      if (!k.set(p.id(), q.chainBytes, q.hashOffset[b], q.hashLength[b])) {
        break;
      }
      n = store.readHolders(k, h);
      int hi = 0;
      final int add = counts[b];
      for (int run = 0; run < r.runs; run++) {
        if (!r.runAlive[run]) {
          continue;
        }
        final int replica = r.runReplica[run];
        while (hi < n && h.replica(hi) < replica) {
          hi++;
        }
        if (hi < n && h.replica(hi) == replica && now - h.lastSeen(hi) < ttl) {
          r.runMatched[run] += add;
          final long seen = h.lastSeen(hi);
          if (seen < r.runOldest[run]) {
            r.runOldest[run] = seen;
          }
          r.runTier[run] = HolderLayout.worstTier(r.runTier[run], h.tier(hi));
          r.addCredit(run, h.slot(hi), h.gen(hi));
        } else {
          r.runAlive[run] = false;
          alive--;
        }
      }
    }

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
      sortByMatched(r);
      int i = 0;
      while (i < r.size) {
        int j = i;
        while (j < r.size && r.matched[j] == r.matched[i]) {
          j++;
        }
        final float dp = ScoreMath.distinguishingPower(j, total);
        for (int x = i; x < j; x++) {
          r.score[x] *= dp;
        }
        i = j;
      }
    }
    sortByScore(r);
  }

  private boolean tenantHot(
      final LookupRequest q,
      final LookupResult r,
      final TenantModelState tm,
      final ScopeState scope) {
    final long maxAge = cfg.tenantHotMaxAgeNanos();
    if (maxAge <= 0 || tm == null || scope == null) {
      return false;
    }
    final StatsTable stats = tm.stats;
    if (stats.size() == 0) {
      return false;
    }
    final long now = index.clock().nanoTime();
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
    sortByScore(r);
    return true;
  }

  /** Score descending, then replica name ascending (unsigned bytes). Insertion sort, in place. */
  private void sortByScore(final LookupResult r) {
    for (int i = 1; i < r.size; i++) {
      for (int j = i; j > 0 && scoreBefore(r, j, j - 1); j--) {
        r.swap(j, j - 1);
      }
    }
  }

  private boolean scoreBefore(final LookupResult r, final int a, final int b) {
    final float sa = r.score[a];
    final float sb = r.score[b];
    if (sa > sb) {
      return true;
    }
    if (sa < sb) {
      return false;
    }
    return dict.compare(r.replica[a], r.replica[b]) < 0;
  }

  /** Matched tokens descending, then replica name ascending. */
  private void sortByMatched(final LookupResult r) {
    for (int i = 1; i < r.size; i++) {
      for (int j = i; j > 0 && matchedBefore(r, j, j - 1); j--) {
        r.swap(j, j - 1);
      }
    }
  }

  private boolean matchedBefore(final LookupResult r, final int a, final int b) {
    final int ma = r.matched[a];
    final int mb = r.matched[b];
    if (ma != mb) {
      return ma > mb;
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

  /** AFFINITY_HINT candidate for the scope {@link #lookupRoute} resolved into {@code r}, or -1. */
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
    final TenantModelState tm = index.tm(tenant, model);
    final ScopeState scope = index.scope(tm, scheme);
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
    return r.tenantId < 0 ? 0 : creditDelivered(r, index.policies().lfu(r.tenantId));
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
          && index.arena().incrementIfGeneration(r.creditSlot(c), r.creditGen(c))) {
        credited++;
      }
    }
    return credited;
  }
}
