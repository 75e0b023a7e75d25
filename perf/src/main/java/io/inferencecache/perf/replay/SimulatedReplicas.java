package io.inferencecache.perf.replay;

import java.util.ArrayDeque;
import java.util.Arrays;
import org.agrona.collections.Long2LongHashMap;

/**
 * The serving replicas of one routing policy, simulated: {@code copies × perCopy} replicas (copy
 * {@code k} owns replicas {@code [k × perCopy, (k + 1) × perCopy)}), each with a prefix cache of at
 * most {@code capacity} blocks and a load.
 *
 * <p><b>Cache.</b> A replica keeps the chains it served, oldest first, and a reference count per
 * block (the number of kept chains containing it); its stored blocks are those with a positive
 * count. After storing a chain, while it stores more than {@code capacity} blocks it drops its
 * oldest chain, and every block whose count falls to 0 is evicted (reported to {@link Evictions}).
 * A prefix shared with a newer chain therefore stays; since a chain holds every prefix of itself, a
 * stored block's whole prefix is always stored too.
 *
 * <p><b>Load.</b> A request occupies its chain's blocks on the replica from its arrival until
 * arrival + output tokens × {@code decodeMsPerToken} (trace time): {@link #activeBlocks} is the sum
 * over the requests in flight — the KV blocks the replica is busy decoding.
 */
final class SimulatedReplicas {
  /** Receives each evicted (replica, block key). */
  interface Evictions {
    void evicted(int replica, long key);
  }

  private final int copies;
  private final int perCopy;
  private final int capacity;
  private final double decodeMsPerToken;
  private final Replica[] replicas;

  SimulatedReplicas(
      final int copies, final int perCopy, final int capacity, final double decodeMsPerToken) {
    if (copies < 1 || perCopy < 1 || capacity < 1) {
      throw new IllegalArgumentException("copies, replicas and capacity must be >= 1");
    }
    this.copies = copies;
    this.perCopy = perCopy;
    this.capacity = capacity;
    this.decodeMsPerToken = decodeMsPerToken;
    this.replicas = new Replica[copies * perCopy];
    for (int i = 0; i < replicas.length; i++) {
      replicas[i] = new Replica();
    }
  }

  int copies() {
    return copies;
  }

  int perCopy() {
    return perCopy;
  }

  int size() {
    return replicas.length;
  }

  /** First replica of copy {@code copy}. */
  int first(final int copy) {
    return copy * perCopy;
  }

  /** Leading blocks of {@code chain} that replica {@code r} stores. */
  int prefixMatch(final int r, final long[] chain) {
    final Long2LongHashMap ref = replicas[r].ref;
    int m = 0;
    while (m < chain.length && ref.get(chain[m]) > 0) {
      m++;
    }
    return m;
  }

  /** Retires the requests of every replica of {@code copy} that finished by {@code nowMs}. */
  void advance(final int copy, final long nowMs) {
    for (int r = first(copy); r < first(copy) + perCopy; r++) {
      replicas[r].retire(nowMs);
    }
  }

  long activeBlocks(final int r) {
    return replicas[r].activeBlocks;
  }

  long storedBlocks(final int r) {
    return replicas[r].ref.size();
  }

  long requests(final int r) {
    return replicas[r].requests;
  }

  /** Stored blocks over every replica. */
  long storedBlocks() {
    long n = 0;
    for (Replica r : replicas) {
      n += r.ref.size();
    }
    return n;
  }

  /** The least-loaded replica of {@code copy}: fewest active blocks, then lowest index. */
  int leastLoaded(final int copy) {
    int best = first(copy);
    for (int r = best + 1; r < first(copy) + perCopy; r++) {
      if (replicas[r].activeBlocks < replicas[best].activeBlocks) {
        best = r;
      }
    }
    return best;
  }

  /**
   * Serves a request on replica {@code r}: stores its chain (evicting the oldest chains while over
   * capacity, each evicted block reported to {@code out}) and counts it in flight until {@code
   * arrivalMs + outputTokens × decodeMsPerToken}. Returns the blocks evicted.
   */
  int serve(
      final int r,
      final long[] chain,
      final long arrivalMs,
      final int outputTokens,
      final Evictions out) {
    final Replica rep = replicas[r];
    rep.requests++;
    final long end = arrivalMs + (long) Math.ceil(outputTokens * decodeMsPerToken);
    rep.admit(end, chain.length);
    for (long k : chain) {
      rep.ref.put(k, rep.ref.get(k) + 1);
    }
    rep.chains.addLast(chain);
    int evicted = 0;
    while (rep.ref.size() > capacity && !rep.chains.isEmpty()) {
      final long[] old = rep.chains.pollFirst();
      for (long k : old) {
        final long c = rep.ref.get(k) - 1;
        if (c <= 0) {
          rep.ref.remove(k);
          evicted++;
          if (out != null) {
            out.evicted(r, k);
          }
        } else {
          rep.ref.put(k, c);
        }
      }
    }
    return evicted;
  }

  /** Requests served per replica: max ÷ mean (1.0 = perfectly even). */
  double requestImbalance() {
    long max = 0;
    long sum = 0;
    for (Replica r : replicas) {
      max = Math.max(max, r.requests);
      sum += r.requests;
    }
    return sum == 0 ? 1.0 : (double) max * replicas.length / sum;
  }

  private static final class Replica {
    final Long2LongHashMap ref = new Long2LongHashMap(0L);
    final ArrayDeque<long[]> chains = new ArrayDeque<>();
    long requests;
    long activeBlocks;
    // Min-heap of in-flight requests: end time (ms) << 24 | blocks.
    long[] heap = new long[16];
    int heapSize;

    void admit(final long endMs, final int blocks) {
      final int b = Math.min(blocks, (1 << 24) - 1);
      activeBlocks += b;
      if (heapSize == heap.length) {
        heap = Arrays.copyOf(heap, heapSize * 2);
      }
      long v = endMs << 24 | b;
      int i = heapSize++;
      while (i > 0) {
        final int p = (i - 1) >>> 1;
        if (heap[p] <= v) {
          break;
        }
        heap[i] = heap[p];
        i = p;
      }
      heap[i] = v;
    }

    void retire(final long nowMs) {
      while (heapSize > 0 && (heap[0] >>> 24) <= nowMs) {
        activeBlocks -= heap[0] & ((1 << 24) - 1);
        final long last = heap[--heapSize];
        int i = 0;
        while (true) {
          int c = 2 * i + 1;
          if (c >= heapSize) {
            break;
          }
          if (c + 1 < heapSize && heap[c + 1] < heap[c]) {
            c++;
          }
          if (heap[c] >= last) {
            break;
          }
          heap[i] = heap[c];
          i = c;
        }
        if (heapSize > 0) {
          heap[i] = last;
        }
      }
    }
  }
}
