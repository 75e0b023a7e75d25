/**
 * Stage 5, out: the {@link io.inferencecache.subscriber.sink.UpdateSink} contract and its gRPC
 * implementation, {@link io.inferencecache.subscriber.sink.GrpcUpdateSink}.
 */
package io.inferencecache.subscriber.sink;
