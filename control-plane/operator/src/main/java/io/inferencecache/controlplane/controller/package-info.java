/**
 * The {@code controller} process: it pushes CachePolicy/CacheTenant objects to the server's {@code
 * /policy} and mirrors the server's {@code /snapshot} into CacheIndex and CacheTenant status. Every
 * reconciler reads the typed model of {@code k8s.model} from informer caches and writes status
 * through {@link io.inferencecache.controlplane.controller.StatusWriter}. Pure functions (body
 * builder, snapshot decoder, status projections) are separate from the classes that talk to the API
 * server and the HTTP bridge.
 */
package io.inferencecache.controlplane.controller;
