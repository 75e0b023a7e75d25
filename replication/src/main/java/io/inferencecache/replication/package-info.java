/**
 * The replication stream: one NATS JetStream stream that carries every engine replica's cache-state
 * updates to every server replica.
 *
 * <p>{@link io.inferencecache.replication.StreamSettings} names the broker and the stream; {@link
 * io.inferencecache.replication.ReplicationStream} connects (reconnecting forever) and creates the
 * stream with rollup allowed; {@link io.inferencecache.replication.StreamRecord} is the wire format
 * (one subject per engine replica, a kind header, a protobuf body); {@link
 * io.inferencecache.replication.StreamPublisher} publishes with {@code Nats-Msg-Id} and, for full
 * states, {@code Nats-Rollup: sub}; {@link io.inferencecache.replication.StreamReader} reads the
 * whole stream in order from a given sequence with an ordered consumer. What a record means to the
 * index is the server's business ({@code io.inferencecache.service.replication}).
 */
package io.inferencecache.replication;
