package io.inferencecache.service.grpc;

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
}
