package io.inferencecache.engine;

import io.inferencecache.engine.internal.KeyBuffer;
import io.inferencecache.engine.internal.RunCursor;
import java.util.Arrays;

/**
 * The result of an index lookup, read into the caller's reusable object (no allocation once its
 * arrays have grown to the workload). Not thread-safe: one per calling thread.
 *
 * <p>Scores are ordered best first (score descending, then replica id byte-wise ascending). The
 * result also remembers which LFU counters the match touched, so that {@link
 * CacheIndex#creditDelivered} can credit exactly the entries of a hint that is delivered.
 */
public final class LookupResult {
  Outcome outcome = Outcome.NONE;
  int size;
  int[] replica = new int[16];
  float[] score = new float[16];
  int[] matched = new int[16];
  float[] prob = new float[16];
  int[] tier = new int[16];
  int[] resultRun = new int[16];

  // Chain-walk state, per run (a replica's leading run of matched blocks).
  int runs;
  int[] runReplica = new int[16];
  int[] runMatched = new int[16];
  long[] runOldest = new long[16];
  int[] runTier = new int[16];
  boolean[] runAlive = new boolean[16];
  boolean[] runDelivered = new boolean[16];
  int[] runScratch = new int[16];
  int[] runRef = new int[16];
  // The request's tokens of the first i blocks of a stretch (ChainWalk).
  final int[] stretchTokens = new int[ChainWalk.STRETCH + 1];

  /** This thread's chain walk (its state lives here between the runs it visits). */
  final ChainWalk walk = new ChainWalk();

  /** This thread's exact-hash read. */
  final ExactRead exactRead = new ExactRead();

  // LFU entries touched, each owned by a run: the entry's slot (low 32 bits) and generation (the
  // next 16), as a stored cell holds them (RunLayout), so a cell is recorded with one write.
  int credits;
  int[] creditRun = new int[64];
  long[] creditCell = new long[64];
  int tenantId = -1;
  int modelId = -1;
  int schemeId = -1;

  // Per-thread scratch for the index.
  final KeyBuffer key = new KeyBuffer();
  final RunCursor cursor = new RunCursor();

  /** What the index concluded. */
  public Outcome outcome() {
    return outcome;
  }

  /** Number of scored replicas. */
  public int size() {
    return size;
  }

  /** Replica id (see {@link CacheIndex#replicaName}) of entry {@code i}. */
  public int replicaId(final int i) {
    return replica[i];
  }

  public float score(final int i) {
    return score[i];
  }

  public int matchedTokens(final int i) {
    return matched[i];
  }

  public float estimatedCacheHitProb(final int i) {
    return prob[i];
  }

  /** Wire tier of entry {@code i} (T1/T2/T3, otherwise unspecified). */
  public int tier(final int i) {
    return tier[i];
  }

  /** Empties the result. */
  public void clear() {
    outcome = Outcome.NONE;
    size = 0;
    runs = 0;
    credits = 0;
    tenantId = -1;
    modelId = -1;
    schemeId = -1;
  }

  /** Empties the scores and the LFU entries, keeping {@code o} as the outcome. */
  public void downgrade(final Outcome o) {
    outcome = o;
    size = 0;
    credits = 0;
  }

  /**
   * Keeps only the entries with {@code matchedTokens >= floor} (order kept) and drops the LFU
   * entries of the replicas removed, in lockstep. Returns the number kept.
   */
  public int retainMatchedAtLeast(final int floor) {
    int w = 0;
    for (int i = 0; i < size; i++) {
      if (matched[i] >= floor) {
        if (w != i) {
          moveEntry(i, w);
        }
        w++;
      } else if (resultRun[i] >= 0) {
        runDelivered[resultRun[i]] = false;
      }
    }
    size = w;
    return w;
  }

  /**
   * Keeps only the first {@code n} entries (the best, once sorted) and drops the LFU entries of the
   * replicas cut, so a delivery credits only what it answers. No-op when {@code n} is not below the
   * size or not positive. Returns the number kept.
   */
  public int truncate(final int n) {
    if (n <= 0 || n >= size) {
      return size;
    }
    for (int i = n; i < size; i++) {
      if (resultRun[i] >= 0) {
        runDelivered[resultRun[i]] = false;
      }
    }
    size = n;
    return n;
  }

  private void moveEntry(final int from, final int to) {
    replica[to] = replica[from];
    score[to] = score[from];
    matched[to] = matched[from];
    prob[to] = prob[from];
    tier[to] = tier[from];
    resultRun[to] = resultRun[from];
  }

  void ensureRuns(final int n) {
    if (runReplica.length < n) {
      final int c = Math.max(n, runReplica.length * 2);
      runReplica = Arrays.copyOf(runReplica, c);
      runMatched = Arrays.copyOf(runMatched, c);
      runOldest = Arrays.copyOf(runOldest, c);
      runTier = Arrays.copyOf(runTier, c);
      runAlive = Arrays.copyOf(runAlive, c);
      runDelivered = Arrays.copyOf(runDelivered, c);
      runScratch = Arrays.copyOf(runScratch, c);
      runRef = Arrays.copyOf(runRef, c);
    }
    if (replica.length < n) {
      final int c = Math.max(n, replica.length * 2);
      replica = Arrays.copyOf(replica, c);
      score = Arrays.copyOf(score, c);
      matched = Arrays.copyOf(matched, c);
      prob = Arrays.copyOf(prob, c);
      tier = Arrays.copyOf(tier, c);
      resultRun = Arrays.copyOf(resultRun, c);
    }
  }

  void addCredit(final int run, final int slot, final int gen) {
    addCreditCell(run, (slot & 0xFFFF_FFFFL) | ((long) (gen & 0xFFFF) << 32));
  }

  /** Records the credit of a cell word: slot in the low 32 bits, generation in the next 16. */
  void addCreditCell(final int run, final long cell) {
    if (credits == creditRun.length) {
      growCredits();
    }
    creditRun[credits] = run;
    creditCell[credits] = cell;
    credits++;
  }

  /** Records the credit of a cell word in room {@link #reserveCredits} made. */
  void addCreditCellReserved(final int run, final long cell) {
    creditRun[credits] = run;
    creditCell[credits] = cell;
    credits++;
  }

  /** Makes room for {@code n} more credits. */
  void reserveCredits(final int n) {
    if (credits + n > creditRun.length) {
      growCredits(credits + n);
    }
  }

  private void growCredits() {
    growCredits(credits * 2);
  }

  private void growCredits(final int min) {
    final int c = Math.max(min, creditRun.length * 2);
    creditRun = Arrays.copyOf(creditRun, c);
    creditCell = Arrays.copyOf(creditCell, c);
  }

  /** LFU slot of credit {@code i}. */
  int creditSlot(final int i) {
    return (int) creditCell[i];
  }

  /** LFU slot generation of credit {@code i}. */
  int creditGen(final int i) {
    return (int) (creditCell[i] >>> 32) & 0xFFFF;
  }

  /** Number of LFU entries that a delivery of this result would credit. */
  public int pendingCredits() {
    int n = 0;
    for (int i = 0; i < credits; i++) {
      if (runDelivered[creditRun[i]]) {
        n++;
      }
    }
    return n;
  }

  void addEntry(
      final int replicaId,
      final float s,
      final int matchedTokens,
      final float p,
      final int wireTier,
      final int run) {
    ensureRuns(size + 1);
    replica[size] = replicaId;
    score[size] = s;
    matched[size] = matchedTokens;
    prob[size] = p;
    tier[size] = wireTier;
    resultRun[size] = run;
    size++;
  }

  // Sorting scratch: a permutation of the entries and the arrays it is applied through.
  private int[] order = new int[16];
  private int[] permutedInts = new int[16];
  private float[] permutedFloats = new float[16];

  private int[] matchedScratch = new int[16];
  private long[] sortKeys = new long[16];

  /** Scratch for the sort keys of {@code n} entries (contents undefined). */
  long[] sortKeys(final int n) {
    if (sortKeys.length < n) {
      sortKeys = new long[Math.max(n, sortKeys.length * 2)];
    }
    return sortKeys;
  }

  /** Scratch room for {@code n} matched values (reused). */
  int[] matchedScratch(final int n) {
    if (matchedScratch.length < n) {
      matchedScratch = new int[Math.max(n, matchedScratch.length * 2)];
    }
    return matchedScratch;
  }

  /** The identity permutation of the first {@code n} entries (scratch, reused). */
  int[] identityOrder(final int n) {
    if (order.length < n) {
      order = new int[Math.max(n, order.length * 2)];
    }
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    return order;
  }

  /** Reorders the first {@code n} entries so that entry {@code i} is the former {@code o[i]}. */
  void reorder(final int[] o, final int n) {
    int i = 0;
    while (i < n && o[i] == i) {
      i++;
    }
    if (i == n) {
      return;
    }
    if (permutedInts.length < n) {
      permutedInts = new int[Math.max(n, permutedInts.length * 2)];
      permutedFloats = new float[permutedInts.length];
    }
    permute(replica, o, n);
    permute(score, o, n);
    permute(matched, o, n);
    permute(prob, o, n);
    permute(tier, o, n);
    permute(resultRun, o, n);
  }

  private void permute(final int[] a, final int[] o, final int n) {
    final int[] t = permutedInts;
    for (int i = 0; i < n; i++) {
      t[i] = a[o[i]];
    }
    System.arraycopy(t, 0, a, 0, n);
  }

  private void permute(final float[] a, final int[] o, final int n) {
    final float[] t = permutedFloats;
    for (int i = 0; i < n; i++) {
      t[i] = a[o[i]];
    }
    System.arraycopy(t, 0, a, 0, n);
  }

  void swap(final int a, final int b) {
    int t = replica[a];
    replica[a] = replica[b];
    replica[b] = t;
    final float s = score[a];
    score[a] = score[b];
    score[b] = s;
    t = matched[a];
    matched[a] = matched[b];
    matched[b] = t;
    final float p = prob[a];
    prob[a] = prob[b];
    prob[b] = p;
    t = tier[a];
    tier[a] = tier[b];
    tier[b] = t;
    t = resultRun[a];
    resultRun[a] = resultRun[b];
    resultRun[b] = t;
  }
}
