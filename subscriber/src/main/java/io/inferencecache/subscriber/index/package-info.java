/**
 * Stage 3, events to prefixes: the bounded positional index from engine block hashes to the content
 * fingerprints the server understands ({@link io.inferencecache.subscriber.index.PositionalIndex}),
 * and LoRA adapter resolution ({@link io.inferencecache.subscriber.index.AdapterResolver},
 * fail-closed).
 */
package io.inferencecache.subscriber.index;
