package io.inferencecache.perf.replay;

import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.TreeMap;

/**
 * One discrete-event run of a disaggregated fleet: one {@link PdPolicy}, one offered load, the
 * whole trace. Times are simulated µs.
 *
 * <p><b>Request path.</b> At arrival the policy picks a (prefill, decode) pair or decode-local.
 * <i>Pair:</i> the request queues (FIFO) on the prefill replica; when a slot is free the prompt's
 * leading blocks found in that replica's KV cache are hits and the rest is prefilled at {@code
 * prefillMicrosPerToken} per token; then its KV (prompt tokens × {@code kvBytesPerToken}) moves to
 * the decode replica in {@code bytes ÷ bandwidth} of the pair's link class (same node, same
 * accelerator vendor, cross; no contention), and it queues there for a slot. <i>Decode-local:</i>
 * it queues on the decode replica at once and, once it holds a slot, prefills its uncached part
 * there, one local prefill at a time, slowing the replica's batch by {@code localPrefillStall}
 * while it runs. Then it joins the decode batch ({@link PdReplica}) until its output tokens are
 * out. A request counts in its decode replica's load from the routing decision on.
 *
 * <p><b>Figures.</b> TTFT = arrival → first decoded token (queues, prefill, transfer, decode queue,
 * first step); inter-token latency = (finish − first token) ÷ (output tokens − 1), per request.
 *
 * <p><b>Caches and the index.</b> Each replica's LRU cache stores a prompt's chain when it prefills
 * it, and a decode replica also when the KV arrives. Index policies see each store as a
 * ReportCacheState, each eviction as PREFIX_EVICTED, and every {@code statsInterval} each replica's
 * pressure {@code (running + waiting) ÷ slots}, in simulated time.
 *
 * <p><b>Order.</b> Events at the same instant run in scheduling order, before a stats report,
 * before an arrival. A run is a function of the trace, the options and the seed.
 */
final class PdRun {
  private static final int PREFILL_DONE = 0;
  private static final int TRANSFER_DONE = 1;
  private static final int LOCAL_DONE = 2;
  private static final int DECODE_TICK = 3;

  private final PdOptions o;
  private final MooncakeTraceFile trace;
  private final PdPolicy policy;
  private final int requests;
  private final PdReplica[] fleet;
  private final PdIndex index;
  private final SimClock clock;
  private final PdRouting routing;
  private final PdRouting.Decision decision = new PdRouting.Decision();
  private final PriorityQueue<long[]> events =
      new PriorityQueue<>(
          (a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
  private final int[] outputTokens;
  final long[] arrivalUs;
  final int[] prefillOf;
  final int[] decodeOf;
  final long[] firstTokenUs;
  final long[] finishUs;
  final long[] bytesMoved;
  final long[] prefillStartUs;
  final long[] prefillUs;
  final long[] transferUs;
  final long[] admittedUs;
  final int[] completions;
  final long[] linkTransfers = new long[3];
  private final TreeMap<String, Long> reasons = new TreeMap<>();
  private long transferredBytes;
  private long hitBlocks;
  private long promptBlocks;
  private long evictions;
  private long seq;
  private long nowUs;

  PdRun(
      final PdOptions o,
      final MooncakeTraceFile trace,
      final int requests,
      final double timeScale,
      final PdPolicy policy,
      final PdIndex index,
      final SimClock clock) {
    this.o = o;
    this.trace = trace;
    this.policy = policy;
    this.requests = requests;
    this.index = index;
    this.clock = clock;
    this.fleet = new PdReplica[o.replicas()];
    for (int r = 0; r < fleet.length; r++) {
      final boolean decode = r >= o.prefillReplicas;
      fleet[r] =
          new PdReplica(
              r,
              decode,
              decode ? o.decodeSlots : o.prefillSlots,
              decode ? o.decodeCapacity : o.prefillCapacity);
    }
    this.routing = new PdRouting(o, policy, fleet, index, new Random(o.seed ^ policy.ordinal()));
    this.arrivalUs = new long[requests];
    this.outputTokens = new int[requests];
    for (int i = 0; i < requests; i++) {
      arrivalUs[i] = Math.round(trace.timestampMs(i) * 1000.0 * timeScale);
      outputTokens[i] = Math.max(1, trace.outputTokens(i));
    }
    this.prefillOf = new int[requests];
    this.decodeOf = new int[requests];
    this.firstTokenUs = new long[requests];
    this.finishUs = new long[requests];
    this.bytesMoved = new long[requests];
    this.prefillStartUs = new long[requests];
    this.prefillUs = new long[requests];
    this.transferUs = new long[requests];
    this.admittedUs = new long[requests];
    this.completions = new int[requests];
    Arrays.fill(firstTokenUs, -1);
    Arrays.fill(finishUs, -1);
  }

  /**
   * The busier pool's share of its capacity without prefix reuse: prefill slot-time (every prompt
   * token prefilled) and decode batch-time (every output token at a full batch's step) ÷ (trace
   * span × the pool). Arrival times are scaled by {@code native ÷ wanted load}.
   */
  static double nativeLoad(final PdOptions o, final MooncakeTraceFile trace, final int requests) {
    double prefill = 0;
    double decode = 0;
    for (int i = 0; i < requests; i++) {
      prefill += trace.inputTokens(i) * o.prefillMicrosPerToken;
      decode += Math.max(1, trace.outputTokens(i)) * o.stepMicros(o.decodeSlots) / o.decodeSlots;
    }
    final double spanUs = Math.max(1, trace.timestampMs(requests - 1)) * 1000.0;
    return Math.max(
        prefill / (spanUs * o.prefillReplicas * o.prefillSlots),
        decode / (spanUs * o.decodeReplicas));
  }

  PdResult run() throws Exception {
    final long statsUs = Math.max(1, Math.round(o.statsIntervalSeconds * 1e6));
    long nextStats = index == null ? Long.MAX_VALUE : 0;
    int next = 0;
    while (next < requests || !events.isEmpty()) {
      final long eventAt = events.isEmpty() ? Long.MAX_VALUE : events.peek()[0];
      final long arriveAt = next < requests ? arrivalUs[next] : Long.MAX_VALUE;
      if (eventAt <= nextStats && eventAt <= arriveAt) {
        final long[] e = events.poll();
        advance(e[0]);
        handle(e);
      } else if (nextStats <= arriveAt) {
        advance(nextStats);
        for (int r = 0; r < fleet.length; r++) {
          index.stats(r, fleet[r].pressure());
        }
        nextStats = next < requests ? nextStats + statsUs : Long.MAX_VALUE;
      } else {
        advance(arriveAt);
        arrive(next++);
      }
    }
    return PdResult.of(this);
  }

  private void advance(final long us) {
    nowUs = us;
    clock.setMicros(us);
  }

  private void schedule(final long at, final int type, final int replica, final long arg) {
    events.add(new long[] {at, seq++, type, replica, arg});
  }

  private void handle(final long[] e) throws Exception {
    final int r = (int) e[3];
    switch ((int) e[2]) {
      case PREFILL_DONE -> prefillDone(r, (int) e[4]);
      case TRANSFER_DONE -> transferDone(r, (int) e[4]);
      case LOCAL_DONE -> localDone(r);
      case DECODE_TICK -> {
        if (e[4] == fleet[r].version) {
          tick(r);
        }
      }
      default -> throw new IllegalStateException("event type " + e[2]);
    }
  }

  private long blocksOf(final int req) {
    return trace.ids(req).length;
  }

  private void arrive(final int req) throws Exception {
    routing.choose(trace.ids(req), trace.inputTokens(req), decision);
    if (!decision.reason.isEmpty()) {
      reasons.merge(decision.reason, 1L, Long::sum);
    }
    prefillOf[req] = decision.prefill;
    decodeOf[req] = decision.decode;
    final PdReplica d = fleet[decision.decode];
    d.routed++;
    d.queuedBlocks += blocksOf(req);
    if (decision.local()) {
      d.queue.addLast(req);
      if (admit(decision.decode)) {
        reschedule(decision.decode);
      }
      return;
    }
    d.incoming++;
    final PdReplica p = fleet[decision.prefill];
    p.routed++;
    p.queue.addLast(req);
    p.queuedBlocks += blocksOf(req);
    startPrefills(decision.prefill);
  }

  /** Prefills the uncached part of {@code req}'s prompt on replica {@code r}; returns µs. */
  private long prefill(final int r, final int req) {
    final long[] chain = trace.ids(req);
    final int matched = fleet[r].prefixMatch(chain);
    hitBlocks += matched;
    promptBlocks += chain.length;
    final long uncached =
        Math.max(1, trace.inputTokens(req) - (long) matched * MooncakeTraceFile.TOKENS_PER_BLOCK);
    store(r, chain);
    prefillStartUs[req] = nowUs;
    prefillUs[req] = Math.round(uncached * o.prefillMicrosPerToken);
    return prefillUs[req];
  }

  private void store(final int r, final long[] chain) {
    if (index != null) {
      index.report(r, chain);
    }
    evictions +=
        fleet[r].store(
            chain,
            key -> {
              if (index != null) {
                index.evict(r, key);
              }
            });
  }

  private void startPrefills(final int r) {
    final PdReplica p = fleet[r];
    while (p.running < p.slots && !p.queue.isEmpty()) {
      final int req = p.queue.pollFirst();
      p.queuedBlocks -= blocksOf(req);
      p.running++;
      p.runningBlocks += blocksOf(req);
      schedule(nowUs + prefill(r, req), PREFILL_DONE, r, req);
    }
  }

  private void prefillDone(final int r, final int req) {
    final PdReplica p = fleet[r];
    p.running--;
    p.runningBlocks -= blocksOf(req);
    startPrefills(r);
    final int d = decodeOf[req];
    final int link = o.linkClass(r, d);
    final long bytes = trace.inputTokens(req) * o.kvBytesPerToken;
    bytesMoved[req] += bytes;
    transferredBytes += bytes;
    linkTransfers[link]++;
    transferUs[req] = o.transferMicros(trace.inputTokens(req), link);
    schedule(nowUs + transferUs[req], TRANSFER_DONE, d, req);
  }

  private void transferDone(final int r, final int req) {
    final PdReplica d = fleet[r];
    d.incoming--;
    store(r, trace.ids(req));
    d.queue.addLast(req);
    if (admit(r)) {
      reschedule(r);
    }
  }

  /**
   * Gives free slots of decode replica {@code r} to its queue, in order; returns whether any was
   * given (the caller then reschedules the batch).
   */
  private boolean admit(final int r) {
    final PdReplica d = fleet[r];
    if (d.running >= d.slots || d.queue.isEmpty()) {
      return false;
    }
    d.advance(nowUs, o, outputTokens, this::firstToken);
    while (d.running < d.slots && !d.queue.isEmpty()) {
      final int req = d.queue.pollFirst();
      d.queuedBlocks -= blocksOf(req);
      d.running++;
      admittedUs[req] = nowUs;
      d.runningBlocks += blocksOf(req);
      if (prefillOf[req] >= 0) {
        d.join(req, outputTokens[req]);
      } else {
        d.localPrefills.addLast(req);
        if (d.localPrefills.size() == 1) {
          schedule(nowUs + prefill(r, req), LOCAL_DONE, r, req);
        }
      }
    }
    return true;
  }

  private void localDone(final int r) {
    final PdReplica d = fleet[r];
    d.advance(nowUs, o, outputTokens, this::firstToken);
    final int req = d.localPrefills.pollFirst();
    d.join(req, outputTokens[req]);
    if (!d.localPrefills.isEmpty()) {
      final int nextReq = d.localPrefills.peekFirst();
      schedule(nowUs + prefill(r, nextReq), LOCAL_DONE, r, nextReq);
    }
    reschedule(r);
  }

  private void tick(final int r) {
    final PdReplica d = fleet[r];
    d.advance(nowUs, o, outputTokens, this::firstToken);
    d.retireFinished(o, this::finish);
    admit(r);
    reschedule(r);
  }

  private void finish(final int req) {
    final PdReplica d = fleet[decodeOf[req]];
    d.running--;
    d.runningBlocks -= blocksOf(req);
    completions[req]++;
    finishUs[req] = nowUs;
    if (firstTokenUs[req] < 0) {
      firstTokenUs[req] = nowUs;
    }
  }

  private void firstToken(final int req, final long us) {
    if (firstTokenUs[req] < 0) {
      firstTokenUs[req] = us;
    }
  }

  /** A new tick for decode replica {@code r}'s next completion at its current speed. */
  private void reschedule(final int r) {
    final PdReplica d = fleet[r];
    d.version++;
    final long in = d.untilNextFinish(o);
    if (in >= 0) {
      schedule(nowUs + in, DECODE_TICK, r, d.version);
    }
  }

  PdPolicy policy() {
    return policy;
  }

  int requests() {
    return requests;
  }

  long outputTokens(final int req) {
    return outputTokens[req];
  }

  long transferredBytes() {
    return transferredBytes;
  }

  double hitRate() {
    return promptBlocks == 0 ? 0 : (double) hitBlocks / promptBlocks;
  }

  long evictions() {
    return evictions;
  }

  long nowUs() {
    return nowUs;
  }

  TreeMap<String, Long> reasons() {
    return reasons;
  }
}
