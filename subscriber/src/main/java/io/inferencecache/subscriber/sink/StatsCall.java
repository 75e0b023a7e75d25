package io.inferencecache.subscriber.sink;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.subscriber.decode.StatsSample;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The stats path's RPC: one stats-only update on its own short {@code ReportCacheState} stream,
 * waited for synchronously (the stats reporter's thread). Independent of the event path's queue and
 * stream. Thread-safe.
 */
final class StatsCall {
  private final InferenceCacheGrpc.InferenceCacheStub stub;
  private final ProtoMapping mapping;
  private final long rpcTimeoutNanos;
  private final SinkCounters counters;
  private final String target;

  StatsCall(
      final InferenceCacheGrpc.InferenceCacheStub stub,
      final ProtoMapping mapping,
      final long rpcTimeoutNanos,
      final SinkCounters counters,
      final String target) {
    this.stub = stub;
    this.mapping = mapping;
    this.rpcTimeoutNanos = rpcTimeoutNanos;
    this.counters = counters;
    this.target = target;
  }

  /**
   * Sends {@code sample} and waits for the server's Ack.
   *
   * @throws IllegalStateException when not delivered within the RPC timeout (the status named)
   */
  void send(final StatsSample sample, final long timestampMicros) {
    final CacheStateUpdate update = mapping.stats(sample, timestampMicros);
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> call =
        stub.withDeadlineAfter(rpcTimeoutNanos, TimeUnit.NANOSECONDS)
            .reportCacheState(
                new StreamObserver<>() {
                  @Override
                  public void onNext(final Ack ack) {
                    done.complete(ack);
                  }

                  @Override
                  public void onError(final Throwable t) {
                    done.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {
                    done.complete(Ack.getDefaultInstance());
                  }
                });
    call.onNext(update);
    call.onCompleted();
    try {
      done.get(rpcTimeoutNanos + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
      counters.statsSent.incrementAndGet();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      counters.statsFailed.incrementAndGet();
      throw new IllegalStateException("interrupted while reporting stats", e);
    } catch (ExecutionException | TimeoutException e) {
      counters.statsFailed.incrementAndGet();
      final Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new IllegalStateException(
          "ReportCacheState(stats) to " + target + ": " + Status.fromThrowable(cause), cause);
    }
  }
}
