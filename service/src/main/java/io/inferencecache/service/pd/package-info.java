/**
 * LookupPDRoute: {@link io.inferencecache.service.pd.LookupPdRoutes} copies the generated request
 * into a per-thread {@link io.inferencecache.engine.PdRouteRequest}, runs the engine's {@link
 * io.inferencecache.engine.PdRouter} (which owns every rule) under the caller's deadline, builds
 * the response and records {@link io.inferencecache.service.pd.PdRouteMetrics}; a call the server
 * shed under overload is answered NO_HINT, not an error.
 */
package io.inferencecache.service.pd;
