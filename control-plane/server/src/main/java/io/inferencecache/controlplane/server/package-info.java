/**
 * The {@code serve} program: the Dropwizard application that wires the server's parts ({@link
 * io.inferencecache.controlplane.server.ControlPlaneApplication}) and its start-up from the command
 * line ({@link io.inferencecache.controlplane.server.ServeLauncher}).
 */
package io.inferencecache.controlplane.server;
