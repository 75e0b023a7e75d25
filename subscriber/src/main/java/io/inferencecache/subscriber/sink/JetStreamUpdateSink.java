package io.inferencecache.subscriber.sink;

import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.replication.ReplicationStream;
import io.inferencecache.replication.StreamPublisher;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.replication.StreamUnavailableException;
import io.inferencecache.subscriber.config.SubscriberConfig;
import io.inferencecache.subscriber.decode.StatsSample;
import io.inferencecache.subscriber.index.PrefixRecord;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers to the JetStream replication stream instead of one server ({@code
 * --replication-nats-url}): every message goes to this replica's subject ({@link
 * StreamRecord#subject}), synchronously, each publish bounded by {@code
 * --replication-publish-timeout}. A report is an {@code update}, an eviction an {@code event}, a
 * clear and a resync a full {@code state} that rolls the subject up ({@code Nats-Rollup: sub}: the
 * broker keeps nothing older of this replica, so the stream stays its own snapshot), continued in
 * {@code update}s of {@value #STATE_CHUNK_PREFIXES} prefixes when larger.
 *
 * <p>Failures: a publish that is not acknowledged throws (the reporter logs and drops it, as the
 * {@link UpdateSink} contract says) and asks for a {@link #resync}; every (re)connection to the
 * broker asks for one too, so the replica's full state is published at start, after any loss and
 * after a broker restart. Thread-safe (stats come from their own thread).
 */
public final class JetStreamUpdateSink implements UpdateSink, AutoCloseable {
  /** Prefixes per message of a full state (about 25 bytes each: well under a 1 MiB payload). */
  public static final int STATE_CHUNK_PREFIXES = 16_384;

  private static final Logger LOG = LoggerFactory.getLogger(JetStreamUpdateSink.class);

  private final ReplicationStream stream;
  private final boolean ownsStream;
  private final StreamPublisher publisher;
  private final ProtoMapping mapping;
  private final SubscriberConfig identity;
  private final String subject;
  private volatile boolean resync = true;
  private final AtomicLong published = new AtomicLong();
  private final AtomicLong connections = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private final AtomicLong states = new AtomicLong();

  /** A sink on its own connection to the broker of {@code config} (closed with the sink). */
  public static JetStreamUpdateSink connect(final SubscriberConfig config) {
    return new JetStreamUpdateSink(
        config,
        ReplicationStream.connect(config.replication(), "subscriber-" + config.replicaId()),
        true);
  }

  /** A sink publishing through {@code stream}, which the caller keeps owning. */
  public JetStreamUpdateSink(final SubscriberConfig config, final ReplicationStream stream) {
    this(config, stream, false);
  }

  private JetStreamUpdateSink(
      final SubscriberConfig config, final ReplicationStream stream, final boolean ownsStream) {
    this.stream = stream;
    this.ownsStream = ownsStream;
    this.identity = config;
    this.publisher = new StreamPublisher(stream);
    this.mapping =
        new ProtoMapping(
            config.replicaId(), config.modelId(), config.tenantId(), config.hashScheme());
    this.subject =
        StreamRecord.subject(
            stream.name(), config.tenantId(), config.modelId(), config.replicaId());
    stream.whenConnected(this::connected);
  }

  private void connected() {
    try {
      stream.ensureStream();
    } catch (IOException | RuntimeException e) {
      LOG.warn("event=replication_stream_unavailable reason=\"{}\"", e.toString());
    }
    resync = true;
    connections.incrementAndGet();
  }

  private void publish(final StreamRecord.Kind kind, final byte[] body, final boolean rollup) {
    try {
      publisher.publish(subject, kind, body, rollup);
      published.incrementAndGet();
    } catch (StreamUnavailableException e) {
      failed.incrementAndGet();
      resync = true;
      throw e;
    }
  }

  @Override
  public void report(final SubscriberUpdate update) {
    publish(StreamRecord.Kind.UPDATE, ProtoMapping.toProto(update).toByteArray(), false);
  }

  @Override
  public void prefixEvicted(
      final byte[] prefixHash, final String adapterId, final long timestampMicros) {
    publish(
        StreamRecord.Kind.EVENT,
        mapping
            .eviction(CacheEvent.newBuilder(), prefixHash, adapterId, timestampMicros)
            .toByteArray(),
        false);
  }

  /** Publishes an empty full state: clears the replica everywhere and compacts its subject. */
  @Override
  public void allCleared(final long timestampMicros) {
    publish(StreamRecord.Kind.STATE, emptyState(timestampMicros), true);
  }

  private byte[] emptyState(final long timestampMicros) {
    return ProtoMapping.toProto(
            new SubscriberUpdate(
                identity.replicaId(),
                identity.modelId(),
                identity.tenantId(),
                identity.hashScheme(),
                timestampMicros,
                List.of()))
        .toByteArray();
  }

  @Override
  public void stats(final StatsSample sample, final long timestampMicros) {
    try {
      publisher.publish(
          subject,
          StreamRecord.Kind.UPDATE,
          mapping.stats(sample, timestampMicros).toByteArray(),
          false);
      published.incrementAndGet();
    } catch (StreamUnavailableException e) {
      failed.incrementAndGet();
      throw e;
    }
  }

  @Override
  public boolean resyncRequested() {
    return resync;
  }

  /**
   * Publishes {@code state} as this replica's full state: the first {@value #STATE_CHUNK_PREFIXES}
   * prefixes as a rolling-up {@code state}, the rest as {@code update}s. On failure the resync
   * stays requested (the next window tries again) and the exception is thrown.
   */
  @Override
  public void resync(final SubscriberUpdate state) {
    resync = false;
    final List<PrefixRecord> all = state.prefixes();
    int from = 0;
    do {
      final int to = Math.min(all.size(), from + STATE_CHUNK_PREFIXES);
      final SubscriberUpdate chunk =
          new SubscriberUpdate(
              state.replicaId(),
              state.modelId(),
              state.tenantId(),
              state.hashScheme(),
              state.timestampMicros(),
              all.subList(from, to));
      final boolean first = from == 0;
      publish(
          first ? StreamRecord.Kind.STATE : StreamRecord.Kind.UPDATE,
          ProtoMapping.toProto(chunk).toByteArray(),
          first);
      from = to;
    } while (from < all.size());
    states.incrementAndGet();
  }

  /** Broker (re)connections handled: each asked for a resync and made sure the stream exists. */
  public long connections() {
    return connections.get();
  }

  /** Messages the broker acknowledged. */
  public long published() {
    return published.get();
  }

  /** Publishes that failed. */
  public long failed() {
    return failed.get();
  }

  /** Full states published whole. */
  public long statesPublished() {
    return states.get();
  }

  /** Whether the connection to the broker is up now. */
  @Override
  public boolean ready() {
    return stream.connected();
  }

  /** This replica's subject. */
  public String subject() {
    return subject;
  }

  /** Closes the connection when the sink owns it. */
  @Override
  public void close() {
    if (ownsStream) {
      stream.close();
    }
  }
}
