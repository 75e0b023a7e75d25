/**
 * The off-heap cache-state index ({@link io.inferencecache.engine.CacheIndex}: its life cycle, the
 * writer lock, ingest, events, lookups, snapshots) and the LookupRoute decision over it ({@link
 * io.inferencecache.engine.LookupRouter}: request in, result out, every routing rule in one class).
 * Inside, one {@code EngineState} per open index is shared by the read side ({@code Lookups}) and
 * the write side ({@code IndexWriter}); the public types here are the ones other modules call.
 */
package io.inferencecache.engine;
