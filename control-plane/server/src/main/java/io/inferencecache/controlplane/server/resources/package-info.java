/** The HTTP endpoints of the two listeners and the router that keeps them apart. */
package io.inferencecache.controlplane.server.resources;
