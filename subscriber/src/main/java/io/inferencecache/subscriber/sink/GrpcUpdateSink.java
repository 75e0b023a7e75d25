package io.inferencecache.subscriber.sink;

import com.google.protobuf.UnsafeByteOperations;
import io.grpc.ConnectivityState;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.index.PrefixRecord;
import io.inferencecache.subscriber.report.Reporter;
import io.inferencecache.subscriber.report.SubscriberUpdate;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.collections.LongHashSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The subscriber's gRPC side: delivers the event path to the inference-cache server over one
 * long-lived {@code ReportCacheState} stream and unary {@code PublishEvent}s, buffering (bounded)
 * while the server is unreachable and asking for a resync when anything was lost. Plaintext, lazy
 * connect (nothing is dialled before the first delivery).
 *
 * <h2>Mapping</h2>
 *
 * {@link #report} → one {@code CacheStateUpdate} (replica, model, tenant, hash scheme and timestamp
 * of the update; no update-level adapter; one legacy {@code PrefixEntry {prefix_hash, token_count,
 * adapter_id, tier}} per record); {@link #prefixEvicted} → {@code PublishEvent(PREFIX_EVICTED,
 * prefix_hash, adapter_id, timestamp_us)}; {@link #allCleared} → {@code PublishEvent(ALL_CLEARED)};
 * {@link #stats} → a stats-only {@code CacheStateUpdate} on its own short stream, synchronously
 * (throws when not delivered within {@link Builder#rpcTimeout}, 5 s by default).
 *
 * <h2>Delivery and ordering</h2>
 *
 * The event-path calls only enqueue (they never block and never throw); one sender thread delivers
 * in call order. Reports go onto the open stream, which stays open across windows. The server
 * confirms a stream's messages only when the stream is half-closed (its {@code Ack}), so before a
 * {@code PublishEvent} that could overtake an unconfirmed report — an eviction of a prefix reported
 * on the open stream, or any clear — the sender half-closes the stream and waits for its Ack (a
 * <em>barrier</em>); the next report opens a new stream. The stream is also rotated every {@value
 * #ROTATE_ENTRIES} entries, which bounds that bookkeeping. Runs of evictions are sent concurrently
 * (up to {@value #MAX_EVICTIONS_IN_FLIGHT}) and awaited together; each unary call has a deadline of
 * {@link Builder#rpcTimeout}.
 *
 * <h2>Failures, buffering and resync</h2>
 *
 * <ul>
 *   <li>While the server is unreachable the sender waits for the channel to be READY again
 *       (retrying the connection with a backoff from {@value #BACKOFF_INITIAL_MS} ms to {@link
 *       Builder#backoffMax}) and the calls keep enqueueing, up to {@link Builder#maxQueuedUpdates}
 *       updates and events holding at most {@link Builder#maxQueuedEntries} entries; beyond that
 *       the call's data is dropped and counted ({@link #updatesDropped()}, {@link
 *       #entriesDropped()}, {@link #eventsDropped()}), logged at most every {@value
 *       #LOG_EVERY_SECONDS} s.
 *   <li>A stream that fails before its Ack may have lost what was sent on it: counted as {@link
 *       #updatesUnconfirmed()}. A {@code PublishEvent} that fails is retried after reconnecting,
 *       and dropped after {@value #MAX_ATTEMPTS} attempts.
 *   <li>Once connected again after anything was dropped or lost, the sink asks for a resync ({@link
 *       #resyncRequested()}); the event path answers with its positional index's whole content
 *       ({@link #resync}), which replaces everything still queued by {@code ALL_CLEARED} followed
 *       by that content (in updates of at most {@value #MAX_ENTRIES_PER_UPDATE} entries, outside
 *       the buffer bounds). An {@link #allCleared} likewise supersedes everything queued before it.
 * </ul>
 *
 * <p>{@link #close()} delivers what is queued for up to {@link Builder#drainTimeout} (5 s by
 * default), confirms the stream, then shuts the channel down; what is left is counted as dropped.
 *
 * <p>Thread-safe.
 */
public final class GrpcUpdateSink implements UpdateSink, AutoCloseable {
  /** Default deadline of each unary call, of a stats stream and of a stream's Ack. */
  public static final Duration RPC_TIMEOUT_DEFAULT = Duration.ofSeconds(5);

  /** Default upper bound of the reconnection backoff. */
  public static final Duration BACKOFF_MAX_DEFAULT = Duration.ofSeconds(2);

  /** First reconnection backoff, milliseconds. */
  public static final int BACKOFF_INITIAL_MS = 50;

  /** Default upper bound on delivering what is queued at {@link #close()}. */
  public static final Duration DRAIN_TIMEOUT_DEFAULT = Duration.ofSeconds(5);

  /** Entries per update when a resync re-sends the positional index. */
  public static final int MAX_ENTRIES_PER_UPDATE = Reporter.MAX_PENDING;

  /** Entries sent on one stream before it is confirmed and a new one opened. */
  public static final int ROTATE_ENTRIES = 65_536;

  /** Evictions sent concurrently. */
  public static final int MAX_EVICTIONS_IN_FLIGHT = 128;

  /** Attempts of one {@code PublishEvent} before it is dropped. */
  public static final int MAX_ATTEMPTS = 3;

  /** Drop and loss warnings are logged at most this often. */
  public static final int LOG_EVERY_SECONDS = 10;

  private static final Logger LOG = LoggerFactory.getLogger(GrpcUpdateSink.class);
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  // ---------------------------------------------------------------------------------------------
  // Queue items

  private abstract static class Op {
    final boolean resync; // part of a resync: outside the bounds
    int attempts;

    Op(final boolean resync) {
      this.resync = resync;
    }
  }

  private static final class Report extends Op {
    final SubscriberUpdate update;

    Report(final SubscriberUpdate update, final boolean resync) {
      super(resync);
      this.update = update;
    }
  }

  private static final class Evict extends Op {
    final byte[] hash;
    final String adapterId;
    final long timestampMicros;

    Evict(final byte[] hash, final String adapterId, final long timestampMicros) {
      super(false);
      this.hash = hash;
      this.adapterId = adapterId;
      this.timestampMicros = timestampMicros;
    }
  }

  private static final class Clear extends Op {
    final long timestampMicros;

    Clear(final long timestampMicros, final boolean resync) {
      super(resync);
      this.timestampMicros = timestampMicros;
    }
  }

  /** One ReportCacheState call of the sender thread. */
  private static final class ReportStream implements ClientResponseObserver<CacheStateUpdate, Ack> {
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final LongHashSet hashes = new LongHashSet();
    final Object readyMonitor = new Object();
    volatile ClientCallStreamObserver<CacheStateUpdate> requests;
    boolean otherHashes; // a hash that is not 8 bytes went out: any eviction conflicts
    long updates;
    long entries;

    @Override
    public void beforeStart(final ClientCallStreamObserver<CacheStateUpdate> call) {
      requests = call;
      call.setOnReadyHandler(
          () -> {
            synchronized (readyMonitor) {
              readyMonitor.notifyAll();
            }
          });
    }

    @Override
    public void onNext(final Ack ack) {
      done.complete(ack);
    }

    @Override
    public void onError(final Throwable t) {
      done.completeExceptionally(t);
      synchronized (readyMonitor) {
        readyMonitor.notifyAll();
      }
    }

    @Override
    public void onCompleted() {
      done.complete(Ack.getDefaultInstance());
    }

    boolean conflicts(final byte[] hash) {
      return otherHashes || (hash.length == 8 ? hashes.contains(toLong(hash)) : updates > 0);
    }

    void remember(final byte[] hash) {
      if (hash.length == 8) {
        hashes.add(toLong(hash));
      } else {
        otherHashes = true;
      }
    }

    private static long toLong(final byte[] b) {
      long v = 0;
      for (int i = 0; i < 8; i++) {
        v = (v << 8) | (b[i] & 0xFF);
      }
      return v;
    }
  }

  // ---------------------------------------------------------------------------------------------
  // State

  private final String replicaId;
  private final String modelId;
  private final String tenantId;
  private final String hashScheme;
  private final String target;
  private final int maxQueuedUpdates;
  private final int maxQueuedEntries;
  private final long rpcTimeoutNanos;
  private final long backoffMaxNanos;
  private final long drainTimeoutNanos;
  private final ManagedChannel channel;
  private final InferenceCacheGrpc.InferenceCacheStub asyncStub;
  private final InferenceCacheGrpc.InferenceCacheFutureStub futureStub;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition(); // the queue changed, or closing
  private final Condition wake = lock.newCondition(); // connectivity changed, or closing
  private final ArrayDeque<Op> queue = new ArrayDeque<>(); // guarded by lock
  private int queuedUpdates; // bounded ops in queue; guarded by lock
  private long queuedEntries; // guarded by lock
  private boolean lost; // guarded by lock
  private boolean closing; // guarded by lock
  private long drainDeadline; // guarded by lock
  private volatile boolean resyncRequested;
  private volatile long closeDeadline = Long.MAX_VALUE; // readable without the lock

  private final Thread sender;
  // sender thread only
  private ReportStream stream;
  private boolean connected = true; // optimistic: the first delivery dials
  private long backoffNanos = TimeUnit.MILLISECONDS.toNanos(BACKOFF_INITIAL_MS);
  private final CacheStateUpdate.Builder updateBuilder = CacheStateUpdate.newBuilder();
  private final PrefixEntry.Builder entryBuilder = PrefixEntry.newBuilder();
  private final CacheEvent.Builder eventBuilder = CacheEvent.newBuilder();

  private final AtomicLong updatesSent = new AtomicLong();
  private final AtomicLong entriesSent = new AtomicLong();
  private final AtomicLong eventsSent = new AtomicLong();
  private final AtomicLong updatesDropped = new AtomicLong();
  private final AtomicLong entriesDropped = new AtomicLong();
  private final AtomicLong eventsDropped = new AtomicLong();
  private final AtomicLong updatesUnconfirmed = new AtomicLong();
  private final AtomicLong entriesUnconfirmed = new AtomicLong();
  private final AtomicLong reconnects = new AtomicLong();
  private final AtomicLong resyncs = new AtomicLong();
  private final AtomicLong streamsOpened = new AtomicLong();
  private final AtomicLong statsSent = new AtomicLong();
  private final AtomicLong statsFailed = new AtomicLong();
  private final AtomicLong lastDropLogNanos =
      new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 2);
  private final AtomicLong lastLossLogNanos =
      new AtomicLong(System.nanoTime() - Long.MAX_VALUE / 2);

  private GrpcUpdateSink(final Builder b) {
    this.replicaId = b.replicaId;
    this.modelId = b.modelId;
    this.tenantId = b.tenantId;
    this.hashScheme = b.hashScheme;
    this.target = b.target;
    this.maxQueuedUpdates = b.maxQueuedUpdates;
    this.maxQueuedEntries = b.maxQueuedEntries;
    this.rpcTimeoutNanos = b.rpcTimeout.toNanos();
    this.backoffMaxNanos = b.backoffMax.toNanos();
    this.drainTimeoutNanos = b.drainTimeout.toNanos();
    this.channel = NettyChannelBuilder.forTarget(target).usePlaintext().build();
    this.asyncStub = InferenceCacheGrpc.newStub(channel);
    this.futureStub = InferenceCacheGrpc.newFutureStub(channel);
    this.sender = new Thread(this::run, "kvevent-grpc-sink");
    sender.setDaemon(true);
    sender.start();
  }

  /** A builder for the server and identity of {@code config}, with its buffer bounds. */
  public static Builder builder(final SubscriberConfig config) {
    return new Builder()
        .target(config.server())
        .identity(config.replicaId(), config.modelId(), config.tenantId(), config.hashScheme())
        .maxQueuedUpdates(config.serverBufferUpdates())
        .maxQueuedEntries(config.serverBufferEntries());
  }

  /** A builder with the defaults; target and identity must be set. */
  public static Builder builder() {
    return new Builder();
  }

  // ---------------------------------------------------------------------------------------------
  // UpdateSink (callers' threads)

  @Override
  public void report(final SubscriberUpdate update) {
    enqueue(new Report(update, false), update.prefixes().size());
  }

  @Override
  public void prefixEvicted(final byte[] prefixHash, final String adapterId, final long tsMicros) {
    enqueue(new Evict(prefixHash, adapterId, tsMicros), 0);
  }

  /** Also supersedes everything still queued: the server is about to forget it all. */
  @Override
  public void allCleared(final long timestampMicros) {
    lock.lock();
    try {
      if (closing && isDrainOver()) {
        eventsDropped.incrementAndGet();
        return;
      }
      queue.clear();
      queuedUpdates = 1;
      queuedEntries = 0;
      queue.add(new Clear(timestampMicros, false));
      // What was lost before is cleared too; the event path starts over from an empty index.
      lost = false;
      resyncRequested = false;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean resyncRequested() {
    return resyncRequested;
  }

  @Override
  public void resync(final SubscriberUpdate state) {
    final List<PrefixRecord> all = state.prefixes();
    lock.lock();
    try {
      queue.clear();
      queuedUpdates = 0;
      queuedEntries = 0;
      queue.add(new Clear(0L, true));
      for (int from = 0; from < all.size(); from += MAX_ENTRIES_PER_UPDATE) {
        final List<PrefixRecord> chunk =
            all.subList(from, Math.min(all.size(), from + MAX_ENTRIES_PER_UPDATE));
        queue.add(
            new Report(
                new SubscriberUpdate(
                    state.replicaId(),
                    state.modelId(),
                    state.tenantId(),
                    state.hashScheme(),
                    state.timestampMicros(),
                    chunk),
                true));
      }
      lost = false;
      resyncRequested = false;
      resyncs.incrementAndGet();
      changed.signalAll();
    } finally {
      lock.unlock();
    }
    LOG.info(
        "event=sink_resync replica={} prefixes={}: clearing the server's entries of this replica"
            + " and re-sending its state",
        replicaId,
        all.size());
  }

  private void enqueue(final Op op, final int entries) {
    lock.lock();
    try {
      final boolean over =
          queuedUpdates >= maxQueuedUpdates
              || (queuedEntries > 0 && queuedEntries + entries > maxQueuedEntries);
      if (over || (closing && isDrainOver())) {
        dropped(op, entries);
        return;
      }
      queue.add(op);
      queuedUpdates++;
      queuedEntries += entries;
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** Counts a dropped op; marks the loss. Called under the lock. */
  private void dropped(final Op op, final int entries) {
    if (op instanceof Report) {
      updatesDropped.incrementAndGet();
      entriesDropped.addAndGet(entries);
    } else {
      eventsDropped.incrementAndGet();
    }
    lost = true;
    final long now = System.nanoTime();
    final long last = lastDropLogNanos.get();
    if (now - last >= TimeUnit.SECONDS.toNanos(LOG_EVERY_SECONDS)
        && lastDropLogNanos.compareAndSet(last, now)) {
      LOG.warn(
          "event=sink_dropped server={} replica={} dropped_updates={} dropped_entries={}"
              + " dropped_events={} queued_updates={} queued_entries={}: the server is unreachable"
              + " or too slow and the buffer is full; a resync follows once it is back",
          target,
          replicaId,
          updatesDropped.get(),
          entriesDropped.get(),
          eventsDropped.get(),
          queuedUpdates,
          queuedEntries);
    }
  }

  @Override
  public void stats(final StatsSample sample, final long timestampMicros) {
    final CacheStateUpdate update =
        CacheStateUpdate.newBuilder()
            .setReplicaId(replicaId)
            .setModelId(modelId)
            .setTenantId(tenantId)
            .setHashScheme(hashScheme)
            .setTimestampUs(timestampMicros)
            .setStats(
                ReplicaStats.newBuilder()
                    .setReplicaId(replicaId)
                    .setCacheMemoryBytes(sample.cacheMemoryBytes())
                    .setHitRate(sample.hitRate())
                    .setPressure(sample.pressure())
                    .setT2HitTokens(sample.t2HitTokens())
                    .setT2QueryTokens(sample.t2QueryTokens()))
            .build();
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> call =
        asyncStub
            .withDeadlineAfter(rpcTimeoutNanos, TimeUnit.NANOSECONDS)
            .reportCacheState(
                new StreamObserver<>() {
                  @Override
                  public void onNext(final Ack ack) {
                    done.complete(ack);
                  }

                  @Override
                  public void onError(final Throwable t) {
                    done.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {
                    done.complete(Ack.getDefaultInstance());
                  }
                });
    call.onNext(update);
    call.onCompleted();
    try {
      done.get(rpcTimeoutNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
      statsSent.incrementAndGet();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      statsFailed.incrementAndGet();
      throw new IllegalStateException("interrupted while reporting stats", e);
    } catch (ExecutionException | TimeoutException e) {
      statsFailed.incrementAndGet();
      final Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IllegalStateException(
          "ReportCacheState(stats) to " + target + ": " + Status.fromThrowable(cause), cause);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Sender thread

  private boolean isDrainOver() {
    return System.nanoTime() - drainDeadline >= 0;
  }

  private void run() {
    try {
      while (true) {
        checkStream();
        final boolean stop;
        lock.lock();
        try {
          stop = closing && (queue.isEmpty() || isDrainOver());
          if (!stop && connected && lost && !resyncRequested) {
            resyncRequested = true;
            LOG.info(
                "event=sink_resync_requested server={} replica={}: updates were dropped or lost;"
                    + " asking for this replica's whole state",
                target,
                replicaId);
          }
        } finally {
          lock.unlock();
        }
        if (stop) {
          break;
        }
        if (!connected) {
          awaitConnection();
          continue;
        }
        final Op op = take();
        if (op != null) {
          deliver(op);
        }
      }
      finish();
    } catch (RuntimeException | Error e) {
      LOG.error("event=sink_sender_failed reason=\"{}\"", String.valueOf(e), e);
    }
  }

  /** The next op, or null after waiting a moment (to re-check the stream and the state). */
  private Op take() {
    lock.lock();
    try {
      if (queue.isEmpty() && !closing) {
        try {
          changed.awaitNanos(POLL_NANOS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return queue.peekFirst();
    } finally {
      lock.unlock();
    }
  }

  /** Removes {@code op} from the head of the queue if it is still there (a resync may have won). */
  private void done(final Op op) {
    lock.lock();
    try {
      if (queue.peekFirst() == op) {
        queue.pollFirst();
        if (!op.resync) {
          queuedUpdates--;
          if (op instanceof Report r) {
            queuedEntries -= r.update.prefixes().size();
          }
        }
      }
    } finally {
      lock.unlock();
    }
  }

  private void deliver(final Op op) {
    if (op instanceof Report r) {
      sendReport(r);
    } else if (op instanceof Clear c) {
      sendClear(c);
    } else {
      sendEvictions((Evict) op);
    }
  }

  /** Notices a stream the server ended or that failed; everything unconfirmed on it is lost. */
  private void checkStream() {
    final ReportStream s = stream;
    if (s != null && s.done.isDone()) {
      stream = null;
      streamLost(s, true, "the server ended the stream");
    }
  }

  private void sendReport(final Report r) {
    if (stream == null) {
      stream = new ReportStream();
      asyncStub.reportCacheState(stream);
      streamsOpened.incrementAndGet();
    }
    final ReportStream s = stream;
    if (!awaitReady(s)) {
      stream = null;
      s.requests.cancel("not ready for " + rpcTimeoutNanos / 1_000_000 + " ms", null);
      streamLost(s, true, "the stream stayed not ready");
      // the report stays queued: it is sent again once connected (the resync supersedes it)
      return;
    }
    final List<PrefixRecord> prefixes = r.update.prefixes();
    final CacheStateUpdate message = toProto(r.update, updateBuilder, entryBuilder);
    for (int i = 0; i < prefixes.size(); i++) {
      s.remember(prefixes.get(i).prefixHashUnsafe());
    }
    try {
      s.requests.onNext(message);
    } catch (RuntimeException e) {
      stream = null;
      streamLost(s, true, String.valueOf(e));
      return;
    }
    s.updates++;
    s.entries += prefixes.size();
    updatesSent.incrementAndGet();
    entriesSent.addAndGet(prefixes.size());
    done(r);
    if (s.entries >= ROTATE_ENTRIES) {
      barrier(true);
    }
  }

  private boolean awaitReady(final ReportStream s) {
    final ClientCallStreamObserver<CacheStateUpdate> call = s.requests;
    if (call.isReady()) {
      return true;
    }
    final long deadline = System.nanoTime() + rpcTimeoutNanos;
    synchronized (s.readyMonitor) {
      while (!call.isReady() && !s.done.isDone()) {
        final long now = System.nanoTime();
        final long left = deadline - now;
        if (left <= 0 || now - closeDeadline >= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(s.readyMonitor, Math.min(left, POLL_NANOS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return !s.done.isDone();
  }

  /**
   * Half-closes the open stream and waits for its Ack: everything sent on it is then ingested.
   * Returns false if the stream failed instead ({@code countLoss}: whether that loss needs a
   * resync).
   */
  private boolean barrier(final boolean countLoss) {
    final ReportStream s = stream;
    if (s == null) {
      return true;
    }
    stream = null;
    try {
      s.requests.onCompleted();
      s.done.get(rpcTimeoutNanos, TimeUnit.NANOSECONDS);
      backoffNanos = TimeUnit.MILLISECONDS.toNanos(BACKOFF_INITIAL_MS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      s.requests.cancel("sink interrupted", null);
      streamLost(s, countLoss, "interrupted");
    } catch (TimeoutException e) {
      s.requests.cancel("no Ack in time", null);
      streamLost(s, countLoss, "no Ack within the deadline");
    } catch (ExecutionException | RuntimeException e) {
      streamLost(s, countLoss, String.valueOf(Status.fromThrowable(e)));
    }
    return false;
  }

  private void streamLost(final ReportStream s, final boolean countLoss, final String why) {
    connected = false;
    if (s.updates == 0) {
      return;
    }
    updatesUnconfirmed.addAndGet(s.updates);
    entriesUnconfirmed.addAndGet(s.entries);
    if (countLoss) {
      lock.lock();
      try {
        lost = true;
      } finally {
        lock.unlock();
      }
    }
    final long now = System.nanoTime();
    final long last = lastLossLogNanos.get();
    if (now - last >= TimeUnit.SECONDS.toNanos(LOG_EVERY_SECONDS)
        && lastLossLogNanos.compareAndSet(last, now)) {
      LOG.warn(
          "event=sink_stream_lost server={} replica={} unconfirmed_updates={}"
              + " unconfirmed_entries={} total_unconfirmed_updates={} reason=\"{}\": the server may"
              + " not have ingested them; a resync follows once it is back",
          target,
          replicaId,
          s.updates,
          s.entries,
          updatesUnconfirmed.get(),
          why);
    }
  }

  private void sendClear(final Clear c) {
    // Everything reported before the clear must be ingested before it; a failure of that stream
    // is superseded by the clear itself.
    if (stream != null && !barrier(false)) {
      return; // reconnect first, then send the clear
    }
    final CacheEvent event = clearEvent(eventBuilder, c.timestampMicros);
    final Future<Ack> f =
        futureStub.withDeadlineAfter(rpcTimeoutNanos, TimeUnit.NANOSECONDS).publishEvent(event);
    if (await(f)) {
      eventsSent.incrementAndGet();
      done(c);
      backoffNanos = TimeUnit.MILLISECONDS.toNanos(BACKOFF_INITIAL_MS);
    } else {
      unaryFailed(List.of(c));
    }
  }

  private void sendEvictions(final Evict first) {
    final List<Evict> run = new ArrayList<>();
    lock.lock();
    try {
      for (Op op : queue) {
        if (!(op instanceof Evict) || run.size() == MAX_EVICTIONS_IN_FLIGHT) {
          break;
        }
        run.add((Evict) op);
      }
    } finally {
      lock.unlock();
    }
    if (run.isEmpty() || run.get(0) != first) {
      return; // superseded meanwhile
    }
    final ReportStream s = stream;
    if (s != null) {
      for (Evict e : run) {
        if (s.conflicts(e.hash)) {
          if (!barrier(true)) {
            return; // reconnect (and resync) first
          }
          break;
        }
      }
    }
    final List<Future<Ack>> calls = new ArrayList<>(run.size());
    final InferenceCacheGrpc.InferenceCacheFutureStub stub =
        futureStub.withDeadlineAfter(rpcTimeoutNanos, TimeUnit.NANOSECONDS);
    for (Evict e : run) {
      calls.add(stub.publishEvent(eviction(eventBuilder, e.hash, e.adapterId, e.timestampMicros)));
    }
    final List<Op> failed = new ArrayList<>();
    for (int i = 0; i < run.size(); i++) {
      if (await(calls.get(i))) {
        eventsSent.incrementAndGet();
      } else {
        failed.add(run.get(i));
      }
    }
    lock.lock();
    try {
      // Evictions commute: take the delivered ones out wherever they are still queued.
      for (int i = 0; i < run.size(); i++) {
        final Evict e = run.get(i);
        if (!failed.contains(e) && queue.remove(e)) {
          queuedUpdates--;
        }
      }
    } finally {
      lock.unlock();
    }
    if (failed.isEmpty()) {
      backoffNanos = TimeUnit.MILLISECONDS.toNanos(BACKOFF_INITIAL_MS);
    } else {
      unaryFailed(failed);
    }
  }

  private boolean await(final Future<Ack> f) {
    try {
      f.get(rpcTimeoutNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.cancel(true);
      return false;
    } catch (ExecutionException | TimeoutException e) {
      f.cancel(true);
      return false;
    }
  }

  /** Failed unary calls stay queued for another attempt after reconnecting, up to a limit. */
  private void unaryFailed(final List<Op> failed) {
    connected = false;
    lock.lock();
    try {
      for (Op op : failed) {
        op.attempts++;
        if (op.attempts >= MAX_ATTEMPTS && queue.remove(op)) {
          if (!op.resync) {
            queuedUpdates--;
          }
          dropped(op, 0);
        }
      }
    } finally {
      lock.unlock();
    }
  }

  /**
   * Waits one backoff (or until the channel's state changes), then checks the channel: READY means
   * connected again; otherwise a connection attempt is started at once.
   */
  private void awaitConnection() {
    lock.lock();
    try {
      long wait = backoffNanos;
      if (closing) {
        wait = Math.min(wait, drainDeadline - System.nanoTime());
      }
      if (wait > 0) {
        wake.awaitNanos(wait);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      lock.unlock();
    }
    backoffNanos = Math.min(backoffMaxNanos, backoffNanos * 2);
    final ConnectivityState state = channel.getState(true);
    if (state == ConnectivityState.READY) {
      connected = true;
      reconnects.incrementAndGet();
      LOG.info("event=sink_reconnected server={} replica={}", target, replicaId);
      return;
    }
    if (state == ConnectivityState.TRANSIENT_FAILURE) {
      channel.resetConnectBackoff();
    }
    channel.notifyWhenStateChanged(state, this::wakeUp);
  }

  private void wakeUp() {
    lock.lock();
    try {
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void finish() {
    if (stream != null) {
      barrier(true);
    }
    lock.lock();
    try {
      for (Op op : queue) {
        if (op instanceof Report r) {
          updatesDropped.incrementAndGet();
          entriesDropped.addAndGet(r.update.prefixes().size());
        } else {
          eventsDropped.incrementAndGet();
        }
      }
      if (!queue.isEmpty()) {
        LOG.warn(
            "event=sink_closed_with_undelivered server={} replica={} ops={}: not delivered"
                + " within the drain timeout of {} ms",
            target,
            replicaId,
            queue.size(),
            TimeUnit.NANOSECONDS.toMillis(drainTimeoutNanos));
      }
      queue.clear();
      queuedUpdates = 0;
      queuedEntries = 0;
    } finally {
      lock.unlock();
    }
  }

  /**
   * Delivers what is queued for up to {@link Builder#drainTimeout} (5 s by default), confirms the
   * stream, then shuts the channel down. Later calls are dropped (counted). Idempotent.
   */
  @Override
  public void close() {
    lock.lock();
    try {
      if (!closing) {
        closing = true;
        drainDeadline = System.nanoTime() + drainTimeoutNanos;
        closeDeadline = drainDeadline;
      }
      changed.signalAll();
      wake.signalAll();
    } finally {
      lock.unlock();
    }
    try {
      sender.join(TimeUnit.NANOSECONDS.toMillis(drainTimeoutNanos + rpcTimeoutNanos) + 1_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (sender.isAlive()) {
      LOG.warn("event=sink_close_timed_out server={}", target);
      sender.interrupt();
    }
    channel.shutdown();
    try {
      if (!channel.awaitTermination(1, TimeUnit.SECONDS)) {
        channel.shutdownNow();
      }
    } catch (InterruptedException e) {
      channel.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Counters (any thread)

  /** The server's gRPC target. */
  public String target() {
    return target;
  }

  /** Updates written to a report stream. */
  public long updatesSent() {
    return updatesSent.get();
  }

  /** Prefix entries written to a report stream. */
  public long entriesSent() {
    return entriesSent.get();
  }

  /** PublishEvent calls (evictions and clears) the server acknowledged. */
  public long eventsSent() {
    return eventsSent.get();
  }

  /** Updates dropped: buffer full, or still queued when {@link #close()} gave up. */
  public long updatesDropped() {
    return updatesDropped.get();
  }

  /** Prefix entries in the dropped updates. */
  public long entriesDropped() {
    return entriesDropped.get();
  }

  /** Evictions and clears dropped: buffer full, out of attempts, or undelivered at close. */
  public long eventsDropped() {
    return eventsDropped.get();
  }

  /** Updates sent on streams that failed before the server confirmed them. */
  public long updatesUnconfirmed() {
    return updatesUnconfirmed.get();
  }

  /** Prefix entries of those updates. */
  public long entriesUnconfirmed() {
    return entriesUnconfirmed.get();
  }

  /** Times the connection was re-established after a failure. */
  public long reconnects() {
    return reconnects.get();
  }

  /** Resyncs carried out ({@link #resync} calls). */
  public long resyncs() {
    return resyncs.get();
  }

  /** ReportCacheState streams opened for the event path. */
  public long streamsOpened() {
    return streamsOpened.get();
  }

  /** Stats samples delivered. */
  public long statsSent() {
    return statsSent.get();
  }

  /** Stats samples not delivered. */
  public long statsFailed() {
    return statsFailed.get();
  }

  /** Updates and events waiting (resync content excluded). */
  public int queuedUpdates() {
    lock.lock();
    try {
      return queuedUpdates;
    } finally {
      lock.unlock();
    }
  }

  /** Everything waiting, resync content included. */
  int queuedOps() {
    lock.lock();
    try {
      return queue.size();
    } finally {
      lock.unlock();
    }
  }

  /** Whether the sender currently believes the server reachable. */
  public boolean connected() {
    return connected;
  }

  /**
   * The {@code CacheStateUpdate} of {@code u}: its replica, model, tenant, hash scheme and
   * timestamp, no update-level adapter, one legacy entry {@code {prefix_hash, token_count,
   * adapter_id, tier}} per record. Reuses (clears) the two builders; the hashes are wrapped, not
   * copied.
   */
  static CacheStateUpdate toProto(
      final SubscriberUpdate u, final CacheStateUpdate.Builder b, final PrefixEntry.Builder e) {
    b.clear()
        .setReplicaId(u.replicaId())
        .setModelId(u.modelId())
        .setTenantId(u.tenantId())
        .setHashScheme(u.hashScheme())
        .setTimestampUs(u.timestampMicros());
    final List<PrefixRecord> prefixes = u.prefixes();
    for (int i = 0; i < prefixes.size(); i++) {
      final PrefixRecord p = prefixes.get(i);
      b.addPrefixes(
          e.clear()
              .setPrefixHash(UnsafeByteOperations.unsafeWrap(p.prefixHashUnsafe()))
              .setTokenCount(p.tokenCount())
              .setAdapterId(p.adapterId())
              .setTierValue(p.tier())
              .build());
    }
    return b.build();
  }

  /** {@link #toProto(SubscriberUpdate, CacheStateUpdate.Builder, PrefixEntry.Builder)}. */
  static CacheStateUpdate toProto(final SubscriberUpdate u) {
    return toProto(u, CacheStateUpdate.newBuilder(), PrefixEntry.newBuilder());
  }

  /** The {@code PublishEvent(PREFIX_EVICTED)} of an eviction (reuses {@code b}). */
  CacheEvent eviction(
      final CacheEvent.Builder b, final byte[] hash, final String adapterId, final long tsMicros) {
    return b.clear()
        .setType(CacheEvent.Type.PREFIX_EVICTED)
        .setReplicaId(replicaId)
        .setModelId(modelId)
        .setTenantId(tenantId)
        .setPrefixHash(UnsafeByteOperations.unsafeWrap(hash))
        .setAdapterId(adapterId)
        .setTimestampUs(tsMicros)
        .build();
  }

  /** The {@code PublishEvent(ALL_CLEARED)} of this replica (reuses {@code b}). */
  CacheEvent clearEvent(final CacheEvent.Builder b, final long tsMicros) {
    return b.clear()
        .setType(CacheEvent.Type.ALL_CLEARED)
        .setReplicaId(replicaId)
        .setModelId(modelId)
        .setTenantId(tenantId)
        .setTimestampUs(tsMicros)
        .build();
  }

  /** Settings of a {@link GrpcUpdateSink}; {@link #build()} validates them. Not thread-safe. */
  public static final class Builder {
    private String target = SubscriberConfig.SERVER_DEFAULT;
    private String replicaId;
    private String modelId;
    private String tenantId = "";
    private String hashScheme = SubscriberConfig.HASH_SCHEME_DEFAULT;
    private int maxQueuedUpdates = SubscriberConfig.SERVER_BUFFER_UPDATES_DEFAULT;
    private int maxQueuedEntries = SubscriberConfig.SERVER_BUFFER_ENTRIES_DEFAULT;
    private Duration rpcTimeout = RPC_TIMEOUT_DEFAULT;
    private Duration backoffMax = BACKOFF_MAX_DEFAULT;
    private Duration drainTimeout = DRAIN_TIMEOUT_DEFAULT;

    private Builder() {}

    /** The server's gRPC target ({@code host:port}), plaintext. */
    public Builder target(final String v) {
      target = v;
      return this;
    }

    /** The identity stamped on events and stats. */
    public Builder identity(
        final String replica, final String model, final String tenant, final String scheme) {
      replicaId = replica;
      modelId = model;
      tenantId = tenant;
      hashScheme = scheme;
      return this;
    }

    /** Updates and events held while the server is unreachable, positive. */
    public Builder maxQueuedUpdates(final int v) {
      maxQueuedUpdates = v;
      return this;
    }

    /** Prefix entries held in those updates, positive. */
    public Builder maxQueuedEntries(final int v) {
      maxQueuedEntries = v;
      return this;
    }

    /** Deadline of each unary call, stats stream and stream Ack, positive (default 5 s). */
    public Builder rpcTimeout(final Duration v) {
      rpcTimeout = v;
      return this;
    }

    /** Upper bound of the reconnection backoff, at least {@value #BACKOFF_INITIAL_MS} ms. */
    public Builder backoffMax(final Duration v) {
      backoffMax = v;
      return this;
    }

    /** How long {@link GrpcUpdateSink#close()} keeps delivering, not negative (default 5 s). */
    public Builder drainTimeout(final Duration v) {
      drainTimeout = v;
      return this;
    }

    /**
     * Validates the settings and starts the sender thread (the channel connects lazily).
     *
     * @throws IllegalArgumentException naming the bad setting
     */
    public GrpcUpdateSink build() {
      if (target == null || target.isBlank()) {
        throw new IllegalArgumentException("sink target is required");
      }
      if (replicaId == null || replicaId.isEmpty() || modelId == null || modelId.isEmpty()) {
        throw new IllegalArgumentException("sink replica and model ids are required");
      }
      Objects.requireNonNull(tenantId, "tenantId");
      Objects.requireNonNull(hashScheme, "hashScheme");
      if (maxQueuedUpdates <= 0 || maxQueuedEntries <= 0) {
        throw new IllegalArgumentException(
            "sink buffer bounds must be positive: updates="
                + maxQueuedUpdates
                + " entries="
                + maxQueuedEntries);
      }
      if (rpcTimeout == null || rpcTimeout.isNegative() || rpcTimeout.isZero()) {
        throw new IllegalArgumentException("sink rpcTimeout must be positive: " + rpcTimeout);
      }
      if (drainTimeout == null || drainTimeout.isNegative()) {
        throw new IllegalArgumentException(
            "sink drainTimeout must not be negative: " + drainTimeout);
      }
      if (backoffMax == null || backoffMax.toMillis() < BACKOFF_INITIAL_MS) {
        throw new IllegalArgumentException(
            "sink backoffMax must be at least " + BACKOFF_INITIAL_MS + " ms: " + backoffMax);
      }
      return new GrpcUpdateSink(this);
    }
  }
}
