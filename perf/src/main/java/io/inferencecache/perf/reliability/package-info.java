/**
 * Reliability load tools run against the server jar on loopback ({@code perf/run-reliability.sh},
 * results in {@code docs/reliability.md}): {@link io.inferencecache.perf.reliability.Overload}
 * (LookupRoute open-loop overload, ingest flood under lookups) and {@link
 * io.inferencecache.perf.reliability.ConnectionAbuse} (idle connections, slowloris, ping flood,
 * oversized messages and headers).
 */
package io.inferencecache.perf.reliability;
