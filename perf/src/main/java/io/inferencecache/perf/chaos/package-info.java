/**
 * Crash/restart testing: {@link io.inferencecache.perf.chaos.IngestLoad}, the ingest and check
 * client of {@code ops/chaos/kill-restart.sh}. Results in {@code docs/reliability.md}.
 */
package io.inferencecache.perf.chaos;
