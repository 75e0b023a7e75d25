package io.inferencecache.perf.engine;

import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IndexEvent;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.LookupResult;
import io.inferencecache.perf.workload.Workload;

/**
 * One of the two indexes under comparison behind one small interface, so a benchmark drives both
 * with the same calls: {@link #OFFHEAP} (the engine's {@link CacheIndex}, lookups read into a
 * reused {@link LookupResult}) or {@link #ONHEAP} ({@link OnHeapReferenceIndex}). One instance per
 * benchmark thread (the engine's result object is not shared).
 */
public abstract class IndexUnderTest implements AutoCloseable {
  public static final String OFFHEAP = "offheap";
  public static final String ONHEAP = "onheap";

  /** Opens an empty index of kind {@code impl} with {@code config}'s settings. */
  public static IndexUnderTest open(final String impl, final IndexConfig config) {
    return switch (impl) {
      case OFFHEAP -> new Engine(CacheIndex.open(config));
      case ONHEAP -> new OnHeap(new OnHeapReferenceIndex(config));
      default -> throw new IllegalArgumentException("impl must be offheap or onheap: " + impl);
    };
  }

  /**
   * The engine settings for {@code w}: capacity exactly its holder-blocks (so nothing is evicted)
   * and its real key shape (8-byte hashes, its average holders per key) as sizing hints.
   */
  public static IndexConfig configFor(final Workload w) {
    return new IndexConfig()
        .maxEntries(Math.max(1024, w.holderBlocks()))
        .averageHashBytes(8)
        .averageHoldersPerKey(Math.max(1.0, Math.min(4096, w.holdersPerKey())));
  }

  /**
   * Opens an index of kind {@code impl} and ingests every update of {@code w}; checks that it then
   * holds exactly {@code w.holderBlocks()} storage entries.
   */
  public static IndexUnderTest build(final String impl, final Workload w) {
    return build(impl, w, configFor(w));
  }

  /** As {@link #build(String, Workload)} with explicit settings. */
  public static IndexUnderTest build(final String impl, final Workload w, final IndexConfig cfg) {
    final IndexUnderTest index = open(impl, cfg);
    w.forEachUpdate(index::ingest);
    if (index.totalEntries() != w.holderBlocks()) {
      final long got = index.totalEntries();
      index.close();
      throw new IllegalStateException(
          impl
              + " index holds "
              + got
              + " entries after "
              + w.name()
              + ", expected "
              + w.holderBlocks());
    }
    return index;
  }

  /** Ingests one update. */
  public abstract void ingest(IngestUpdate u);

  /** The index part of LookupRoute; returns the number of scored replicas. */
  public abstract int lookupRoute(LookupRequest q);

  /** The result of the last lookup (for a Blackhole). */
  public abstract Object lastResult();

  /** Matched tokens of the best-scored replica of the last lookup (0 if none). */
  public abstract int topMatchedTokens();

  /** Storage entries held. */
  public abstract long totalEntries();

  /** Credits the LFU counters of the last lookup's answer; returns how many were credited. */
  public abstract int creditLast();

  /**
   * The index's allocated bytes outside the Java objects a heap census would see: off-heap (the map
   * and LFU counters) plus, for layout v3, its block directory's heap table ({@code
   * CacheIndex.footprintBytes()}); 0 for the on-heap reference.
   */
  public abstract long offHeapBytes();

  @Override
  public abstract void close();

  /**
   * Removes holder {@code replica} of block {@code hash} in {@code (tenant, model)} by a
   * PREFIX_EVICTED event; false for the reference, which takes no events.
   */
  public boolean prefixEvicted(
      final String tenant, final String model, final String replica, final byte[] hash) {
    return false;
  }

  /**
   * Removes every holder {@code replica} has in {@code (tenant, model)} by an ALL_CLEARED event;
   * false for the reference, which takes no events.
   */
  public boolean allCleared(final String tenant, final String model, final String replica) {
    return false;
  }

  static IndexEvent evictedEvent(
      final String tenant, final String model, final String replica, final byte[] hash) {
    return new IndexEvent(IndexEvent.Type.PREFIX_EVICTED, replica, model, tenant, hash, 0, "");
  }

  /** The engine. */
  static final class Engine extends IndexUnderTest {
    final CacheIndex index;
    final LookupResult result = new LookupResult();

    Engine(final CacheIndex index) {
      this.index = index;
    }

    @Override
    public boolean prefixEvicted(
        final String tenant, final String model, final String replica, final byte[] hash) {
      index.applyEvent(evictedEvent(tenant, model, replica, hash));
      return true;
    }

    @Override
    public boolean allCleared(final String tenant, final String model, final String replica) {
      index.applyEvent(
          new IndexEvent(IndexEvent.Type.ALL_CLEARED, replica, model, tenant, null, 0, ""));
      return true;
    }

    @Override
    public void ingest(final IngestUpdate u) {
      index.ingest(u);
    }

    @Override
    public int lookupRoute(final LookupRequest q) {
      index.lookupAndClassify(q, result);
      return result.size();
    }

    @Override
    public Object lastResult() {
      return result;
    }

    @Override
    public int topMatchedTokens() {
      return result.size() == 0 ? 0 : result.matchedTokens(0);
    }

    @Override
    public int creditLast() {
      return index.creditDelivered(result);
    }

    @Override
    public long totalEntries() {
      return index.totalEntries();
    }

    @Override
    public long offHeapBytes() {
      return index.footprintBytes();
    }

    @Override
    public void close() {
      index.close();
    }
  }

  /** The on-heap baseline. */
  static final class OnHeap extends IndexUnderTest {
    final OnHeapReferenceIndex index;
    OnHeapReferenceIndex.Result last = null;

    OnHeap(final OnHeapReferenceIndex index) {
      this.index = index;
    }

    @Override
    public void ingest(final IngestUpdate u) {
      index.ingest(u);
    }

    @Override
    public int lookupRoute(final LookupRequest q) {
      last = index.lookupRoute(q);
      return last.scores().size();
    }

    @Override
    public Object lastResult() {
      return last;
    }

    @Override
    public int topMatchedTokens() {
      return last == null || last.scores().isEmpty() ? 0 : last.scores().get(0).matchedTokens();
    }

    @Override
    public int creditLast() {
      return last == null ? 0 : index.creditDelivered(last);
    }

    @Override
    public long totalEntries() {
      return index.totalEntries();
    }

    @Override
    public long offHeapBytes() {
      return 0;
    }

    @Override
    public void close() {
      last = null;
    }
  }
}
