/**
 * The kvevent-subscriber: the sidecar that turns an inference engine's KV-cache event stream (vLLM
 * or SGLang, msgpack over ZMQ) and its Prometheus {@code /metrics} into cache-state updates for the
 * inference-cache server.
 *
 * <p>Pipeline: {@link io.inferencecache.service.subscriber.ZmqEventSource} (SUB socket, decoding
 * with {@link io.inferencecache.service.subscriber.EventBatchDecoder}, sequence gap/restart
 * detection with {@link io.inferencecache.service.subscriber.SequenceTracker}) → bounded queue →
 * {@link io.inferencecache.service.subscriber.Reporter} (adapter resolution, {@link
 * io.inferencecache.service.subscriber.PositionalIndex}, windowed batching) → {@link
 * io.inferencecache.service.subscriber.UpdateSink} ({@link
 * io.inferencecache.service.subscriber.GrpcUpdateSink} to the server: one long-lived stream,
 * bounded buffering, resync after a loss). The stats path ({@link
 * io.inferencecache.service.subscriber.StatsReporter} over {@link
 * io.inferencecache.service.subscriber.StatsScraper}) runs independently on its own cadence. {@link
 * io.inferencecache.service.subscriber.KvEventSubscriber} wires the lot from a {@link
 * io.inferencecache.service.subscriber.SubscriberConfig}; {@link
 * io.inferencecache.service.subscriber.FakeEngine} is a test publisher.
 *
 * <p>Only metadata leaves the process: token ids are hashed in-process with the engine module's
 * {@code Fingerprint} and never forwarded.
 */
package io.inferencecache.service.subscriber;
