package io.inferencecache.service.ingest;

import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;

/**
 * Where ReportCacheState and PublishEvent content goes instead of this server's index when several
 * replicas share one view (the replication stream). Each method returns true when it took the
 * message (the service then applies nothing itself: the message comes back through the stream) and
 * false when the service must apply it locally. Called on gRPC handler threads; must be thread-safe
 * and bounded in time.
 */
public interface IngestForwarder {
  /** Hands one ReportCacheState message on; false: apply it here. */
  boolean forwardUpdate(CacheStateUpdate update);

  /** Hands one PublishEvent event on; false: apply it here. */
  boolean forwardEvent(CacheEvent event);

  /**
   * Why the sender {@code replicaId} of ({@code tenantId}, {@code modelId}) must re-send its whole
   * state now, or null: content of it was applied to this server only and the forwarder can take
   * messages again. The service then ends the sender's ReportCacheState call with ABORTED and this
   * description (so the sender resynchronises through the stream) and calls {@link #resyncAsked}.
   */
  default String resyncReason(final String tenantId, final String modelId, final String replicaId) {
    return null;
  }

  /** The sender named by a {@link #resyncReason} was asked: the request is settled. */
  default void resyncAsked(final String tenantId, final String modelId, final String replicaId) {}

  /**
   * Runs {@code r} (on any thread) whenever a {@link #resyncReason} may have become due, so the
   * service can end the open ReportCacheState calls of idle senders too.
   */
  default void whenResyncDue(final Runnable r) {}
}
