/**
 * What the reconcilers write back to the API server: status subresource patches ({@link
 * io.inferencecache.controlplane.controller.status.StatusWriter}), Kubernetes events with their
 * series counting ({@link io.inferencecache.controlplane.controller.status.EventRecorder}) and the
 * text forms a status field takes (times, rates, deep copies: {@link
 * io.inferencecache.controlplane.controller.status.CrText}).
 */
package io.inferencecache.controlplane.controller.status;
