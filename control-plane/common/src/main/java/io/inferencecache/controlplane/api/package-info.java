/**
 * Wire shapes of the HTTP surfaces, written and read with Go {@code encoding/json} rules: {@code
 * /snapshot}, {@code /policy} (both directions) and {@code /probe}; and {@code /prompt-templates}
 * (both directions, {@link io.inferencecache.controlplane.api.PromptTemplateJson}: strict, every
 * error naming its field).
 */
package io.inferencecache.controlplane.api;
