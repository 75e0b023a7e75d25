/**
 * Several server replicas, one view: what this server does with the replication stream ({@code
 * io.inferencecache.replication}). {@link io.inferencecache.service.replication.ReplicatedIngest}
 * applies each stream message through the same ingest rules as ReportCacheState and PublishEvent,
 * on the reader's one thread, recording the stream sequence with the data; {@link
 * io.inferencecache.service.replication.StreamForwarder} sends ReportCacheState and PublishEvent
 * calls made to this server to the stream, or applies them here while the broker is unreachable.
 */
package io.inferencecache.service.replication;
