package io.inferencecache.service.streams;

import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.Metric;
import io.inferencecache.proto.v1alpha1.StreamEventsRequest;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;

/**
 * The server-streaming side of the service (beyond upstream, which closes these streams at once):
 * index changes to StreamCacheEvents subscribers and metric samples to StreamMetrics subscribers.
 * See {@code io.inferencecache.service.streams.IndexChangeFeed}, which hears every change from the
 * index itself and so ignores {@link #onIngested} and {@link #onEvent}.
 */
public interface StreamingFeeds {
  /** An update was ingested over gRPC. Default: ignored. */
  default void onIngested(CacheStateUpdate update) {}

  /** An event was applied over gRPC. Default: ignored. */
  default void onEvent(CacheEvent event) {}

  /**
   * Registers a StreamCacheEvents subscriber. Called on the call's thread; must not block and must
   * install any handler on {@code out} before returning.
   */
  void subscribeEvents(StreamEventsRequest request, StreamObserver<CacheEvent> out);

  /** Registers a StreamMetrics subscriber. Same rules as {@link #subscribeEvents}. */
  void subscribeMetrics(StreamMetricsRequest request, StreamObserver<Metric> out);
}
