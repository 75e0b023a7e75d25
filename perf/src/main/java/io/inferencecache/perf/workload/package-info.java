/**
 * The workloads the engine benchmarks and the perf gate feed an index: synthetic chains of fixed
 * shapes and the Mooncake trace as chains stored round-robin, both as ingest updates and lookups.
 */
package io.inferencecache.perf.workload;
