package io.inferencecache.perf.replay;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashMap;

/**
 * One simulated replica of a disaggregated fleet: its slots, FIFO queue and LRU KV cache, and on a
 * decode replica the running batch and the decode-local prefills.
 *
 * <p><b>Decode batch.</b> The running requests advance together: with {@code b} of them each gains
 * one token per step of {@code step(b)} µs, times the speed left by a decode-local prefill in
 * progress ({@code 1 − stall}). Between two changes of the batch the tokens left fall linearly, so
 * the replica is simulated per change (admission, completion, prefill start or end), not per step.
 */
final class PdReplica {
  final int id;
  final boolean decode;
  final int slots;
  final int capacity;
  final ArrayDeque<Integer> queue = new ArrayDeque<>();
  final ArrayDeque<Integer> localPrefills = new ArrayDeque<>();
  private final LinkedHashMap<Long, Boolean> cache;

  /** Slots in use (prefilling or decoding). */
  int running;

  /** Requests routed here for decode whose KV is still being prefilled or moved elsewhere. */
  int incoming;

  /** Prompt blocks of the requests holding a slot, and of the queued and incoming ones. */
  long runningBlocks;

  long queuedBlocks;
  long routed;

  /** Bumped at every rescheduling of the batch; a decode tick of an older version is stale. */
  long version;

  int batchSize;
  int[] batch = new int[16];
  double[] left = new double[16];
  long advancedUs;

  PdReplica(final int id, final boolean decode, final int slots, final int capacity) {
    this.id = id;
    this.decode = decode;
    this.slots = slots;
    this.capacity = capacity;
    this.cache = new LinkedHashMap<>(capacity * 2, 0.75f, true);
  }

  /** Leading blocks of {@code chain} in the cache (does not touch the LRU order). */
  int prefixMatch(final long[] chain) {
    int m = 0;
    while (m < chain.length && cache.containsKey(chain[m])) {
      m++;
    }
    return m;
  }

  /**
   * Stores {@code chain} (last block first, so its tail leaves before its head) and evicts the
   * least recently used blocks over capacity, each handed to {@code evicted}; returns how many.
   */
  int store(final long[] chain, final java.util.function.LongConsumer evicted) {
    for (int b = chain.length - 1; b >= 0; b--) {
      cache.put(chain[b], Boolean.TRUE);
    }
    int n = 0;
    final Iterator<Long> eldest = cache.keySet().iterator();
    while (cache.size() > capacity && eldest.hasNext()) {
      final long key = eldest.next();
      eldest.remove();
      n++;
      evicted.accept(key);
    }
    return n;
  }

  /** Requests holding a slot plus those waiting for one (incoming ones included). */
  int load() {
    return running + waiting();
  }

  /** Requests waiting for a slot: queued, and on a decode replica incoming. */
  int waiting() {
    return queue.size() + incoming;
  }

  /** {@code (running + waiting) ÷ slots}, the pressure a stats report carries. */
  double pressure() {
    return (double) load() / slots;
  }

  /** KV use of the requests holding a slot: their prompt blocks ÷ capacity, at most 1. */
  double kvUse() {
    return Math.min(1.0, (double) runningBlocks / capacity);
  }

  /** Tokens per µs each running request gains now. */
  double rate(final PdOptions o) {
    if (batchSize == 0) {
      return 0;
    }
    final double speed = localPrefills.isEmpty() ? 1.0 : 1.0 - o.localPrefillStall;
    return speed / o.stepMicros(batchSize);
  }

  /**
   * Moves the batch to {@code nowUs}: every running request loses {@code elapsed × rate} tokens;
   * {@code firstToken} receives a request whose first token falls in this interval and when.
   */
  void advance(final long nowUs, final PdOptions o, final int[] out, final FirstToken firstToken) {
    final double rate = rate(o);
    final long from = advancedUs;
    advancedUs = nowUs;
    if (rate == 0 || nowUs <= from) {
      return;
    }
    final double gained = (nowUs - from) * rate;
    for (int i = 0; i < batchSize; i++) {
      final int req = batch[i];
      final double before = left[i];
      left[i] = before - gained;
      final double firstAt = out[req] - 1.0; // tokens left when the first token is out
      if (before > firstAt && left[i] <= firstAt) {
        firstToken.at(req, from + Math.round((before - firstAt) / rate));
      }
    }
  }

  /** Adds {@code req} with {@code tokens} to decode to the running batch. */
  void join(final int req, final int tokens) {
    if (batchSize == batch.length) {
      batch = Arrays.copyOf(batch, batchSize * 2);
      left = Arrays.copyOf(left, batchSize * 2);
    }
    batch[batchSize] = req;
    left[batchSize] = tokens;
    batchSize++;
  }

  /** µs until the next request of the batch finishes at the current rate; -1 when none runs. */
  long untilNextFinish(final PdOptions o) {
    final double rate = rate(o);
    if (rate == 0) {
      return -1;
    }
    double min = Double.MAX_VALUE;
    for (int i = 0; i < batchSize; i++) {
      min = Math.min(min, left[i]);
    }
    return Math.max(0, (long) Math.ceil(min / rate));
  }

  /**
   * Removes the requests with (within a µs of decoding) nothing left, in batch order, handing each
   * to {@code done}; returns how many.
   */
  int retireFinished(final PdOptions o, final java.util.function.IntConsumer done) {
    final double eps = Math.max(1e-9, rate(o) * 1.0);
    int kept = 0;
    int n = 0;
    for (int i = 0; i < batchSize; i++) {
      if (left[i] <= eps) {
        done.accept(batch[i]);
        n++;
      } else {
        batch[kept] = batch[i];
        left[kept] = left[i];
        kept++;
      }
    }
    batchSize = kept;
    return n;
  }

  /** Receives a request's first-token time. */
  interface FirstToken {
    void at(int req, long us);
  }
}
