/**
 * Wire shapes of the HTTP surfaces, written and read with Go {@code encoding/json} rules: {@code
 * /snapshot}, {@code /policy} (both directions) and {@code /probe}.
 */
package io.inferencecache.controlplane.api;
