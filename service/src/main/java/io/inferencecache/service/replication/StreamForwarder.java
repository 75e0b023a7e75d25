package io.inferencecache.service.replication;

import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.replication.StreamPublisher;
import io.inferencecache.replication.StreamRecord;
import io.inferencecache.replication.StreamUnavailableException;
import io.inferencecache.service.ingest.IngestForwarder;
import io.inferencecache.service.log.LogRateLimiter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * ReportCacheState and PublishEvent sent straight to a server while replication is on: published to
 * the sender replica's subject (every replica then applies it from the stream, this one included),
 * or, when the broker does not acknowledge within the publish timeout, applied to this server only
 * and counted ({@link #appliedLocally()}; WARN lines rate-limited).
 *
 * <p>What was applied locally never reaches the stream, so the sender owes the other replicas its
 * state: once the broker connection is back, {@link #resyncReason} names each such sender until the
 * service has asked it ({@link #resyncAsked}: its ReportCacheState call ended with ABORTED); the
 * sender then re-sends its whole state, which this forwarder publishes like any other message.
 */
public final class StreamForwarder implements IngestForwarder {
  private static final Logger LOG = LoggerFactory.getLogger(StreamForwarder.class);

  private final StreamPublisher publisher;
  private final String stream;
  private final LogRateLimiter log;
  private final LongAdder forwarded = new LongAdder();
  private final LongAdder local = new LongAdder();
  private final LongAdder resyncRequests = new LongAdder();
  private final Set<Sender> owing = ConcurrentHashMap.newKeySet();

  /** One sender of direct ingest: an engine replica of a (tenant, model). */
  private record Sender(String tenantId, String modelId, String replicaId) {}

  public StreamForwarder(
      final StreamPublisher publisher, final String stream, final LongSupplier nanoTime) {
    this.publisher = publisher;
    this.stream = stream;
    this.log = new LogRateLimiter(10, 10_000_000_000L, nanoTime);
  }

  @Override
  public boolean forwardUpdate(final CacheStateUpdate u) {
    return publish(
        u.getTenantId(),
        u.getModelId(),
        u.getReplicaId(),
        StreamRecord.Kind.UPDATE,
        u.toByteArray());
  }

  @Override
  public boolean forwardEvent(final CacheEvent e) {
    return publish(
        e.getTenantId(),
        e.getModelId(),
        e.getReplicaId(),
        StreamRecord.Kind.EVENT,
        e.toByteArray());
  }

  private boolean publish(
      final String tenantId,
      final String modelId,
      final String replicaId,
      final StreamRecord.Kind kind,
      final byte[] body) {
    try {
      publisher.publish(
          StreamRecord.subject(stream, tenantId, modelId, replicaId), kind, body, false);
      forwarded.increment();
      return true;
    } catch (StreamUnavailableException e) {
      local.increment();
      owing.add(new Sender(tenantId, modelId, replicaId));
      final long suppressed = log.acquire();
      if (suppressed != LogRateLimiter.SUPPRESS) {
        LOG.warn(
            "event=replication_applied_locally stream={} replica={} reason=\"{}\""
                + " suppressed_lines={}: this replica only; the sender is asked to resync once the"
                + " broker is back",
            stream,
            replicaId,
            e.getMessage(),
            suppressed);
      }
      return false;
    }
  }

  @Override
  public String resyncReason(final String tenantId, final String modelId, final String replicaId) {
    if (owing.isEmpty()
        || !publisher.connected()
        || !owing.contains(new Sender(tenantId, modelId, replicaId))) {
      return null;
    }
    return "replication resync: what replica "
        + replicaId
        + " reported while the replication broker was unreachable was applied on this server"
        + " only; re-send the whole state (it then reaches every replica through stream "
        + stream
        + ")";
  }

  @Override
  public void resyncAsked(final String tenantId, final String modelId, final String replicaId) {
    if (owing.remove(new Sender(tenantId, modelId, replicaId))) {
      resyncRequests.increment();
      LOG.info(
          "event=replication_resync_requested stream={} tenant={} model={} replica={}: the"
              + " sender's ReportCacheState call was ended so that it re-sends its whole state",
          stream,
          tenantId,
          modelId,
          replicaId);
    }
  }

  @Override
  public void whenResyncDue(final Runnable r) {
    publisher.whenConnected(r);
  }

  /** Messages handed to the stream. */
  public long forwarded() {
    return forwarded.sum();
  }

  /** Messages applied to this server only because the broker was unreachable. */
  public long appliedLocally() {
    return local.sum();
  }

  /** Senders asked to re-send their whole state ({@link #resyncAsked}) so far. */
  public long resyncRequests() {
    return resyncRequests.sum();
  }

  /** Senders that owe the stream a resync and have not been asked yet. */
  public int resyncsPending() {
    return owing.size();
  }
}
