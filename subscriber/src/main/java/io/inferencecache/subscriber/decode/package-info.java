/**
 * Stage 2, bytes to values: the msgpack {@code EventBatch} decoder for the vLLM and SGLang tuple
 * and map forms ({@link io.inferencecache.subscriber.decode.EventBatchDecoder}, which never throws
 * anything but {@link io.inferencecache.subscriber.decode.EventDecodeException}), the Prometheus
 * text parser (a bad exposition is a {@link io.inferencecache.subscriber.decode.ScrapeException}),
 * and the {@link io.inferencecache.subscriber.decode.StatsSample} a scrape ends in.
 */
package io.inferencecache.subscriber.decode;
