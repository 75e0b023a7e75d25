/**
 * The {@code controller} process: it pushes CachePolicy/CacheTenant objects to the server's {@code
 * /policy} and mirrors the server's {@code /snapshot} into CacheIndex and CacheTenant status. Pure
 * functions (body builder, snapshot decoder, status projections) are separate from the classes that
 * talk to the API server and the HTTP bridge.
 */
package io.inferencecache.controlplane.controller;
