/**
 * The CacheBackend reconciler (dispatch on type and ownership, the managed Redis workload, matched
 * engine pods, the first-KV-event gate, the functional probe gate, transition events), the
 * engine-pod event reconciler and the snapshot's per-backend index participation. Wired into the
 * controller by {@link io.inferencecache.controlplane.controller.backend.BackendControllers}.
 */
package io.inferencecache.controlplane.controller.backend;
