package io.inferencecache.engine;

import io.inferencecache.engine.internal.ScopeState;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.TenantModelState;
import io.inferencecache.engine.policy.ResolvedPolicy;

/**
 * The opt-in load-aware part of the LookupRoute decision (docs/behaviour.md#load-aware), used by
 * {@link LookupRouter} only for a policy with {@code loadAwareRouting}; every other answer stays
 * upstream-exact. Three rules:
 *
 * <ol>
 *   <li><b>Floor on the match, not the load.</b> The routing score floor is applied to the best
 *       score the match would have without the pressure factor, so a busy deep holder is not
 *       dropped to the affinity fallback for being busy: the ranking weighs that instead.
 *   <li><b>PREFIX_MATCH ranking.</b> Entries are ordered by {@code matched tokens − pressureTokens
 *       × pressure}, best first (ties keep the upstream order): the answer's first replica is the
 *       one with the least expected prefill plus queueing, so a busy deep holder yields to a
 *       slightly shallower idle one. Scores are left as upstream computed them.
 *   <li><b>Bounded-load affinity.</b> The affinity fallback walks the scope's replicas in name
 *       order from the hashed one and takes the first whose pressure is below {@code
 *       pressureBound}; the answer lists up to {@code rankedReplicas} replicas: those under the
 *       bound in walk order, then the least pressured of the rest.
 * </ol>
 *
 * Pressure is the replica's reported stats pressure while its stats row is fresh (the same rule the
 * upstream pressure factor uses), else 0, plus {@code hintPressure} for each answer that named the
 * replica first since its stats row was last reported ({@link AnswerCounts}; a new report starts
 * the count afresh). Lock-free; allocation-free on warm calls (scratch in the caller's {@link
 * RouteResult}; the counters grow only when a replica id beyond them first appears); never throws
 * for an expected outcome.
 */
final class LoadAwareRouting {
  private final EngineState state;
  private final PartitionRegistry registry;
  private final AnswerCounts counts;

  LoadAwareRouting(final EngineState state, final AnswerCounts counts) {
    this.state = state;
    this.registry = state.registry;
    this.counts = counts;
  }

  /** Counts one answer whose first replica is {@code replica} (no-op when hintPressure is 0). */
  void answered(final LookupResult r, final int replica, final ResolvedPolicy policy) {
    if (!(policy.hintPressure() > 0f) || replica < 0) {
      return;
    }
    counts.answered(registry.tm(r.tenantId, r.modelId), replica);
  }

  private float hinted(final TenantModelState tm, final int replica, final float perHint) {
    if (!(perHint > 0f)) {
      return 0f;
    }
    return perHint * counts.since(tm, replica);
  }

  /**
   * Whether the best entry of a PREFIX_MATCH passes {@code floor} on its score without the pressure
   * factor: {@code matched × freshness × sloBias × distinguishing power}, as
   * docs/behaviour.md#scores computes it with a pressure factor of 1.
   */
  boolean passesFloor(final LookupRequest q, final LookupResult r, final float floor) {
    final ScopeState scope = scopeOf(r);
    final int total = scope == null ? 0 : scope.servingCount();
    final IndexConfig cfg = state.config;
    final float slo = ScoreMath.sloCoefficient(q.ttftMs, cfg.sloTightTtftMs(), cfg.sloTightBias());
    final boolean chain = q.hasChain();
    final int n = r.size;
    for (int i = 0; i < n; i++) {
      final float fresh = r.prob[i];
      float s = ScoreMath.baseScore(r.matched[i], fresh, 1f, 1f + fresh * slo);
      if (chain) {
        if (total > 1) {
          int atLeast = 0;
          for (int j = 0; j < n; j++) {
            if (r.matched[j] >= r.matched[i]) {
              atLeast++;
            }
          }
          s *= ScoreMath.distinguishingPower(atLeast, total);
        }
      } else {
        s *= ScoreMath.distinguishingPower(n, total);
      }
      if (s >= floor) {
        return true;
      }
    }
    return false;
  }

  /** Orders a PREFIX_MATCH answer by {@code matched − pressureTokens × pressure}, best first. */
  void rank(final LookupResult r, final ResolvedPolicy policy, final RouteResult out) {
    final int n = r.size;
    if (n < 2) {
      return;
    }
    final float[] key = out.rankScratch(n);
    final TenantModelState tm = registry.tm(r.tenantId, r.modelId);
    final long now = state.clock.nanoTime();
    final long ttl = state.ttlNanosOf(r.tenantId);
    final float perPressure = policy.pressureTokens();
    for (int i = 0; i < n; i++) {
      final int c = r.replica[i];
      final float p = pressure(tm, c, now, ttl) + hinted(tm, c, policy.hintPressure());
      key[i] = (float) r.matched[i] - perPressure * p;
    }
    for (int i = 1; i < n; i++) {
      for (int j = i; j > 0 && key[j] > key[j - 1]; j--) {
        r.swap(j, j - 1);
        final float t = key[j];
        key[j] = key[j - 1];
        key[j - 1] = t;
      }
    }
  }

  /**
   * Fills {@code out}'s affinity replicas: from the hashed position of {@code seedDigest} over the
   * scope's replicas in name order, those below the pressure bound in walk order, then the least
   * pressured of the rest, up to {@code rankedReplicas}. Returns how many (0: no candidate).
   */
  int affinity(
      final LookupResult r,
      final byte[] seedDigest,
      final ResolvedPolicy policy,
      final RouteResult out) {
    if (r.schemeId < 0 || seedDigest == null || seedDigest.length < 8) {
      return 0;
    }
    final TenantModelState tm = registry.tm(r.tenantId, r.modelId);
    final ScopeState scope = registry.scope(tm, r.schemeId);
    if (scope == null) {
      return 0;
    }
    final int[] candidates = scope.servingByName();
    final int n = candidates.length;
    if (n == 0) {
      return 0;
    }
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (seedDigest[i] & 0xFFL);
    }
    final int start = (int) Long.remainderUnsigned(v, n);
    final int want = Math.min(policy.rankedReplicas(), n);
    final int[] picked = out.affinityScratch(want);
    final float[] pressure = out.rankScratch(n);
    final long now = state.clock.nanoTime();
    final long ttl = state.ttlNanosOf(r.tenantId);
    final float bound = policy.pressureBound();
    for (int i = 0; i < n; i++) {
      final int c = candidates[(start + i) % n];
      pressure[i] = pressure(tm, c, now, ttl) + hinted(tm, c, policy.hintPressure());
    }
    int count = 0;
    // Two choices: the hashed replica or its successor, whichever is less pressured, if under the
    // bound (robust to stats that are a report interval old: requests spread over both).
    if (n > 1 && pressure[1] < pressure[0] && pressure[1] < bound) {
      picked[count++] = candidates[(start + 1) % n];
      pressure[1] = Float.NaN; // taken
    }
    for (int i = 0; i < n && count < want; i++) {
      if (pressure[i] < bound) {
        picked[count++] = candidates[(start + i) % n];
        pressure[i] = Float.NaN;
      }
    }
    // Too few under the bound: the least pressured of the others, walk order on ties.
    while (count < want) {
      int best = -1;
      for (int i = 0; i < n; i++) {
        if (pressure[i] >= bound && (best < 0 || pressure[i] < pressure[best])) {
          best = i;
        }
      }
      if (best < 0) {
        break;
      }
      picked[count++] = candidates[(start + best) % n];
      pressure[best] = Float.NaN;
    }
    return count;
  }

  private ScopeState scopeOf(final LookupResult r) {
    if (r.schemeId < 0) {
      return null;
    }
    return registry.scope(registry.tm(r.tenantId, r.modelId), r.schemeId);
  }

  private static float pressure(
      final TenantModelState tm, final int replica, final long now, final long ttl) {
    if (tm == null) {
      return 0f;
    }
    final StatsRow row = tm.stats.get(replica);
    if (row == null || ScoreMath.freshness(now - row.statsReported(), ttl) <= 0f) {
      return 0f;
    }
    final float p = row.pressure();
    return p > 0f ? p : 0f;
  }
}
