/** Dropwizard health checks. */
package io.inferencecache.controlplane.health;
