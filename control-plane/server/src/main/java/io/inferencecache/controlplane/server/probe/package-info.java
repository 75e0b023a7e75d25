/** The in-process end-to-end probe behind {@code /probe}. */
package io.inferencecache.controlplane.server.probe;
