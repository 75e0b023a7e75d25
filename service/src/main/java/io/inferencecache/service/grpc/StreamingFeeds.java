package io.inferencecache.service.grpc;

import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.Metric;
import io.inferencecache.proto.v1alpha1.StreamEventsRequest;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;

/**
 * The server-streaming side of the service (beyond upstream, which closes these streams at once):
 * index changes to StreamCacheEvents subscribers and metric samples to StreamMetrics subscribers.
 */
public interface StreamingFeeds {
  /** An update was ingested. */
  void onIngested(CacheStateUpdate update);

  /** An event was applied. */
  void onEvent(CacheEvent event);

  /** Registers a StreamCacheEvents subscriber. */
  void subscribeEvents(StreamEventsRequest request, StreamObserver<CacheEvent> out);

  /** Registers a StreamMetrics subscriber. */
  void subscribeMetrics(StreamMetricsRequest request, StreamObserver<Metric> out);
}
