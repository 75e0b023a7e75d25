/** The inference-cache server application (Dropwizard) and its entry point. */
package io.inferencecache.controlplane;
