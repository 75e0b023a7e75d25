/** Dropwizard health checks. */
package io.inferencecache.controlplane.server.health;
