/**
 * The kvevent-subscriber: the sidecar that turns an inference engine's KV-cache event stream (vLLM
 * or SGLang, msgpack over ZMQ) and its Prometheus {@code /metrics} into cache-state updates for the
 * inference-cache server.
 *
 * <p>Pipeline: {@link io.inferencecache.subscriber.source.ZmqEventSource} (SUB socket, decoding
 * with {@link io.inferencecache.subscriber.decode.EventBatchDecoder}, sequence gap/restart
 * detection with {@link io.inferencecache.subscriber.source.SequenceTracker}) → bounded queue →
 * {@link io.inferencecache.subscriber.report.Reporter} (adapter resolution, {@link
 * io.inferencecache.subscriber.index.PositionalIndex}, windowed batching) → {@link
 * io.inferencecache.subscriber.sink.UpdateSink} ({@link
 * io.inferencecache.subscriber.sink.GrpcUpdateSink} to the server: one long-lived stream, bounded
 * buffering, resync after a loss). The stats path ({@link
 * io.inferencecache.subscriber.report.StatsReporter} over {@link
 * io.inferencecache.subscriber.source.StatsScraper}) runs independently on its own cadence. {@link
 * io.inferencecache.subscriber.KvEventSubscriber} wires the lot from a {@link
 * io.inferencecache.subscriber.config.SubscriberConfig}; {@link
 * io.inferencecache.subscriber.fake.FakeEngine} is a test publisher.
 *
 * <p>Only metadata leaves the process: token ids are hashed in-process with the engine module's
 * {@code Fingerprint} and never forwarded.
 */
package io.inferencecache.subscriber;
