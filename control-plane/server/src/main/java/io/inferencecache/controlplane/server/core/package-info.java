/**
 * Lifecycle and wiring pieces: listeners, index and gRPC lifecycles, readiness, start-up checks.
 */
package io.inferencecache.controlplane.server.core;
