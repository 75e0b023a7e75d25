package io.inferencecache.subscriber.sink;

import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The event path's unary {@code PublishEvent}s: clears, and evictions batched. Before an event that
 * could overtake an unconfirmed report — an eviction of a prefix reported on the open stream, or
 * any clear — the open stream is confirmed first ({@link ReportStreams#barrier}). A run of queued
 * evictions (up to {@value GrpcUpdateSink#MAX_EVICTIONS_IN_FLIGHT}) is sent concurrently and
 * awaited together; each call has the RPC deadline. A failed call stays queued for another attempt
 * after reconnecting and is dropped after {@value GrpcUpdateSink#MAX_ATTEMPTS}. The sender thread's
 * only.
 */
final class EventPublisher {
  private final InferenceCacheGrpc.InferenceCacheFutureStub stub;
  private final long rpcTimeoutNanos;
  private final ProtoMapping mapping;
  private final SinkQueue queue;
  private final ReportStreams streams;
  private final Connection connection;
  private final SinkCounters counters;
  private final CacheEvent.Builder eventBuilder = CacheEvent.newBuilder();

  EventPublisher(
      final InferenceCacheGrpc.InferenceCacheFutureStub stub,
      final long rpcTimeoutNanos,
      final ProtoMapping mapping,
      final SinkQueue queue,
      final ReportStreams streams,
      final Connection connection,
      final SinkCounters counters) {
    this.stub = stub;
    this.rpcTimeoutNanos = rpcTimeoutNanos;
    this.mapping = mapping;
    this.queue = queue;
    this.streams = streams;
    this.connection = connection;
    this.counters = counters;
  }

  /** Sends a clear once everything reported before it is confirmed. */
  void sendClear(final SinkOp.Clear c) {
    // A failure of that stream is superseded by the clear itself.
    if (streams.open() != null && !streams.barrier(false)) {
      return; // reconnect first, then send the clear
    }
    final CacheEvent event = mapping.clearEvent(eventBuilder, c.timestampMicros);
    final Future<Ack> f =
        stub.withDeadlineAfter(rpcTimeoutNanos, TimeUnit.NANOSECONDS).publishEvent(event);
    if (await(f)) {
      counters.eventsSent.incrementAndGet();
      queue.done(c);
      connection.succeeded();
    } else {
      failed(List.of(c));
    }
  }

  /** Sends the run of evictions that starts with {@code first} (unless a resync superseded it). */
  void sendEvictions(final SinkOp.Evict first) {
    final List<SinkOp.Evict> run = queue.leadingEvictions(GrpcUpdateSink.MAX_EVICTIONS_IN_FLIGHT);
    if (run.isEmpty() || run.get(0) != first) {
      return; // superseded meanwhile
    }
    final ReportStream s = streams.open();
    if (s != null) {
      for (SinkOp.Evict e : run) {
        if (s.conflicts(e.hash)) {
          if (!streams.barrier(true)) {
            return; // reconnect (and resync) first
          }
          break;
        }
      }
    }
    final List<Future<Ack>> calls = new ArrayList<>(run.size());
    final InferenceCacheGrpc.InferenceCacheFutureStub deadlined =
        stub.withDeadlineAfter(rpcTimeoutNanos, TimeUnit.NANOSECONDS);
    for (SinkOp.Evict e : run) {
      calls.add(
          deadlined.publishEvent(
              mapping.eviction(eventBuilder, e.hash, e.adapterId, e.timestampMicros)));
    }
    final List<SinkOp.Evict> delivered = new ArrayList<>(run.size());
    final List<SinkOp.Evict> failed = new ArrayList<>();
    for (int i = 0; i < run.size(); i++) {
      if (await(calls.get(i))) {
        counters.eventsSent.incrementAndGet();
        delivered.add(run.get(i));
      } else {
        failed.add(run.get(i));
      }
    }
    queue.removeDelivered(delivered);
    if (failed.isEmpty()) {
      connection.succeeded();
    } else {
      failed(failed);
    }
  }

  private boolean await(final Future<Ack> f) {
    try {
      f.get(rpcTimeoutNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      f.cancel(true);
      return false;
    } catch (ExecutionException | TimeoutException e) {
      f.cancel(true);
      return false;
    }
  }

  private void failed(final List<? extends SinkOp> failed) {
    connection.lost();
    queue.failed(failed, GrpcUpdateSink.MAX_ATTEMPTS);
  }
}
