package io.inferencecache.subscriber.sink;

import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.StatsSample;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
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
 * <h2>Parts</h2>
 *
 * This class is the facade that wires them: {@link SinkQueue} (bounds and drop accounting), {@link
 * Sender} (the loop), {@link ReportStreams} (stream and barrier protocol), {@link EventPublisher}
 * (clears and eviction batching), {@link StatsCall}, {@link Connection} with its {@link Backoff},
 * {@link SinkCounters} and {@link ProtoMapping}.
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
  public static final int MAX_ENTRIES_PER_UPDATE = SubscriberUpdate.MAX_PREFIXES;

  /** Entries sent on one stream before it is confirmed and a new one opened. */
  public static final int ROTATE_ENTRIES = 65_536;

  /** Evictions sent concurrently. */
  public static final int MAX_EVICTIONS_IN_FLIGHT = 128;

  /** Attempts of one {@code PublishEvent} before it is dropped. */
  public static final int MAX_ATTEMPTS = 3;

  /** Drop and loss warnings are logged at most this often. */
  public static final int LOG_EVERY_SECONDS = 10;

  private static final Logger LOG = LoggerFactory.getLogger(GrpcUpdateSink.class);

  private final String target;
  private final String replicaId;
  private final long rpcTimeoutNanos;
  private final long drainTimeoutNanos;
  private final SinkCounters counters = new SinkCounters();
  private final SinkQueue queue;
  private final Connection connection;
  private final StatsCall statsCall;
  private final Sender sender;

  private GrpcUpdateSink(final Builder b) {
    this.target = b.target;
    this.replicaId = b.replicaId;
    this.rpcTimeoutNanos = b.rpcTimeout.toNanos();
    this.drainTimeoutNanos = b.drainTimeout.toNanos();
    final ManagedChannel channel = NettyChannelBuilder.forTarget(target).usePlaintext().build();
    final InferenceCacheGrpc.InferenceCacheStub asyncStub = InferenceCacheGrpc.newStub(channel);
    final ProtoMapping mapping = new ProtoMapping(replicaId, b.modelId, b.tenantId, b.hashScheme);
    this.queue =
        new SinkQueue(
            b.maxQueuedUpdates, b.maxQueuedEntries, counters, target, replicaId, System::nanoTime);
    this.connection =
        new Connection(
            channel,
            new Backoff(TimeUnit.MILLISECONDS.toNanos(BACKOFF_INITIAL_MS), b.backoffMax.toNanos()),
            queue,
            counters,
            target,
            replicaId);
    final ReportStreams streams =
        new ReportStreams(
            asyncStub,
            rpcTimeoutNanos,
            queue,
            connection,
            counters,
            target,
            replicaId,
            new LogThrottle(LOG_EVERY_SECONDS, System::nanoTime));
    final EventPublisher events =
        new EventPublisher(
            InferenceCacheGrpc.newFutureStub(channel),
            rpcTimeoutNanos,
            mapping,
            queue,
            streams,
            connection,
            counters);
    this.statsCall = new StatsCall(asyncStub, mapping, rpcTimeoutNanos, counters, target);
    this.sender = new Sender(queue, connection, streams, events, drainTimeoutNanos);
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
    queue.enqueue(new SinkOp.Report(update, false), update.prefixes().size());
  }

  @Override
  public void prefixEvicted(final byte[] prefixHash, final String adapterId, final long tsMicros) {
    queue.enqueue(new SinkOp.Evict(prefixHash, adapterId, tsMicros), 0);
  }

  /** Also supersedes everything still queued: the server is about to forget it all. */
  @Override
  public void allCleared(final long timestampMicros) {
    queue.clearAll(timestampMicros);
  }

  @Override
  public boolean resyncRequested() {
    return queue.resyncRequested();
  }

  @Override
  public void resync(final SubscriberUpdate state) {
    queue.resync(state, MAX_ENTRIES_PER_UPDATE);
    LOG.info(
        "event=sink_resync replica={} prefixes={}: clearing the server's entries of this replica"
            + " and re-sending its state",
        replicaId,
        state.prefixes().size());
  }

  @Override
  public void stats(final StatsSample sample, final long timestampMicros) {
    statsCall.send(sample, timestampMicros);
  }

  /**
   * Delivers what is queued for up to {@link Builder#drainTimeout} (5 s by default), confirms the
   * stream, then shuts the channel down. Later calls are dropped (counted). Idempotent.
   */
  @Override
  public void close() {
    queue.close(drainTimeoutNanos);
    if (!sender.join(TimeUnit.NANOSECONDS.toMillis(drainTimeoutNanos + rpcTimeoutNanos) + 1_000)) {
      LOG.warn("event=sink_close_timed_out server={}", target);
    }
    connection.shutdown();
  }

  // ---------------------------------------------------------------------------------------------
  // State (any thread)

  /** The server's gRPC target. */
  public String target() {
    return target;
  }

  /** What was delivered, dropped and lost. */
  public SinkCounters counters() {
    return counters;
  }

  /** Updates and events waiting (resync content excluded). */
  public int queuedUpdates() {
    return queue.queuedUpdates();
  }

  /** Everything waiting, resync content included. */
  int queuedOps() {
    return queue.size();
  }

  /** Whether the sender currently believes the server reachable. */
  public boolean connected() {
    return connection.connected();
  }

  /**
   * Whether the server is reachable now: the sender is not waiting to reconnect and the channel is
   * READY. An idle channel (nothing delivered yet, or idle for a while) is asked to connect, so
   * this turns true on a later call once the server answers.
   */
  @Override
  public boolean ready() {
    return connection.ready();
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
