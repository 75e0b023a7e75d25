package io.inferencecache.perf.engine;

import io.inferencecache.perf.engine.OnHeapReferenceIndex.ScoredReplica;
import java.util.Comparator;

/**
 * The score factors and answer orderings of {@link OnHeapReferenceIndex}
 * (docs/behaviour.md#scores), in float32 with the engine's operation order so that both indexes'
 * scores are bit-identical.
 */
final class ReferenceScoring {
  private ReferenceScoring() {}

  /** Freshness of an entry of age {@code age} under TTL {@code ttl}. */
  static float freshness(final long age, final long ttl) {
    if (ttl <= 0) {
      return 0f;
    }
    if (age <= 0) {
      return 1f;
    }
    if (age >= ttl) {
      return 0f;
    }
    return (float) (1.0 - (double) age / (double) ttl);
  }

  static float distinguishingPower(final int matching, final int total) {
    if (total <= 1 || matching < 0) {
      return 1f;
    }
    if (matching >= total) {
      return 0f;
    }
    return (float) (1.0 - (double) matching / (double) total);
  }

  static int worstTier(final int a, final int b) {
    if (a == 0 || b == 0) {
      return 0;
    }
    return Math.max(a, b);
  }

  static int wireTier(final int tier) {
    return tier >= 1 && tier <= 3 ? tier : 0;
  }

  static ScoredReplica withScore(final ScoredReplica s, final float score) {
    return new ScoredReplica(
        s.replicaId(), score, s.matchedTokens(), s.estimatedCacheHitProb(), s.tier());
  }

  /** Unsigned UTF-8 byte order, which is code point order. */
  static int compareUtf8(final String a, final String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      final int ca = a.codePointAt(i);
      final int cb = b.codePointAt(j);
      if (ca != cb) {
        return Integer.compare(ca, cb);
      }
      i += Character.charCount(ca);
      j += Character.charCount(cb);
    }
    return Integer.compare(a.length() - i, b.length() - j);
  }

  /** Score best first, then replica id in UTF-8 order. */
  static final Comparator<ScoredReplica> BY_SCORE =
      (x, y) -> {
        // Plain float comparisons as the engine (-0 and 0 tie), not Float.compare.
        if (x.score() > y.score()) {
          return -1;
        }
        if (x.score() < y.score()) {
          return 1;
        }
        return compareUtf8(x.replicaId(), y.replicaId());
      };

  /** Matched tokens most first, then replica id in UTF-8 order. */
  static final Comparator<ScoredReplica> BY_MATCHED =
      (x, y) -> {
        final int c = Integer.compare(y.matchedTokens(), x.matchedTokens());
        return c != 0 ? c : compareUtf8(x.replicaId(), y.replicaId());
      };
}
