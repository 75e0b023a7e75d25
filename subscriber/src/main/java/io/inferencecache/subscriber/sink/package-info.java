/**
 * Stage 5, out: the {@link io.inferencecache.subscriber.sink.UpdateSink} contract with the {@link
 * io.inferencecache.subscriber.sink.SubscriberUpdate} it takes, and its gRPC implementation. {@link
 * io.inferencecache.subscriber.sink.GrpcUpdateSink} is the facade; each part of delivery has its
 * own class: the bounded queue with drop accounting ({@link
 * io.inferencecache.subscriber.sink.SinkQueue}), the sender loop ({@link
 * io.inferencecache.subscriber.sink.Sender}), the stream and barrier protocol ({@link
 * io.inferencecache.subscriber.sink.ReportStreams}), clears and eviction batching ({@link
 * io.inferencecache.subscriber.sink.EventPublisher}), the stats RPC ({@link
 * io.inferencecache.subscriber.sink.StatsCall}), the reconnection backoff ({@link
 * io.inferencecache.subscriber.sink.Backoff}), the counters ({@link
 * io.inferencecache.subscriber.sink.SinkCounters}) and the protobuf mapping ({@link
 * io.inferencecache.subscriber.sink.ProtoMapping}).
 */
package io.inferencecache.subscriber.sink;
