package io.inferencecache.service.pd;

import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.LookupRequest;
import io.inferencecache.engine.PdRouteRequest;
import io.inferencecache.engine.PdRouteResult;
import io.inferencecache.engine.PdRouter;
import io.inferencecache.engine.ReasonCodes;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupPDRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupPDRouteResponse;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * LookupPDRoute over one index: the request copied into this thread's {@link PdRouteRequest}, one
 * {@link PdRouter#route} call (every rule is there, docs/behaviour.md#lookup-pd-route), the result
 * built into the response, the call recorded. The caller's gRPC deadline and the tenant policy's
 * {@code lookupTimeoutMs} bound the decision (it never blocks: no tokenizer, no lock, so no
 * watchdog is needed). Fail-open: every outcome is a response with a reason code, never an RPC
 * error. Thread-safe; allocation on a warm call is only the generated messages'.
 */
public final class LookupPdRoutes {
  /** Message of a call the server shed under overload. */
  static final String MSG_SHED = "shed: the server is overloaded";

  private final PdRouter router;
  private final LongSupplier nanoTime;
  private volatile PdRouteMetrics metrics = PdRouteMetrics.NOOP;

  private static final class Scratch {
    final PdRouteRequest in = new PdRouteRequest();
    final PdRouteResult out = new PdRouteResult();
    byte[] hash = new byte[64];

    /** A buffer of at least {@code n} bytes for one hash. */
    byte[] hash(final int n) {
      if (hash.length < n) {
        hash = new byte[Math.max(n, hash.length * 2)];
      }
      return hash;
    }
  }

  private final ThreadLocal<Scratch> scratch = ThreadLocal.withInitial(Scratch::new);

  /** LookupPDRoute over {@code index}'s topologies, on {@code nanoTime}'s clock. */
  public LookupPdRoutes(final CacheIndex index, final LongSupplier nanoTime) {
    this.router = new PdRouter(index, nanoTime);
    this.nanoTime = nanoTime;
  }

  /** Where calls are recorded (set before the server starts; NOOP until then). */
  public void metrics(final PdRouteMetrics m) {
    this.metrics = Objects.requireNonNull(m, "metrics");
  }

  /** The engine decision (for tests and benchmarks). */
  public PdRouter router() {
    return router;
  }

  /** Answers one LookupPDRoute on the calling gRPC handler thread. */
  public void answer(
      final LookupPDRouteRequest request, final StreamObserver<LookupPDRouteResponse> out) {
    final Deadline d = Context.current().getDeadline();
    final long start = nanoTime.getAsLong();
    final long deadline =
        d == null ? Long.MAX_VALUE : start + d.timeRemaining(TimeUnit.NANOSECONDS);
    out.onNext(answer(request, start, deadline));
    out.onCompleted();
  }

  /**
   * Answers one request without a transport (the in-process path of tests and benchmarks).
   *
   * @param start the router-clock time the call arrived
   * @param deadline the router-clock deadline ({@link Long#MAX_VALUE}: none)
   */
  public LookupPDRouteResponse answer(
      final LookupPDRouteRequest request, final long start, final long deadline) {
    final Scratch s = scratch.get();
    fill(request, s);
    router.route(s.in, s.out, start, deadline);
    final PdRouteResult r = s.out;
    if (r.internalError()) {
      metrics.internalError();
    }
    metrics.record(r.reasonCode(), nanoTime.getAsLong() - start);
    return toProto(r);
  }

  /**
   * Answers a LookupPDRoute the server shed under overload: NO_HINT with status OK (fail-open);
   * returns false for other methods.
   */
  @SuppressWarnings("unchecked")
  public boolean answerShed(final ServerCall<?, ?> call) {
    if (!call.getMethodDescriptor()
        .getFullMethodName()
        .equals(InferenceCacheGrpc.getLookupPDRouteMethod().getFullMethodName())) {
      return false;
    }
    metrics.record(ReasonCodes.NO_HINT, 0);
    call.sendHeaders(new Metadata());
    ((ServerCall<?, LookupPDRouteResponse>) call)
        .sendMessage(
            LookupPDRouteResponse.newBuilder()
                .setReasonCode(ReasonCodes.NO_HINT)
                .setMessage(MSG_SHED)
                .build());
    call.close(Status.OK, new Metadata());
    return true;
  }

  /** Copies the generated request into {@code s}'s request (no copy of a hash on the heap). */
  private static void fill(final LookupPDRouteRequest request, final Scratch s) {
    final PdRouteRequest in = s.in;
    in.reset().topologyRef(request.getPdTopologyRef()).promptTokens(request.getPromptTokenCount());
    final LookupRequest q = in.request();
    q.keys(
        request.getTenantId(),
        request.getModelId(),
        request.getHashScheme(),
        request.getAdapterId());
    final int hashes = request.getBlockHashesCount();
    final int counts = request.getBlockTokenCountsCount();
    if (hashes > 0 || counts > 0) {
      for (int i = 0; i < hashes; i++) {
        final ByteString h = request.getBlockHashes(i);
        final byte[] b = s.hash(h.size());
        h.copyTo(b, 0);
        q.addBlockHash(b, 0, h.size());
      }
      for (int i = 0; i < counts; i++) {
        q.addBlockTokenCount(request.getBlockTokenCounts(i));
      }
    } else if (!request.getPrefixHash().isEmpty()) {
      final ByteString h = request.getPrefixHash();
      final byte[] b = s.hash(h.size());
      h.copyTo(b, 0);
      q.exact(b, 0, h.size(), request.getPrefixTokenCount());
    }
  }

  static LookupPDRouteResponse toProto(final PdRouteResult r) {
    return LookupPDRouteResponse.newBuilder()
        .setReasonCode(r.reasonCode())
        .setPrefillReplicaId(r.prefillReplica())
        .setDecodeReplicaId(r.decodeReplica())
        .setTransportHint(r.transportHint())
        .setPrefillMatchedTokens(r.prefillMatchedTokens())
        .setPrefillPool(r.prefillPool())
        .setDecodePool(r.decodePool())
        .setMessage(r.message())
        .setLookupLatencyUs(r.latencyMicros())
        .setPdTopology(r.topologyRef())
        .build();
  }
}
