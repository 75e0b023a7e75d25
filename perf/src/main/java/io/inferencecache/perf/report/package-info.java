/**
 * The published benchmark tables: the engine table built from JMH, memory and allocation results,
 * and the generated section of perf/README.md that puts it beside the replay and service rows.
 */
package io.inferencecache.perf.report;
