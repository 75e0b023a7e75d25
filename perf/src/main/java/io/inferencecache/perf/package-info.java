/**
 * The benchmark jar's entry points and what every perf tool shares: {@link
 * io.inferencecache.perf.BenchmarkMain} (JMH with the off-heap libraries' JVM flags in every fork),
 * {@link io.inferencecache.perf.JvmFlags} (those flags, for scripts) and {@link
 * io.inferencecache.perf.AckFuture} (a gRPC ack as a future). Each feature lives in a subpackage.
 */
package io.inferencecache.perf;
