/**
 * The off-heap cache-state index ({@link io.inferencecache.engine.CacheIndex}: ingest, events,
 * lookups, snapshots) and the LookupRoute decision over it ({@link
 * io.inferencecache.engine.LookupRouter}: request in, result out, every routing rule in one class).
 */
package io.inferencecache.engine;
