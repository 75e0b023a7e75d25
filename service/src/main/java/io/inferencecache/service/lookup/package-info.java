/**
 * LookupRoute's decision procedure (spec §2.9), independent of the transport: inputs, outputs, the
 * handler, tokenizer and metrics interfaces.
 */
package io.inferencecache.service.lookup;
