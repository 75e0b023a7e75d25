/**
 * The {@code client} commands' gRPC side: a channel to a server ({@link
 * io.inferencecache.controlplane.client.ClientConnection}) that turns failures into one line,
 * parsing of the hash and token lists ({@link io.inferencecache.controlplane.client.ChainArgs}),
 * the lookup answer as a table or JSON ({@link io.inferencecache.controlplane.client.LookupOutput})
 * and stderr-only logging.
 */
package io.inferencecache.controlplane.client;
