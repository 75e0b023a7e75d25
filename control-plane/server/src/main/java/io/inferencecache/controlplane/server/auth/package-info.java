/** Snapshot-listener authentication: bearer tokens checked by Kubernetes TokenReview, cached. */
package io.inferencecache.controlplane.server.auth;
