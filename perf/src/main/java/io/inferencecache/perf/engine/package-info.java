/**
 * The engine's benchmarks: JMH lookup, ingest and LFU-credit benchmarks of the off-heap index
 * against {@link io.inferencecache.perf.engine.OnHeapReferenceIndex} (the upstream on-heap design)
 * behind {@link io.inferencecache.perf.engine.IndexUnderTest}, the Chronicle Map floors under them
 * ({@link io.inferencecache.perf.engine.BareChronicleMap}), and the memory and allocation mains.
 */
package io.inferencecache.perf.engine;
