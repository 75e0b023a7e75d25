package io.inferencecache.service.ingest;

import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One ReportCacheState call. Each update is handled as it arrives (the next message is requested
 * only after, so gRPC flow control slows a producer that outpaces ingest); Ack on half-close. A
 * message that is not a valid CacheStateUpdate ends the call with INVALID_ARGUMENT naming the
 * field, keeping what was accepted before it ({@link IngestRules} decides what smaller defects
 * cost).
 *
 * <p>With a forwarder (replication), each update is offered to it first and applied here only when
 * it does not take it; and when the forwarder says the call's sender owes the stream a resync, the
 * call ends with ABORTED and the forwarder's reason instead of taking the message: on the sender's
 * next message, or at once from {@link #resyncIfDue} for a sender whose call is open but idle.
 */
final class ReportCall implements StreamObserver<IngestMessage> {
  private static final Logger LOG = LoggerFactory.getLogger(ReportCall.class);

  private final StreamObserver<Ack> out;
  private final IngestForwarder forwarder;
  private final Consumer<CacheStateUpdate> applyLocally;
  private final Set<ReportCall> open;
  private final AtomicBoolean ended = new AtomicBoolean();
  private volatile Sender sender;

  /** The engine replica the call's latest update came from. */
  private record Sender(String tenantId, String modelId, String replicaId) {
    boolean sent(final CacheStateUpdate u) {
      return replicaId.equals(u.getReplicaId())
          && modelId.equals(u.getModelId())
          && tenantId.equals(u.getTenantId());
    }
  }

  /**
   * @param forwarder null without replication
   * @param open the service's open calls with a forwarder: this call is in it until it ends
   */
  ReportCall(
      final StreamObserver<Ack> out,
      final IngestForwarder forwarder,
      final Consumer<CacheStateUpdate> applyLocally,
      final Set<ReportCall> open) {
    this.out = out;
    this.forwarder = forwarder;
    this.applyLocally = applyLocally;
    this.open = open;
    if (forwarder != null) {
      open.add(this);
    }
  }

  @Override
  public void onNext(final IngestMessage m) {
    if (ended.get()) {
      return;
    }
    if (m.error() != null) {
      end(Status.INVALID_ARGUMENT.withDescription(m.error()));
      return;
    }
    final CacheStateUpdate u = m.update();
    final IngestForwarder f = forwarder;
    if (f != null) {
      Sender s = sender;
      if (s == null || !s.sent(u)) {
        s = new Sender(u.getTenantId(), u.getModelId(), u.getReplicaId());
        sender = s;
      }
      if (askResync(f, s)) {
        return;
      }
      if (f.forwardUpdate(u)) {
        return;
      }
    }
    applyLocally.accept(u);
  }

  /**
   * Ends the call if its sender owes the stream a resync (any thread; the broker connection's
   * thread when it comes back).
   */
  void resyncIfDue() {
    final Sender s = sender;
    if (s != null && !ended.get()) {
      askResync(forwarder, s);
    }
  }

  private boolean askResync(final IngestForwarder f, final Sender s) {
    final String why = f.resyncReason(s.tenantId(), s.modelId(), s.replicaId());
    if (why == null) {
      return false;
    }
    if (claimEnd()) {
      // Recorded before the sender hears ABORTED, so a resync it sends at once is taken.
      f.resyncAsked(s.tenantId(), s.modelId(), s.replicaId());
      out.onError(Status.ABORTED.withDescription(why).asRuntimeException());
    }
    return true;
  }

  private boolean end(final Status status) {
    if (!claimEnd()) {
      return false;
    }
    out.onError(status.asRuntimeException());
    return true;
  }

  /** Claims the end of this call for the caller (false if it has ended already). */
  private boolean claimEnd() {
    if (!ended.compareAndSet(false, true)) {
      return false;
    }
    open.remove(this);
    return true;
  }

  @Override
  public void onError(final Throwable t) {
    ended.set(true);
    open.remove(this);
    LOG.debug("event=report_cache_state_stream_error reason=\"{}\"", String.valueOf(t));
  }

  @Override
  public void onCompleted() {
    if (ended.compareAndSet(false, true)) {
      open.remove(this);
      out.onNext(Ack.newBuilder().setAccepted(true).build());
      out.onCompleted();
    }
  }
}
