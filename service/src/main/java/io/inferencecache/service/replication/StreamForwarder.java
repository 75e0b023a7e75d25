package io.inferencecache.service.replication;

import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.replication.StreamPublisher;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.replication.StreamUnavailableException;
import io.inferencecache.service.grpc.IngestForwarder;
import io.inferencecache.service.server.LogRateLimiter;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ReportCacheState and PublishEvent sent straight to a server while replication is on: published to
 * the sender replica's subject (every replica then applies it from the stream, this one included),
 * or, when the broker does not acknowledge within the publish timeout, applied to this server only
 * and counted ({@link #appliedLocally()}; WARN lines rate-limited). What was applied locally is not
 * replayed to the stream: the sender's next full state (a subscriber publishing to the stream
 * itself, or its TTL) repairs the other replicas.
 */
public final class StreamForwarder implements IngestForwarder {
  private static final Logger LOG = LoggerFactory.getLogger(StreamForwarder.class);

  private final StreamPublisher publisher;
  private final String stream;
  private final LogRateLimiter log;
  private final LongAdder forwarded = new LongAdder();
  private final LongAdder local = new LongAdder();

  public StreamForwarder(
      final StreamPublisher publisher, final String stream, final LongSupplier nanoTime) {
    this.publisher = publisher;
    this.stream = stream;
    this.log = new LogRateLimiter(10, 10_000_000_000L, nanoTime);
  }

  @Override
  public boolean forwardUpdate(final CacheStateUpdate u) {
    return publish(
        StreamRecord.subject(stream, u.getTenantId(), u.getModelId(), u.getReplicaId()),
        StreamRecord.Kind.UPDATE,
        u.toByteArray());
  }

  @Override
  public boolean forwardEvent(final CacheEvent e) {
    return publish(
        StreamRecord.subject(stream, e.getTenantId(), e.getModelId(), e.getReplicaId()),
        StreamRecord.Kind.EVENT,
        e.toByteArray());
  }

  private boolean publish(final String subject, final StreamRecord.Kind kind, final byte[] body) {
    try {
      publisher.publish(subject, kind, body, false);
      forwarded.increment();
      return true;
    } catch (StreamUnavailableException e) {
      local.increment();
      final long suppressed = log.acquire();
      if (suppressed != LogRateLimiter.SUPPRESS) {
        LOG.warn(
            "event=replication_applied_locally stream={} reason=\"{}\" suppressed_lines={}: this"
                + " replica only",
            stream,
            e.getMessage(),
            suppressed);
      }
      return false;
    }
  }

  /** Messages handed to the stream. */
  public long forwarded() {
    return forwarded.sum();
  }

  /** Messages applied to this server only because the broker was unreachable. */
  public long appliedLocally() {
    return local.sum();
  }
}
