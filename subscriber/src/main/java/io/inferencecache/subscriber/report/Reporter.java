package io.inferencecache.subscriber.report;

import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.EventBatch;
import io.inferencecache.subscriber.decode.KvEvent;
import io.inferencecache.subscriber.index.AdapterResolver;
import io.inferencecache.subscriber.index.PositionalIndex;
import io.inferencecache.subscriber.index.PrefixRecord;
import io.inferencecache.subscriber.sink.SubscriberUpdate;
import io.inferencecache.subscriber.sink.UpdateSink;
import io.inferencecache.subscriber.source.ReceivedBatch;
import io.inferencecache.subscriber.source.SequenceTracker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The event path of one replica: resolves adapters, derives prefix records with the {@link
 * PositionalIndex}, batches additions, and hands everything to the {@link UpdateSink}.
 *
 * <ul>
 *   <li><b>Adds</b> ({@code BlockStored}) are buffered and flushed as one {@link SubscriberUpdate}
 *       every window ({@link #windowElapsed()}; 100 ms by default), or at once when {@value
 *       #MAX_PENDING} records are pending. The update's timestamp is the last non-zero batch
 *       timestamp of the window ({@link EventBatch#timestampMicros()}), 0 if none.
 *   <li><b>{@code BlockRemoved}</b>, single-tier: flush pending adds first (a store then evict in
 *       one window must reach the server in that order), then one {@link UpdateSink#prefixEvicted}
 *       per evicted prefix, stamped with the batch timestamp. L2 mode ({@code ignoreBlockRemoved},
 *       an offload tier keeps the block): if any prefix resolved, flush pending adds, then one
 *       separate update re-reporting the evicted prefixes at tier T2, stamped with the batch
 *       timestamp.
 *   <li><b>{@code AllBlocksCleared}</b>: discard pending adds, reset the index, {@link
 *       UpdateSink#allCleared}.
 *   <li><b>Discontinuity</b> (sequence gap or engine restart, see {@link SequenceTracker}): the
 *       same as a clear — the index no longer mirrors the engine — then the batch is processed.
 *   <li><b>Sink resync</b>: at each window, if the sink lost part of what it was given ({@link
 *       UpdateSink#resyncRequested()}), pending adds are dropped and the index's whole content is
 *       handed to {@link UpdateSink#resync} instead (the sink clears the server's entries of the
 *       replica first). The index already holds the pending adds, so nothing is lost.
 *   <li><b>Shutdown</b> ({@link #close()}): drain the queue for up to {@value #DRAIN_SECONDS} s,
 *       then a final flush.
 * </ul>
 *
 * <p>A sink failure (any {@link RuntimeException}) is logged and the data dropped ({@link
 * #sinkFailures()}); the server's state is soft and the next update repairs it.
 *
 * <p>Threading: the processing methods ({@link #accept}, {@link #windowElapsed}, {@link #flush})
 * are confined to one thread — either the caller's, when driven directly as tests do, or the
 * reporter thread that {@link #start} launches, which polls the queue and ticks the window on the
 * injected nano clock. Do not mix the two. Counters may be read from any thread.
 */
public final class Reporter implements AutoCloseable {
  /** Pending records that force a flush before the window ends. */
  public static final int MAX_PENDING = SubscriberUpdate.MAX_PREFIXES;

  /** Upper bound on draining the queue at shutdown, seconds. */
  public static final int DRAIN_SECONDS = 5;

  private static final Logger LOG = LoggerFactory.getLogger(Reporter.class);

  private final String replicaId;
  private final String modelId;
  private final String tenantId;
  private final String hashScheme;
  private final long windowNanos;
  private final boolean l2TierPresent;
  private final AdapterResolver adapters;
  private final PositionalIndex index;
  private final UpdateSink sink;
  private final LongSupplier nanoClock;

  private final List<PrefixRecord> pending = new ArrayList<>();
  private long pendingTimestampMicros;

  private final AtomicLong updatesReported = new AtomicLong();
  private final AtomicLong prefixesReported = new AtomicLong();
  private final AtomicLong evictionsPublished = new AtomicLong();
  private final AtomicLong clearsPublished = new AtomicLong();
  private final AtomicLong resyncs = new AtomicLong();
  private final AtomicLong sinkResyncs = new AtomicLong();
  private final AtomicLong sinkFailures = new AtomicLong();

  private volatile boolean running;
  private Thread thread;
  private BlockingQueue<ReceivedBatch> queue;

  /** A reporter for {@code config} with the system nano clock and a default-capped index. */
  public Reporter(final SubscriberConfig config, final UpdateSink sink) {
    this(config, sink, System::nanoTime, new PositionalIndex());
  }

  /**
   * @param config identity, window, L2 mode and adapter names
   * @param sink where updates go
   * @param nanoClock monotonic nanoseconds for the window ticks of the {@link #start} thread
   * @param index the replica's positional index (owned by this reporter from now on)
   */
  public Reporter(
      final SubscriberConfig config,
      final UpdateSink sink,
      final LongSupplier nanoClock,
      final PositionalIndex index) {
    this.replicaId = config.replicaId();
    this.modelId = config.modelId();
    this.tenantId = config.tenantId();
    this.hashScheme = config.hashScheme();
    this.windowNanos = config.window().toNanos();
    this.l2TierPresent = config.ignoreBlockRemoved();
    this.adapters = new AdapterResolver(config.loraAdapterNames());
    this.index = Objects.requireNonNull(index, "index");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
  }

  /** Processes one item from the source: resynchronise on a discontinuity, then the batch. */
  public void accept(final ReceivedBatch item) {
    final EventBatch batch = item.batch();
    if (item.discontinuity() != null) {
      resyncs.incrementAndGet();
      clear(batch == null ? 0L : batch.timestampMicros());
    }
    if (batch != null) {
      accept(batch);
    }
  }

  /** Processes one decoded batch. */
  public void accept(final EventBatch batch) {
    final long tsMicros = batch.timestampMicros();
    for (final KvEvent event : batch.events()) {
      if (event instanceof KvEvent.BlockStored) {
        stored((KvEvent.BlockStored) event, tsMicros);
      } else if (event instanceof KvEvent.BlockRemoved) {
        removed((KvEvent.BlockRemoved) event, tsMicros);
      } else {
        clear(tsMicros);
      }
    }
  }

  private void stored(final KvEvent.BlockStored event, final long tsMicros) {
    final String adapterId = adapters.resolve(event.loraId());
    if (adapterId == null) {
      return;
    }
    pending.addAll(index.stored(event, adapterId));
    if (tsMicros > 0) {
      pendingTimestampMicros = tsMicros;
    }
    if (pending.size() >= MAX_PENDING) {
      flush();
    }
  }

  private void removed(final KvEvent.BlockRemoved event, final long tsMicros) {
    // Always forget the blocks: the engine never names an evicted block as a parent again.
    final List<PositionalIndex.Evicted> evicted = index.removed(event);
    if (l2TierPresent) {
      if (evicted.isEmpty()) {
        return;
      }
      flush();
      final List<PrefixRecord> downgrades = new ArrayList<>(evicted.size());
      for (final PositionalIndex.Evicted e : evicted) {
        downgrades.add(
            new PrefixRecord(e.prefixHash(), e.tokenCount(), e.adapterId(), PrefixRecord.TIER_T2));
      }
      send(downgrades, tsMicros);
      return;
    }
    flush();
    for (final PositionalIndex.Evicted e : evicted) {
      try {
        sink.prefixEvicted(e.prefixHash(), e.adapterId(), tsMicros);
        evictionsPublished.incrementAndGet();
      } catch (final RuntimeException ex) {
        sinkFailures.incrementAndGet();
        LOG.warn("publishing PREFIX_EVICTED failed; dropping it: {}", ex.toString());
      }
    }
  }

  private void clear(final long tsMicros) {
    pending.clear();
    pendingTimestampMicros = 0L;
    index.clear();
    try {
      sink.allCleared(tsMicros);
      clearsPublished.incrementAndGet();
    } catch (final RuntimeException ex) {
      sinkFailures.incrementAndGet();
      LOG.warn("publishing ALL_CLEARED failed; dropping it: {}", ex.toString());
    }
  }

  /** The window ended: resynchronise the sink if it asks, then flush pending adds. */
  public void windowElapsed() {
    if (sink.resyncRequested()) {
      resyncSink();
    }
    flush();
  }

  private void resyncSink() {
    pending.clear();
    pendingTimestampMicros = 0L;
    final List<PrefixRecord> state = index.entries();
    try {
      sink.resync(new SubscriberUpdate(replicaId, modelId, tenantId, hashScheme, 0L, state));
      sinkResyncs.incrementAndGet();
      LOG.info(
          "event=sink_resync prefixes={}: re-sending this replica's whole state", state.size());
    } catch (final RuntimeException ex) {
      sinkFailures.incrementAndGet();
      LOG.warn("resynchronising the sink failed: {}", ex.toString());
    }
  }

  /** Sends pending adds as one update, if there are any. */
  public void flush() {
    if (pending.isEmpty()) {
      return;
    }
    final List<PrefixRecord> batch = List.copyOf(pending);
    final long ts = pendingTimestampMicros;
    pending.clear();
    pendingTimestampMicros = 0L;
    send(batch, ts);
  }

  private void send(final List<PrefixRecord> prefixes, final long tsMicros) {
    final SubscriberUpdate update =
        new SubscriberUpdate(replicaId, modelId, tenantId, hashScheme, tsMicros, prefixes);
    try {
      sink.report(update);
      updatesReported.incrementAndGet();
      prefixesReported.addAndGet(prefixes.size());
    } catch (final RuntimeException ex) {
      sinkFailures.incrementAndGet();
      LOG.warn(
          "reporting {} prefixes failed; dropping the batch: {}", prefixes.size(), ex.toString());
    }
  }

  /**
   * Starts the reporter thread: it takes items from {@code source} and ticks the window until
   * {@link #close()}.
   */
  public synchronized void start(final BlockingQueue<ReceivedBatch> source) {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    queue = Objects.requireNonNull(source, "source");
    running = true;
    thread = new Thread(this::run, "kvevent-reporter");
    thread.setDaemon(true);
    thread.start();
  }

  private void run() {
    long nextTick = nanoClock.getAsLong() + windowNanos;
    try {
      while (running) {
        final long now = nanoClock.getAsLong();
        if (now - nextTick >= 0) {
          windowElapsed();
          nextTick += windowNanos;
          if (now - nextTick >= 0) {
            nextTick = now + windowNanos; // fell behind: skip the missed ticks
          }
          continue;
        }
        final ReceivedBatch item = queue.poll(nextTick - now, TimeUnit.NANOSECONDS);
        if (item != null) {
          acceptLogged(item);
        }
      }
      final long deadline = nanoClock.getAsLong() + TimeUnit.SECONDS.toNanos(DRAIN_SECONDS);
      ReceivedBatch item;
      while (nanoClock.getAsLong() - deadline < 0 && (item = queue.poll()) != null) {
        acceptLogged(item);
      }
    } catch (final InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      flush();
    }
  }

  private void acceptLogged(final ReceivedBatch item) {
    try {
      accept(item);
    } catch (final RuntimeException e) {
      LOG.error("processing an event batch failed; skipping it", e);
    }
  }

  /**
   * Stops the reporter thread (drain and final flush), or just flushes when it was never started.
   */
  @Override
  public void close() {
    final Thread t;
    synchronized (this) {
      t = thread;
      running = false;
    }
    if (t == null) {
      flush();
      return;
    }
    try {
      t.join(TimeUnit.SECONDS.toMillis(DRAIN_SECONDS) + windowNanos / 1_000_000 + 1_000);
    } catch (final InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (t.isAlive()) {
      LOG.warn("reporter drain timed out");
      t.interrupt();
    }
  }

  /** Whether the reporter thread is running. */
  public boolean isRunning() {
    final Thread t = thread;
    return t != null && t.isAlive();
  }

  /** The configured window. */
  public Duration window() {
    return Duration.ofNanos(windowNanos);
  }

  /** Updates handed to the sink ({@link UpdateSink#report}). */
  public long updatesReported() {
    return updatesReported.get();
  }

  /** Prefix records handed to the sink in updates. */
  public long prefixesReported() {
    return prefixesReported.get();
  }

  /** {@link UpdateSink#prefixEvicted} calls that succeeded. */
  public long evictionsPublished() {
    return evictionsPublished.get();
  }

  /** {@link UpdateSink#allCleared} calls that succeeded. */
  public long clearsPublished() {
    return clearsPublished.get();
  }

  /** Resynchronisations after a sequence gap or engine restart. */
  public long resyncs() {
    return resyncs.get();
  }

  /** Resynchronisations the sink asked for ({@link UpdateSink#resyncRequested()}). */
  public long sinkResyncs() {
    return sinkResyncs.get();
  }

  /** Sink calls that threw. */
  public long sinkFailures() {
    return sinkFailures.get();
  }

  /** {@code BlockStored} events dropped for an unmapped LoRA id. */
  public long droppedUnmappedAdapter() {
    return adapters.dropped();
  }

  /** The replica's positional index (touch only on the owning thread). */
  PositionalIndex index() {
    return index;
  }

  /** Pending (unflushed) records (owning thread only). */
  int pendingCount() {
    return pending.size();
  }
}
