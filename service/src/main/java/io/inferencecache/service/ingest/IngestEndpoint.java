package io.inferencecache.service.ingest;

import io.grpc.MethodDescriptor;
import io.grpc.ServerMethodDefinition;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.service.streams.StreamingFeeds;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * ReportCacheState and PublishEvent over the engine's index: each message is validated ({@link
 * IngestMessage}, {@link IngestRules}), offered to the replication forwarder when there is one, and
 * otherwise applied to the index here and told to the streaming feeds. Thread-safe.
 */
public final class IngestEndpoint {
  private final CacheIndex index;
  private final StreamingFeeds feeds;
  private final IngestRules rules;
  private final Set<ReportCall> openReports = ConcurrentHashMap.newKeySet();
  private volatile IngestForwarder forwarder;

  /** Ingest into {@code index}; {@code feeds} (null: none) hears what was applied here. */
  public IngestEndpoint(
      final CacheIndex index, final StreamingFeeds feeds, final LongSupplier nanoTime) {
    this.index = index;
    this.feeds = feeds;
    this.rules = new IngestRules(nanoTime);
  }

  /** What ReportCacheState drops, and its counters. */
  public IngestRules rules() {
    return rules;
  }

  /**
   * Sends ReportCacheState and PublishEvent content to {@code forwarder} first; what it does not
   * take is applied here as without one; a sender it says owes a resync has its ReportCacheState
   * call ended (see {@link ReportCall}). Set before the server starts.
   */
  public void forwardTo(final IngestForwarder forwarder) {
    this.forwarder = forwarder;
    forwarder.whenResyncDue(this::askOwingSenders);
  }

  /** The validating ReportCacheState method (same full name and schema as the generated one). */
  public ServerMethodDefinition<?, ?> reportDefinition() {
    final MethodDescriptor<IngestMessage, Ack> report =
        InferenceCacheGrpc.getReportCacheStateMethod().toBuilder(
                new IngestMessage.Marshaller(), ProtoUtils.marshaller(Ack.getDefaultInstance()))
            .build();
    return ServerMethodDefinition.create(
        report, ServerCalls.asyncClientStreamingCall(this::report));
  }

  /** PublishEvent: forwarded, or applied here when admitted; always acknowledged. */
  public void publishEvent(final CacheEvent request, final StreamObserver<Ack> out) {
    final IngestForwarder f = forwarder;
    if (f == null || !f.forwardEvent(request)) {
      if (rules.admitEvent(request)) {
        index.applyEvent(IngestMapper.toEvent(request));
        if (feeds != null) {
          feeds.onEvent(request);
        }
      }
    }
    out.onNext(Ack.newBuilder().setAccepted(true).build());
    out.onCompleted();
  }

  /** ReportCacheState: one {@link ReportCall} per call. */
  private StreamObserver<IngestMessage> report(final StreamObserver<Ack> out) {
    return new ReportCall(out, forwarder, this::applyLocally, openReports);
  }

  /** An update this server indexes itself (no forwarder, or the forwarder did not take it). */
  private void applyLocally(final CacheStateUpdate u) {
    final IngestUpdate admitted = rules.admit(u);
    if (admitted == null) {
      return;
    }
    index.ingest(admitted);
    if (feeds != null) {
      feeds.onIngested(u);
    }
  }

  /** The forwarder can take messages again: ends the open calls of senders that owe a resync. */
  private void askOwingSenders() {
    for (ReportCall c : openReports) {
      c.resyncIfDue();
    }
  }
}
