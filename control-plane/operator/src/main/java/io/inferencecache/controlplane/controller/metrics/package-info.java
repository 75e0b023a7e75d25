/**
 * The controller's metric series in its Dropwizard registry (reconcile and work-queue counters,
 * leader status, the CacheBackend probe and T2 families), shared by every reconciler.
 */
package io.inferencecache.controlplane.controller.metrics;
