/**
 * Benchmarks of the engine's off-heap index against {@link
 * io.inferencecache.perf.OnHeapReferenceIndex} (the upstream on-heap design): workload generators
 * ({@link io.inferencecache.perf.SyntheticChains}, {@link io.inferencecache.perf.MooncakeTrace}),
 * JMH lookup and ingest benchmarks, the {@link io.inferencecache.perf.MemoryFootprint} main, and
 * the launcher ({@link io.inferencecache.perf.BenchmarkMain}) that gives every JMH fork the JVM
 * flags the off-heap libraries need ({@link io.inferencecache.perf.JvmFlags}).
 */
package io.inferencecache.perf;
