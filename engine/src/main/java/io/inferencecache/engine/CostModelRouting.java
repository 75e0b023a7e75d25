package io.inferencecache.engine;

import io.inferencecache.engine.internal.ScopeState;
import io.inferencecache.engine.internal.StatsRow;
import io.inferencecache.engine.internal.TenantModelState;
import io.inferencecache.engine.policy.ResolvedPolicy;

/**
 * The cost-model strategy of load-aware routing (docs/behaviour.md#cost-model), used by {@link
 * LookupRouter} for a chain lookup of a policy whose {@code loadAwareRouting} has a {@code
 * costModel}. Every serving replica of the scope is a candidate, holder of the prefix or not, and
 * its cost is the time to first token the server expects there:
 *
 * <pre>
 * cost = (prompt tokens − matched tokens) ÷ prefillTokensPerSecond
 *      + requestSeconds ÷ slots × max(0, load − slots + 1)
 * load = max(0, pressure × slots − age ÷ requestSeconds × min(pressure × slots, slots))
 *      + answers that named the replica first since its stats report
 * </pre>
 *
 * {@code pressure} is the replica's reported {@code (running + waiting) ÷ slots} while its stats
 * row is fresh (else the replica counts as idle), {@code age} how long ago it was reported: the
 * requests it ran then have been finishing since, and the answers given since are on their way
 * there. The cheapest replica wins; equal costs go to the less loaded one, then to the first in the
 * consistent-hash walk of the upstream affinity fallback (so an idle fleet keeps the upstream
 * stickiness).
 *
 * <p><b>Reason.</b> {@code PREFIX_MATCH} when the winner holds more of the chain than some other
 * serving replica (the cache decided): the holders are answered in cost order, the winner first,
 * with their upstream scores. Otherwise load decided among replicas that hold the same (a chain
 * whose matched part every replica holds, or none): {@code AFFINITY_HINT} with up to {@code
 * rankedReplicas} replicas in cost order, when the affinity fallback is allowed; when it is not,
 * {@link #route} returns {@code null} and the upstream steps decide.
 *
 * <p>Lock-free; allocation-free on warm calls (scratch in the caller's {@link RouteResult}); never
 * throws for an expected outcome. O(serving replicas × holders) per call; one stats row read per
 * serving replica.
 */
final class CostModelRouting {
  private final EngineState state;
  private final PartitionRegistry registry;
  private final AnswerCounts counts;

  CostModelRouting(final EngineState state, final AnswerCounts counts) {
    this.state = state;
    this.registry = state.registry;
    this.counts = counts;
  }

  /**
   * Decides a chain lookup whose index outcome is PREFIX_MATCH or a miss. Returns {@link
   * ReasonCodes#PREFIX_MATCH} ({@code r} reordered, the winner first), {@link
   * ReasonCodes#AFFINITY_HINT} ({@code out}'s affinity replicas set) or {@code null} (no candidate,
   * or an undistinguished winner while {@code affinityAllowed} is false: the upstream steps
   * decide).
   */
  String route(
      final RouteRequest in,
      final LookupResult r,
      final boolean affinityAllowed,
      final ResolvedPolicy policy,
      final RouteResult out) {
    if (r.schemeId < 0) {
      return null;
    }
    final TenantModelState tm = registry.tm(r.tenantId, r.modelId);
    final ScopeState scope = registry.scope(tm, r.schemeId);
    final int[] serving = scope == null ? null : scope.servingByName();
    final int n = serving == null ? 0 : serving.length;
    final int tokens = in.request.effectiveTokens();
    if (n == 0 || tokens <= 0) {
      return null;
    }
    // Scratch: [0, n) cost, [n, 2n) load, [2n, 3n) matched tokens per serving replica; then a
    // key per holder.
    final float[] s = out.rankScratch(3 * n + r.size);
    final long now = state.clock.nanoTime();
    final long ttl = state.ttlNanosOf(r.tenantId);
    for (int j = 0; j < r.size; j++) {
      s[3 * n + j] = Float.POSITIVE_INFINITY; // a holder not serving the scope goes last
    }
    int minMatched = Integer.MAX_VALUE;
    int best = 0;
    int ties = 0;
    for (int i = 0; i < n; i++) {
      final int j = holderIndex(r, serving[i]);
      final int m = j < 0 ? 0 : r.matched[j];
      final float load = load(tm, serving[i], now, ttl, policy);
      s[i] = cost(tokens, m, load, policy);
      if (j >= 0) {
        s[3 * n + j] = s[i]; // the holder's sort key
      }
      s[n + i] = load;
      s[2 * n + i] = m;
      minMatched = Math.min(minMatched, m);
      if (i == 0 || before(s, n, i, best)) {
        best = i;
        ties = 1;
      } else if (!before(s, n, best, i)) {
        ties++;
      }
    }
    int start = -1;
    if (ties > 1) {
      start = hashStart(in, affinityAllowed, n);
      best = first(s, n, start);
    }
    final int winner = serving[best];
    if (s[2 * n + best] > minMatched) {
      orderHolders(r, s, 3 * n, winner);
      counts.answered(tm, winner);
      return ReasonCodes.PREFIX_MATCH;
    }
    if (!affinityAllowed) {
      return null;
    }
    if (start < 0) {
      start = hashStart(in, true, n);
    }
    final int want = Math.min(policy.rankedReplicas(), n);
    final int[] picked = out.affinityScratch(want);
    int count = 0;
    int next = best;
    while (next >= 0) {
      picked[count++] = serving[next];
      s[next] = Float.NaN; // taken
      next = count < want ? first(s, n, start) : -1;
    }
    out.affinityRanked(count);
    counts.answered(tm, winner);
    return ReasonCodes.AFFINITY_HINT;
  }

  /**
   * Expected time to first token (ms): uncached prefill plus the wait for a free slot. Also {@link
   * PdRouter}'s prefill estimate and (with no tokens) its decode wait.
   */
  static float cost(
      final int tokens, final int matched, final float load, final ResolvedPolicy policy) {
    final float prefillMs = Math.max(0, tokens - matched) * 1000f / policy.prefillTokensPerSecond();
    final int slots = policy.slots();
    final float queued = load - slots + 1;
    return queued > 0f ? prefillMs + policy.requestSeconds() * 1000f / slots * queued : prefillMs;
  }

  /**
   * Requests the replica is expected to hold now (running + waiting); see the class comment. Also
   * {@link PdRouter}'s load of a pool member.
   */
  float load(
      final TenantModelState tm,
      final int replica,
      final long now,
      final long ttl,
      final ResolvedPolicy policy) {
    final StatsRow row = tm == null ? null : tm.stats.get(replica);
    if (row == null || ScoreMath.freshness(now - row.statsReported(), ttl) <= 0f) {
      return 0f;
    }
    final int slots = policy.slots();
    final float reported = row.pressure() > 0f ? row.pressure() * slots : 0f;
    final float ageSeconds = Math.max(0L, now - row.statsReported()) / 1e9f;
    final float finished = ageSeconds / policy.requestSeconds() * Math.min(reported, slots);
    return Math.max(0f, reported - finished) + counts.since(replica, row.statsReported());
  }

  /** Whether candidate {@code a} is strictly cheaper than {@code b}: cost, then load. */
  private static boolean before(final float[] s, final int n, final int a, final int b) {
    return s[a] < s[b] || (s[a] == s[b] && s[n + a] < s[n + b]);
  }

  /** The best untaken candidate (cost, load, then walk order from {@code start}); -1: none. */
  private static int first(final float[] s, final int n, final int start) {
    int best = -1;
    for (int k = 0; k < n; k++) {
      final int i = (start + k) % n;
      if (!Float.isNaN(s[i]) && (best < 0 || before(s, n, i, best))) {
        best = i;
      }
    }
    return best;
  }

  /** The upstream affinity walk's start over {@code n} replicas in name order; 0 when unseeded. */
  private static int hashStart(final RouteRequest in, final boolean seeded, final int n) {
    if (!seeded || !Lookups.affinitySeedDigest(in.request, in.sha256, in.digest)) {
      return 0;
    }
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = (v << 8) | (in.digest[i] & 0xFFL);
    }
    return (int) Long.remainderUnsigned(v, n);
  }

  /** The entry of {@code replica} in {@code r}, or -1 when it holds no leading run. */
  private static int holderIndex(final LookupResult r, final int replica) {
    for (int j = 0; j < r.size; j++) {
      if (r.replica[j] == replica) {
        return j;
      }
    }
    return -1;
  }

  /**
   * Orders the holders by their sort keys ({@code scratch[from + j]} for entry {@code j}, stable),
   * then moves {@code winner} to the front.
   */
  private static void orderHolders(
      final LookupResult r, final float[] scratch, final int from, final int winner) {
    final int m = r.size;
    for (int i = 1; i < m; i++) {
      for (int j = from + i; j > from && scratch[j] < scratch[j - 1]; j--) {
        r.swap(j - from, j - from - 1);
        final float t = scratch[j];
        scratch[j] = scratch[j - 1];
        scratch[j - 1] = t;
      }
    }
    for (int j = 0; j < m; j++) {
      if (r.replica[j] == winner) {
        for (int k = j; k > 0; k--) {
          r.swap(k, k - 1);
        }
        return;
      }
    }
  }
}
