/**
 * LookupRoute: the handler that runs the engine's {@link io.inferencecache.engine.LookupRouter} and
 * records metrics, the zero-copy path (parse from and encode into pooled calls) beside the
 * default-protobuf path, and the one deadline watchdog that answers TIMEOUT for both on time.
 */
package io.inferencecache.service.lookup;
