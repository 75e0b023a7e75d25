/**
 * Service-level benchmarks: the LookupRoute paths in process ({@link
 * io.inferencecache.perf.service.LookupRoutePathBenchmark}: zero-copy against default protobuf,
 * allocation and latency in one JMH run) and the whole grpc-netty server stack over loopback
 * ({@link io.inferencecache.perf.service.LoopbackLoad}: LookupRoute beside an empty unary RPC on
 * the same server). {@link io.inferencecache.perf.service.ServiceFixture} assembles the index, the
 * handler and the service for both. {@link io.inferencecache.perf.service.WideFleetLoopback} runs
 * issue 41's wide-fleet table against real {@code serve} children (server-side mean from their
 * {@code /metrics}, round trip, the answer cap, the ReportCacheState load rate).
 */
package io.inferencecache.perf.service;
