package io.inferencecache.perf.service;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.ClientCalls;
import io.inferencecache.perf.workload.SyntheticChains;
import io.inferencecache.perf.workload.Workload;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The one caller of {@link WideFleetLoopback}: a plaintext grpc-netty client on loopback that loads
 * a shape through one ReportCacheState stream (pre-serialized updates, sent as flow control allows)
 * and runs LookupRoute one call at a time (pre-serialized requests, blocking), keeping every round
 * trip and the response sizes.
 */
final class WideFleetClient implements AutoCloseable {
  static final MethodDescriptor<byte[], byte[]> REPORT =
      InferenceCacheGrpc.getReportCacheStateMethod().toBuilder(
              LoopbackClient.BYTES, LoopbackClient.BYTES)
          .build();

  private final ManagedChannel channel;

  WideFleetClient(final String host, final int port) {
    this.channel =
        NettyChannelBuilder.forAddress(host, port)
            .usePlaintext()
            .directExecutor()
            .maxInboundMessageSize(16 << 20)
            .build();
  }

  /**
   * The serialized ReportCacheState updates that load {@code w}: chain by chain, each holder's
   * report of the whole chain (the first creates the chain's keys, the others add a holder).
   */
  static byte[][] reports(final SyntheticChains w) {
    return reports(w, Workload.MODEL, w.chains());
  }

  /**
   * As {@link #reports(SyntheticChains)}, for the first {@code chains} chains, in {@code model}.
   */
  static byte[][] reports(final SyntheticChains w, final String model, final int chains) {
    final int holders = w.holders();
    final byte[][] out = new byte[chains * holders][];
    int i = 0;
    for (int c = 0; c < chains; c++) {
      final PrefixEntry.Builder e = PrefixEntry.newBuilder();
      for (int b = 0; b < w.blocks(); b++) {
        e.addBlockHashes(ByteString.copyFrom(Workload.hashOf(w.blockHash(c, b))));
        e.addBlockTokenCounts(ServiceFixture.TOKENS_PER_BLOCK);
      }
      final PrefixEntry entry = e.build();
      for (int r : w.holdersOf(c)) {
        out[i++] =
            CacheStateUpdate.newBuilder()
                .setReplicaId(w.replicaName(r))
                .setModelId(model)
                .setTenantId(Workload.TENANT)
                .setHashScheme(Workload.SCHEME)
                .addPrefixes(entry)
                .build()
                .toByteArray();
      }
    }
    return out;
  }

  /**
   * Sends {@code updates} on one ReportCacheState stream and waits for its Ack (the server acks
   * after it has applied every message); returns the nanoseconds from the first send to the Ack.
   */
  long report(final byte[][] updates) throws Exception {
    final CompletableFuture<byte[]> ack = new CompletableFuture<>();
    final ClientCall<byte[], byte[]> call = channel.newCall(REPORT, CallOptions.DEFAULT);
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onMessage(final byte[] message) {
            ack.complete(message);
          }

          @Override
          public void onClose(final Status status, final Metadata trailers) {
            if (!status.isOk()) {
              ack.completeExceptionally(status.asRuntimeException());
            } else if (!ack.isDone()) {
              ack.completeExceptionally(new IllegalStateException("stream closed without an Ack"));
            }
          }
        },
        new Metadata());
    call.request(1);
    final long t0 = System.nanoTime();
    for (byte[] u : updates) {
      final long stuckAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
      while (!call.isReady()) {
        if (ack.isDone()) {
          throw new IllegalStateException(
              "ReportCacheState ended early: " + ack.handle((a, t) -> t));
        }
        if (System.nanoTime() - stuckAt > 0) {
          throw new IllegalStateException("ReportCacheState stream not ready for 120 s");
        }
        LockSupport.parkNanos(20_000);
      }
      call.sendMessage(u);
    }
    call.halfClose();
    final Ack a = Ack.parseFrom(ack.get(300, TimeUnit.SECONDS));
    final long nanos = System.nanoTime() - t0;
    if (!a.getAccepted()) {
      throw new IllegalStateException("ReportCacheState not accepted: " + a.getReasonCode());
    }
    return nanos;
  }

  /** PublishEvent ALL_CLEARED for each of {@code w}'s {@code replicas} in {@code model}. */
  void clear(final SyntheticChains w, final int replicas, final String model) {
    final InferenceCacheGrpc.InferenceCacheBlockingStub stub =
        InferenceCacheGrpc.newBlockingStub(channel).withDeadlineAfter(60, TimeUnit.SECONDS);
    for (int r = 0; r < replicas; r++) {
      final Ack a =
          stub.publishEvent(
              CacheEvent.newBuilder()
                  .setType(CacheEvent.Type.ALL_CLEARED)
                  .setReplicaId(w.replicaName(r))
                  .setModelId(model)
                  .setTenantId(Workload.TENANT)
                  .build());
      if (!a.getAccepted()) {
        throw new IllegalStateException("ALL_CLEARED not accepted: " + a.getReasonCode());
      }
    }
  }

  /** One LookupRoute round trip, blocking; the response's bytes. */
  byte[] lookup(final byte[] request) {
    return ClientCalls.blockingUnaryCall(
        channel,
        LoopbackClient.LOOKUP,
        CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS),
        request);
  }

  /** Throws unless each of the first requests answers PREFIX_MATCH by {@code expected} replicas. */
  void check(final byte[][] requests, final int expected, final String what) throws Exception {
    for (int i = 0; i < Math.min(16, requests.length); i++) {
      ServiceFixture.check(
          LookupRouteResponse.parseFrom(lookup(requests[i])), expected, what + " request " + i);
    }
  }

  /** What one window of lookups measured on the client. */
  record Window(long calls, long[] sortedRoundTripNanos, double meanResponseBytes) {}

  /**
   * One caller, one call at a time, cycling through {@code requests}, for {@code seconds} (at most
   * {@code maxCalls} calls).
   */
  Window lookups(final byte[][] requests, final double seconds, final int maxCalls) {
    final long[] rtt = new long[maxCalls];
    long bytes = 0;
    int n = 0;
    final long stopAt = System.nanoTime() + (long) (seconds * 1e9);
    while (n < maxCalls && System.nanoTime() - stopAt < 0) {
      final byte[] req = requests[n % requests.length];
      final long t0 = System.nanoTime();
      final byte[] resp = lookup(req);
      rtt[n] = System.nanoTime() - t0;
      bytes += resp.length;
      n++;
    }
    final long[] sorted = Arrays.copyOf(rtt, n);
    Arrays.sort(sorted);
    return new Window(n, sorted, n == 0 ? Double.NaN : (double) bytes / n);
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
