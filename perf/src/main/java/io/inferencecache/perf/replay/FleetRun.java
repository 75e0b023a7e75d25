package io.inferencecache.perf.replay;

import io.inferencecache.engine.policy.ResolvedPolicy;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;

/**
 * One discrete-event run of the fleet: one policy, one offered load, the whole trace.
 *
 * <p><b>Replica.</b> {@code slots} request slots and a FIFO queue. A request starts when a slot is
 * free; its prompt's leading blocks found in the replica's KV cache are hits, the rest is prefilled
 * at {@code prefillTokensPerSecond} ({@code input_length − hits × 512} tokens, at least one); then
 * {@code output_length} tokens are decoded at {@code decodeTokensPerSecond}; the slot is busy for
 * both. TTFT = queue wait + prefill. The KV cache holds at most {@code capacity} blocks, least
 * recently used first out; a started request touches its chain (last block first, so a chain's tail
 * leaves before its head) and every block pushed out is a PREFIX_EVICTED event.
 *
 * <p><b>What the index sees</b> (hint policies only): at each start, ReportCacheState of the
 * request's chain on its replica, then the evictions; every {@code statsInterval} each replica's
 * ReplicaStats with {@code pressure = (running + waiting) / slots} ({@code --pressure-ceiling C}:
 * {@code min(1, (running + waiting) / C)}, as the KV-event sidecar clamps it). The index's clock is
 * the simulated clock ({@link SimClock}), so entry freshness, the TTL and stats ages are all in
 * simulated time; every report is applied before the next lookup.
 *
 * <p><b>Warm start.</b> The hint policies send the first {@code replicas} requests round-robin: the
 * affinity fallback only names replicas the index knows to serve the scope, so a fleet whose
 * replicas have never reported would otherwise collapse onto the first one.
 *
 * <p><b>Order.</b> Events at the same instant: request completions, then stats reports, then
 * arrivals; a completion starts the next queued request at once. Ties of the scorers are broken by
 * a {@link Random} seeded from the run's seed, so a run is a function of the trace, the flags and
 * the seed.
 */
final class FleetRun {
  private static final int FINISH = 0;

  private final FleetOptions o;
  private final MooncakeTraceFile trace;
  private final int requests;
  private final long[] arrivalUs;
  private final FleetPolicy policy;
  private final ReplayTarget target;
  private final SimClock clock;
  private final Replica[] fleet;
  private final Random random;
  private final ReplayTarget.Hint hint = new ReplayTarget.Hint();
  private final PriorityQueue<long[]> events =
      new PriorityQueue<>(
          (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
  private final long[] ttftUs;
  private final long[] waitUs;
  private final long[] prefillUs;
  private final long[] boundPrefillUs;
  private final long meanDecodeUs;
  private final Map<String, Long> reasons = new TreeMap<>();
  private long seq;
  private int roundRobin;
  private long hitBlocks;
  private long promptBlocks;
  private long evictions;
  private long compared;
  private long agreed;
  private double excessMs;
  private long nowUs;

  FleetRun(
      final FleetOptions o,
      final MooncakeTraceFile trace,
      final int requests,
      final double timeScale,
      final FleetPolicy policy,
      final ReplayTarget target,
      final SimClock clock) {
    this.o = o;
    this.trace = trace;
    this.requests = requests;
    this.policy = policy;
    this.target = target;
    this.clock = clock;
    this.random = new Random(o.seed ^ policy.ordinal());
    this.arrivalUs = new long[requests];
    for (int i = 0; i < requests; i++) {
      arrivalUs[i] = Math.round(trace.timestampMs(i) * 1000.0 * timeScale);
    }
    this.fleet = new Replica[o.replicas];
    for (int r = 0; r < fleet.length; r++) {
      fleet[r] = new Replica(o.capacity);
    }
    this.ttftUs = new long[requests];
    this.waitUs = new long[requests];
    this.prefillUs = new long[requests];
    this.boundPrefillUs = TtftBreakdown.boundPrefillUs(o, trace, requests);
    this.meanDecodeUs = meanDecodeUs(o, trace, requests);
  }

  /**
   * Slot-seconds the trace needs without any prefix reuse ÷ (trace span × replicas × slots): the
   * trace's own load on this fleet. Arrival times are scaled by {@code native ÷ wanted load}.
   */
  static double nativeLoad(
      final FleetOptions o, final MooncakeTraceFile trace, final int requests) {
    double work = 0;
    for (int i = 0; i < requests; i++) {
      work +=
          trace.inputTokens(i) / o.prefillTokensPerSecond
              + trace.outputTokens(i) / o.decodeTokensPerSecond;
    }
    final double span = Math.max(1, trace.timestampMs(requests - 1)) / 1000.0;
    return work / (span * o.replicas * o.slots);
  }

  /**
   * Prompt blocks that an earlier request of the trace already had as a leading run ÷ all prompt
   * blocks: the hit rate of one replica with an unbounded cache, the reuse bound of any routing.
   */
  static double reuseBound(final MooncakeTraceFile trace, final int requests) {
    final java.util.HashSet<Long> seen = new java.util.HashSet<>();
    long hits = 0;
    long total = 0;
    for (int i = 0; i < requests; i++) {
      final long[] chain = trace.ids(i);
      total += chain.length;
      int m = 0;
      while (m < chain.length && seen.contains(chain[m])) {
        m++;
      }
      hits += m;
      for (long k : chain) {
        seen.add(k);
      }
    }
    return total == 0 ? 0 : (double) hits / total;
  }

  /** Prefill (µs) of a prompt of {@code tokens} whose first {@code matched} blocks are cached. */
  static long prefillUs(final FleetOptions o, final long tokens, final int matched) {
    final long uncached = Math.max(1, tokens - (long) matched * MooncakeTraceFile.TOKENS_PER_BLOCK);
    return Math.round(uncached * 1e6 / o.prefillTokensPerSecond);
  }

  FleetResult run() throws Exception {
    final long statsUs = Math.max(1, Math.round(o.statsIntervalSeconds * 1e6));
    long nextStats = target == null ? Long.MAX_VALUE : 0;
    int next = 0;
    while (next < requests || !events.isEmpty()) {
      final long finishAt = events.isEmpty() ? Long.MAX_VALUE : events.peek()[0];
      final long arriveAt = next < requests ? arrivalUs[next] : Long.MAX_VALUE;
      if (finishAt <= nextStats && finishAt <= arriveAt) {
        final long[] e = events.poll();
        advance(e[0]);
        finish((int) e[3], e[4], e[0]);
      } else if (nextStats <= arriveAt) {
        advance(nextStats);
        for (int r = 0; r < fleet.length; r++) {
          target.stats(r, (float) fleet[r].pressure(o.slots, o.pressureCeiling));
        }
        nextStats += statsUs;
      } else {
        advance(arriveAt);
        arrive(next++);
      }
    }
    return result();
  }

  private void advance(final long us) {
    nowUs = us;
    clock.setMicros(us);
  }

  private void arrive(final int req) throws Exception {
    final int r = choose(req);
    final Replica rep = fleet[r];
    rep.routed++;
    rep.queue.addLast(req);
    rep.queuedBlocks += blocksOf(req);
    if (rep.running < o.slots) {
      start(r);
    }
  }

  private void finish(final int r, final long blocks, final long endUs) throws Exception {
    final Replica rep = fleet[r];
    rep.removeEnd(endUs);
    rep.running--;
    rep.runningBlocks -= blocks;
    if (!rep.queue.isEmpty()) {
      start(r);
    }
  }

  private long blocksOf(final int req) {
    return trace.ids(req).length
        + (trace.outputTokens(req) + MooncakeTraceFile.TOKENS_PER_BLOCK - 1)
            / MooncakeTraceFile.TOKENS_PER_BLOCK;
  }

  private void start(final int r) throws Exception {
    final Replica rep = fleet[r];
    final int req = rep.queue.pollFirst();
    final long blocks = blocksOf(req);
    rep.queuedBlocks -= blocks;
    rep.running++;
    rep.runningBlocks += blocks;
    final long[] chain = trace.ids(req);
    final int matched = rep.prefixMatch(chain);
    hitBlocks += matched;
    promptBlocks += chain.length;
    final long prefill = prefillUs(o, trace.inputTokens(req), matched);
    waitUs[req] = nowUs - arrivalUs[req];
    prefillUs[req] = prefill;
    ttftUs[req] = waitUs[req] + prefill;
    final long end = nowUs + prefill + decodeUs(req);
    rep.addEnd(end, nowUs + prefill + meanDecodeUs);
    events.add(new long[] {end, seq++, FINISH, r, blocks});
    if (target != null) {
      if (target.evictionsPending()) {
        target.sync(); // an eviction queued earlier must not overtake this re-store
      }
      target.report(r, chain);
    }
    for (int b = chain.length - 1; b >= 0; b--) {
      rep.cache.put(chain[b], Boolean.TRUE);
    }
    final Iterator<Long> eldest = rep.cache.keySet().iterator();
    while (rep.cache.size() > o.capacity && eldest.hasNext()) {
      final long key = eldest.next();
      eldest.remove();
      evictions++;
      if (target != null) {
        target.evict(r, key);
      }
    }
  }

  private int choose(final int req) throws Exception {
    final long[] chain = trace.ids(req);
    if (policy.usesIndex && req < fleet.length) {
      return roundRobin(); // warm start: every replica serves (is known to the index) first
    }
    return switch (policy) {
      case TOP_HINT, TOP_HINT_LOAD_AWARE, COST_MODEL -> {
        lookup(chain);
        final int pick = hint.size > 0 ? hint.replica[0] : roundRobin();
        if (policy == FleetPolicy.COST_MODEL) {
          compareWithExact(req, pick);
        }
        yield pick;
      }
      case PREFIX_ELSE_LEAST_LOADED -> {
        lookup(chain);
        yield hint.size > 0 && hint.reasonCode.equals("PREFIX_MATCH")
            ? hint.replica[0]
            : leastLoaded();
      }
      case ROUND_ROBIN -> roundRobin();
      case LEAST_LOADED -> leastLoaded();
      case LLMD -> llmd(chain);
      case DYNAMO -> dynamo(chain);
      case COST_MODEL_EXACT -> costModelExact(req);
      case GREEDY_TTFT -> greedyTtft(req);
    };
  }

  /** Mean decode time (µs) of the trace's requests. */
  private static long meanDecodeUs(
      final FleetOptions o, final MooncakeTraceFile trace, final int requests) {
    double sum = 0;
    for (int i = 0; i < requests; i++) {
      sum += trace.outputTokens(i) * 1e6 / o.decodeTokensPerSecond;
    }
    return requests == 0 ? 0 : Math.round(sum / requests);
  }

  private long decodeUs(final int req) {
    return Math.round(trace.outputTokens(req) * 1e6 / o.decodeTokensPerSecond);
  }

  /**
   * The engine's cost model (CostModelRouting) on exact state: uncached prefill + {@code
   * requestSeconds ÷ slots × max(0, running + waiting − slots + 1)}; the cheapest wins, then the
   * less loaded, then at random.
   */
  private int costModelExact(final int req) {
    int best = -1;
    int ties = 0;
    double bestCost = Double.POSITIVE_INFINITY;
    int bestLoad = Integer.MAX_VALUE;
    for (int r = 0; r < fleet.length; r++) {
      final int load = fleet[r].running + fleet[r].queue.size();
      final double cost = exactCost(req, r);
      if (cost < bestCost || (cost == bestCost && load < bestLoad)) {
        bestCost = cost;
        bestLoad = load;
        best = r;
        ties = 1;
      } else if (cost == bestCost && load == bestLoad && random.nextInt(++ties) == 0) {
        best = r;
      }
    }
    return best;
  }

  /** The cost model's cost (ms) of request {@code req} on replica {@code r}, on exact state. */
  private double exactCost(final int req, final int r) {
    final Replica rep = fleet[r];
    final double requestSeconds =
        o.costRequestSeconds > 0 ? o.costRequestSeconds : ResolvedPolicy.REQUEST_SECONDS_DEFAULT;
    final long uncached =
        trace.inputTokens(req)
            - (long) rep.prefixMatch(trace.ids(req)) * MooncakeTraceFile.TOKENS_PER_BLOCK;
    final int queued = Math.max(0, rep.running + rep.queue.size() - o.slots + 1);
    return Math.max(0, uncached) * 1000.0 / o.prefillTokensPerSecond
        + requestSeconds * 1000.0 / o.slots * queued;
  }

  /**
   * Request by request, the stats-fed pick against the exact-state rule's: the same cost counts as
   * agreement (ties are arbitrary); otherwise the pick's excess exact cost is summed.
   */
  private void compareWithExact(final int req, final int pick) {
    final double excess = exactCost(req, pick) - exactCost(req, costModelExact(req));
    compared++;
    if (excess > 0) {
      excessMs += excess;
    } else {
      agreed++;
    }
  }

  /** See {@link FleetPolicy#GREEDY_TTFT}. */
  private int greedyTtft(final int req) {
    final long[] chain = trace.ids(req);
    int best = -1;
    int ties = 0;
    long bestTtft = Long.MAX_VALUE;
    for (int r = 0; r < fleet.length; r++) {
      final Replica rep = fleet[r];
      final PriorityQueue<Long> free = new PriorityQueue<>();
      for (int k = 0; k < rep.running; k++) {
        free.add(o.greedyClairvoyant ? rep.ends[k] : Math.max(nowUs, rep.expectedEnds[k]));
      }
      while (free.size() < o.slots) {
        free.add(nowUs);
      }
      for (int q : rep.queue) {
        final long t = free.poll();
        free.add(
            t
                + prefillUs(o, trace.inputTokens(q), rep.prefixMatch(trace.ids(q)))
                + (o.greedyClairvoyant ? decodeUs(q) : meanDecodeUs));
      }
      final long ttft =
          free.poll() - nowUs + prefillUs(o, trace.inputTokens(req), rep.prefixMatch(chain));
      if (ttft < bestTtft) {
        bestTtft = ttft;
        best = r;
        ties = 1;
      } else if (ttft == bestTtft && random.nextInt(++ties) == 0) {
        best = r;
      }
    }
    return best;
  }

  private void lookup(final long[] chain) throws Exception {
    target.sync();
    target.lookup(chain, hint);
    reasons.merge(hint.reasonCode, 1L, Long::sum);
  }

  private int roundRobin() {
    final int r = roundRobin;
    roundRobin = (roundRobin + 1) % fleet.length;
    return r;
  }

  private int leastLoaded() {
    int best = -1;
    int ties = 0;
    long bestLoad = Long.MAX_VALUE;
    for (int r = 0; r < fleet.length; r++) {
      final long load = fleet[r].running + fleet[r].queue.size();
      if (load < bestLoad) {
        bestLoad = load;
        best = r;
        ties = 1;
      } else if (load == bestLoad && random.nextInt(++ties) == 0) {
        best = r; // reservoir choice: each tied replica with the same probability
      }
    }
    return best;
  }

  private int llmd(final long[] chain) {
    int qmin = Integer.MAX_VALUE;
    int qmax = Integer.MIN_VALUE;
    for (Replica rep : fleet) {
      qmin = Math.min(qmin, rep.queue.size());
      qmax = Math.max(qmax, rep.queue.size());
    }
    int best = -1;
    int ties = 0;
    double bestScore = Double.NEGATIVE_INFINITY;
    for (int r = 0; r < fleet.length; r++) {
      final Replica rep = fleet[r];
      final double prefix = (double) rep.prefixMatch(chain) / chain.length;
      final double queue = qmax == qmin ? 1.0 : (double) (qmax - rep.queue.size()) / (qmax - qmin);
      final double kv = 1.0 - Math.min(1.0, (double) rep.runningBlocks / o.capacity);
      final double s =
          o.llmdPrefixWeight * prefix + o.llmdQueueWeight * queue + o.llmdKvWeight * kv;
      if (s > bestScore) {
        bestScore = s;
        best = r;
        ties = 1;
      } else if (s == bestScore && random.nextInt(++ties) == 0) {
        best = r;
      }
    }
    return best;
  }

  private int dynamo(final long[] chain) {
    final double[] logit = new double[fleet.length];
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (int r = 0; r < fleet.length; r++) {
      final Replica rep = fleet[r];
      final int prefill = chain.length - rep.prefixMatch(chain);
      logit[r] = o.dynamoOverlapWeight * prefill + rep.runningBlocks + rep.queuedBlocks;
      min = Math.min(min, logit[r]);
      max = Math.max(max, logit[r]);
    }
    if (o.dynamoTemperature <= 0 || max == min) {
      int best = -1;
      int ties = 0;
      for (int r = 0; r < fleet.length; r++) {
        if (logit[r] == min && random.nextInt(++ties) == 0) {
          best = r;
        }
      }
      return best;
    }
    double sum = 0;
    final double[] w = new double[fleet.length];
    for (int r = 0; r < fleet.length; r++) {
      w[r] = Math.exp(-((logit[r] - min) / (max - min)) / o.dynamoTemperature);
      sum += w[r];
    }
    double u = random.nextDouble() * sum;
    for (int r = 0; r < fleet.length; r++) {
      u -= w[r];
      if (u <= 0) {
        return r;
      }
    }
    return fleet.length - 1;
  }

  private FleetResult result() {
    final long[] ttft = ttftUs.clone();
    final long[] wait = waitUs.clone();
    Arrays.sort(ttft);
    Arrays.sort(wait);
    long waitSum = 0;
    for (long w : wait) {
      waitSum += w;
    }
    long maxRouted = 0;
    long sumRouted = 0;
    for (Replica rep : fleet) {
      maxRouted = Math.max(maxRouted, rep.routed);
      sumRouted += rep.routed;
    }
    final TtftBreakdown tail = TtftBreakdown.of(ttftUs, waitUs, prefillUs, boundPrefillUs);
    return new FleetResult(
        policy,
        requests,
        promptBlocks == 0 ? 0 : (double) hitBlocks / promptBlocks,
        percentile(ttft, 0.50) / 1000.0,
        percentile(ttft, 0.90) / 1000.0,
        percentile(ttft, 0.99) / 1000.0,
        (double) waitSum / requests / 1000.0,
        percentile(wait, 0.90) / 1000.0,
        maxRouted,
        (double) sumRouted / fleet.length,
        evictions,
        nowUs / 1e6,
        new TreeMap<>(reasons),
        tail,
        compared == 0 ? Double.NaN : (double) agreed / compared,
        compared == 0 ? Double.NaN : excessMs / compared);
  }

  /** Nearest-rank percentile of a sorted array. */
  static long percentile(final long[] sorted, final double q) {
    if (sorted.length == 0) {
      return 0;
    }
    final int rank = (int) Math.ceil(q * sorted.length);
    return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
  }

  /** One simulated replica: slots in use, its FIFO queue, its LRU KV cache. */
  private static final class Replica {
    final ArrayDeque<Integer> queue = new ArrayDeque<>();
    final LinkedHashMap<Long, Boolean> cache;
    int running;
    long runningBlocks;
    long queuedBlocks;
    long routed;

    /**
     * End times (µs) of the running requests, {@code [0, running)}, and the same with the mean
     * decode time instead of the request's own (what a router not knowing output lengths expects).
     */
    long[] ends = new long[8];

    long[] expectedEnds = new long[8];

    Replica(final int capacity) {
      this.cache = new LinkedHashMap<>(capacity * 2, 0.75f, true);
    }

    void addEnd(final long end, final long expectedEnd) {
      if (running > ends.length) {
        ends = Arrays.copyOf(ends, 2 * running);
        expectedEnds = Arrays.copyOf(expectedEnds, 2 * running);
      }
      ends[running - 1] = end;
      expectedEnds[running - 1] = expectedEnd;
    }

    /** Drops one running request's end time (called before {@code running} drops). */
    void removeEnd(final long end) {
      for (int k = 0; k < running; k++) {
        if (ends[k] == end) {
          ends[k] = ends[running - 1];
          expectedEnds[k] = expectedEnds[running - 1];
          return;
        }
      }
      throw new IllegalStateException("no running request ends at " + end);
    }

    int prefixMatch(final long[] chain) {
      int m = 0;
      while (m < chain.length && cache.containsKey(chain[m])) {
        m++;
      }
      return m;
    }

    /** {@code (running + waiting) ÷ slots}; with a ceiling, {@code min(1, … ÷ ceiling)}. */
    double pressure(final int slots, final int ceiling) {
      final int load = running + queue.size();
      return ceiling > 0 ? Math.min(1.0, (double) load / ceiling) : (double) load / slots;
    }
  }
}
