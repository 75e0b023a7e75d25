/**
 * The service's side of LookupRoute, independent of the transport: the handler that runs the
 * engine's {@link io.inferencecache.engine.LookupRouter} and records metrics, the prompt tokenizers
 * (Hugging Face tokenizers and chat templates) the router calls, and the metrics interface.
 */
package io.inferencecache.service.lookup;
