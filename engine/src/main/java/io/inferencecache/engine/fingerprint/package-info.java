/**
 * The {@code vllm} scheme's block hashes of a token-id list ({@link
 * io.inferencecache.engine.fingerprint.Fingerprint}), so that a lookup by token ids finds the
 * blocks the engines reported. No index state here.
 */
package io.inferencecache.engine.fingerprint;
