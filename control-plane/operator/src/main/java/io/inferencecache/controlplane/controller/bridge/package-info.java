/**
 * The controller's HTTP bridge to the server: authenticated GET/POST with the bearer token read
 * from a file ({@link io.inferencecache.controlplane.controller.bridge.ServerBridge}) and the
 * decoded {@code /snapshot} body ({@link
 * io.inferencecache.controlplane.controller.bridge.ServerSnapshot}).
 */
package io.inferencecache.controlplane.controller.bridge;
