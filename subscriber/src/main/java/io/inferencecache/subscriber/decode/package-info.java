/**
 * Stage 2, bytes to values: the msgpack {@code EventBatch} decoder for the vLLM and SGLang tuple
 * and map forms ({@link io.inferencecache.subscriber.decode.EventBatchDecoder}, which never throws
 * anything but {@link io.inferencecache.subscriber.decode.EventDecodeException}), and the
 * Prometheus text parser with the per-engine metric profiles that turn a scrape into a {@link
 * io.inferencecache.subscriber.decode.StatsSample}.
 */
package io.inferencecache.subscriber.decode;
