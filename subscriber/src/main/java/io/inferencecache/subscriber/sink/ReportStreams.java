package io.inferencecache.subscriber.sink;

import io.grpc.Status;
import io.grpc.stub.ClientCallStreamObserver;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import io.inferencecache.subscriber.index.PrefixRecord;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The stream and barrier protocol of the event path. Reports go onto one open {@code
 * ReportCacheState} stream that stays open across windows. The server confirms a stream's messages
 * only when it is half-closed (its {@code Ack}), so a {@link #barrier} half-closes the stream and
 * waits for that Ack; the next report opens a new stream. The stream is also rotated every {@value
 * GrpcUpdateSink#ROTATE_ENTRIES} entries. A stream that fails or ends before its Ack may have lost
 * what was sent on it: counted as unconfirmed, the connection marked lost and (unless the caller
 * says the loss is superseded) a resync asked for. The sender thread's only.
 */
final class ReportStreams {
  private static final Logger LOG = LoggerFactory.getLogger(GrpcUpdateSink.class);

  private final InferenceCacheGrpc.InferenceCacheStub stub;
  private final long rpcTimeoutNanos;
  private final SinkQueue queue;
  private final Connection connection;
  private final SinkCounters counters;
  private final String target;
  private final String replicaId;
  private final LogThrottle lossLog;
  private final CacheStateUpdate.Builder updateBuilder = CacheStateUpdate.newBuilder();
  private final PrefixEntry.Builder entryBuilder = PrefixEntry.newBuilder();
  private ReportStream stream;

  ReportStreams(
      final InferenceCacheGrpc.InferenceCacheStub stub,
      final long rpcTimeoutNanos,
      final SinkQueue queue,
      final Connection connection,
      final SinkCounters counters,
      final String target,
      final String replicaId,
      final LogThrottle lossLog) {
    this.stub = stub;
    this.rpcTimeoutNanos = rpcTimeoutNanos;
    this.queue = queue;
    this.connection = connection;
    this.counters = counters;
    this.target = target;
    this.replicaId = replicaId;
    this.lossLog = lossLog;
  }

  /** The open stream, or null. */
  ReportStream open() {
    return stream;
  }

  /** Notices a stream the server ended or that failed; everything unconfirmed on it is lost. */
  void check() {
    final ReportStream s = stream;
    if (s != null && s.done.isDone()) {
      stream = null;
      lost(s, true, "the server ended the stream: " + ending(s));
    }
  }

  /** The status a finished stream ended with (e.g. a replicated server's resync request). */
  private static String ending(final ReportStream s) {
    try {
      s.done.getNow(null);
      return "OK before its Ack was asked for";
    } catch (CompletionException | CancellationException e) {
      return String.valueOf(Status.fromThrowable(e.getCause() != null ? e.getCause() : e));
    }
  }

  /**
   * Sends {@code r} on the open stream (opening one if needed) and takes it off the queue; then
   * rotates the stream when it carries {@value GrpcUpdateSink#ROTATE_ENTRIES} entries. A report
   * that cannot be sent stays queued (a resync supersedes it once connected).
   */
  void send(final SinkOp.Report r) {
    if (stream == null) {
      stream = new ReportStream();
      stub.reportCacheState(stream);
      counters.streamsOpened.incrementAndGet();
    }
    final ReportStream s = stream;
    if (!awaitReady(s)) {
      stream = null;
      s.requests.cancel("not ready for " + rpcTimeoutNanos / 1_000_000 + " ms", null);
      lost(s, true, "the stream stayed not ready");
      return;
    }
    final List<PrefixRecord> prefixes = r.update.prefixes();
    final CacheStateUpdate message = ProtoMapping.toProto(r.update, updateBuilder, entryBuilder);
    for (int i = 0; i < prefixes.size(); i++) {
      s.remember(prefixes.get(i).prefixHashUnsafe());
    }
    try {
      s.requests.onNext(message);
    } catch (RuntimeException e) {
      stream = null;
      lost(s, true, String.valueOf(e));
      return;
    }
    s.updates++;
    s.entries += prefixes.size();
    counters.updatesSent.incrementAndGet();
    counters.entriesSent.addAndGet(prefixes.size());
    queue.done(r);
    if (s.entries >= GrpcUpdateSink.ROTATE_ENTRIES) {
      barrier(true);
    }
  }

  private boolean awaitReady(final ReportStream s) {
    final ClientCallStreamObserver<CacheStateUpdate> call = s.requests;
    if (call.isReady()) {
      return true;
    }
    final long deadline = System.nanoTime() + rpcTimeoutNanos;
    synchronized (s.readyMonitor) {
      while (!call.isReady() && !s.done.isDone()) {
        final long now = System.nanoTime();
        final long left = deadline - now;
        if (left <= 0 || now - queue.closeDeadline() >= 0) {
          return false;
        }
        try {
          TimeUnit.NANOSECONDS.timedWait(s.readyMonitor, Math.min(left, SinkQueue.POLL_NANOS));
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return false;
        }
      }
    }
    return !s.done.isDone();
  }

  /**
   * Half-closes the open stream and waits for its Ack: everything sent on it is then ingested.
   * Returns false if the stream failed instead ({@code countLoss}: whether that loss needs a
   * resync). True when no stream is open.
   */
  boolean barrier(final boolean countLoss) {
    final ReportStream s = stream;
    if (s == null) {
      return true;
    }
    stream = null;
    try {
      s.requests.onCompleted();
      s.done.get(rpcTimeoutNanos, TimeUnit.NANOSECONDS);
      connection.succeeded();
      return true;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      s.requests.cancel("sink interrupted", null);
      lost(s, countLoss, "interrupted");
    } catch (TimeoutException e) {
      s.requests.cancel("no Ack in time", null);
      lost(s, countLoss, "no Ack within the deadline");
    } catch (ExecutionException | RuntimeException e) {
      lost(s, countLoss, String.valueOf(Status.fromThrowable(e)));
    }
    return false;
  }

  private void lost(final ReportStream s, final boolean countLoss, final String why) {
    connection.lost();
    if (s.updates == 0) {
      return;
    }
    counters.updatesUnconfirmed.addAndGet(s.updates);
    counters.entriesUnconfirmed.addAndGet(s.entries);
    if (countLoss) {
      queue.markLost();
    }
    if (lossLog.allow()) {
      LOG.warn(
          "event=sink_stream_lost server={} replica={} unconfirmed_updates={}"
              + " unconfirmed_entries={} total_unconfirmed_updates={} reason=\"{}\": the server may"
              + " not have ingested them; a resync follows once it is back",
          target,
          replicaId,
          s.updates,
          s.entries,
          counters.updatesUnconfirmed(),
          why);
    }
  }
}
