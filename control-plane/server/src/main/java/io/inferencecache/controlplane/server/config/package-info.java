/** Sections of the YAML configuration; every {@code serve} flag has a key here. */
package io.inferencecache.controlplane.server.config;
