package io.inferencecache.service.server;

import static io.inferencecache.service.server.Fixtures.MODEL;
import static io.inferencecache.service.server.Fixtures.SCHEME;
import static io.inferencecache.service.server.Fixtures.TENANT;
import static io.inferencecache.service.server.Fixtures.chainEntry;
import static io.inferencecache.service.server.Fixtures.chainRequest;
import static io.inferencecache.service.server.Fixtures.chainUpdate;
import static io.inferencecache.service.server.Fixtures.hash;
import static io.inferencecache.service.server.Fixtures.hashes;
import static io.inferencecache.service.server.Fixtures.legacyEntry;
import static io.inferencecache.service.server.Fixtures.legacyUpdate;
import static io.inferencecache.service.server.Fixtures.request;
import static io.inferencecache.service.server.Fixtures.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.ByteString;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ForwardingServerCall;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.protobuf.ProtoUtils;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.StreamObserver;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestStats;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheEvent;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.GetCacheStateRequest;
import io.inferencecache.proto.v1alpha1.GetCacheStateResponse;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupPDRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupPDRouteResponse;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.RenderTemplateRequest;
import io.inferencecache.proto.v1alpha1.RenderTemplateResponse;
import io.inferencecache.proto.v1alpha1.ReplicaStats;
import io.inferencecache.proto.v1alpha1.StreamEventsRequest;
import io.inferencecache.proto.v1alpha1.StreamMetricsRequest;
import io.inferencecache.service.ingest.IngestRules;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ReportCacheState, PublishEvent, GetCacheState and the stub RPCs over gRPC (docs/behaviour.md#rpcs
 * and docs/behaviour.md#probe-tenant, docs/behaviour.md#get-cache-state and
 * docs/behaviour.md#ingest and docs/behaviour.md#events).
 */
@Timeout(60)
class InferenceCacheIngestTest {
  final ReportSpy spy = new ReportSpy();
  ServiceHarness h;

  @BeforeEach
  void open() throws IOException {
    h = new ServiceHarness(new ServiceHarness.Options().intercept(spy));
  }

  @AfterEach
  void close() {
    h.close();
  }

  /** Records what the server did on ReportCacheState calls. */
  static final class ReportSpy implements ServerInterceptor {
    final AtomicInteger messagesSent = new AtomicInteger();
    final AtomicInteger closed = new AtomicInteger();
    final CountDownLatch cancelled = new CountDownLatch(1);

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        final ServerCall<Q, R> call, final Metadata headers, final ServerCallHandler<Q, R> next) {
      if (!call.getMethodDescriptor().getFullMethodName().endsWith("/ReportCacheState")) {
        return next.startCall(call, headers);
      }
      final ServerCall<Q, R> spied =
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void sendMessage(final R message) {
              messagesSent.incrementAndGet();
              super.sendMessage(message);
            }

            @Override
            public void close(final Status status, final Metadata trailers) {
              closed.incrementAndGet();
              super.close(status, trailers);
            }
          };
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(
          next.startCall(spied, headers)) {
        @Override
        public void onCancel() {
          cancelled.countDown();
          super.onCancel();
        }
      };
    }
  }

  static final MethodDescriptor<byte[], Ack> RAW_REPORT =
      InferenceCacheGrpc.getReportCacheStateMethod().toBuilder(
              new MethodDescriptor.Marshaller<byte[]>() {
                @Override
                public InputStream stream(final byte[] value) {
                  return new ByteArrayInputStream(value);
                }

                @Override
                public byte[] parse(final InputStream stream) {
                  throw new UnsupportedOperationException();
                }
              },
              ProtoUtils.marshaller(Ack.getDefaultInstance()))
          .build();

  /** Streams raw message bytes and returns the call's outcome (Ack or the error). */
  CompletableFuture<Ack> reportRaw(final byte[]... messages) {
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final ClientCall<byte[], Ack> call = h.channel.newCall(RAW_REPORT, CallOptions.DEFAULT);
    final StreamObserver<byte[]> in = ClientCalls.asyncClientStreamingCall(call, observer(done));
    for (byte[] m : messages) {
      in.onNext(m);
    }
    in.onCompleted();
    return done;
  }

  static <T> StreamObserver<T> observer(final CompletableFuture<T> done) {
    return new StreamObserver<>() {
      @Override
      public void onNext(final T value) {
        done.complete(value);
      }

      @Override
      public void onError(final Throwable t) {
        done.completeExceptionally(t);
      }

      @Override
      public void onCompleted() {
        done.completeExceptionally(new AssertionError("completed without a message"));
      }
    };
  }

  CompletableFuture<Ack> report(final CacheStateUpdate... updates) {
    final byte[][] raw = new byte[updates.length][];
    for (int i = 0; i < updates.length; i++) {
      raw[i] = updates[i].toByteArray();
    }
    return reportRaw(raw);
  }

  static Status statusOf(final CompletableFuture<Ack> f) throws Exception {
    try {
      f.get(10, TimeUnit.SECONDS);
      throw new AssertionError("expected the call to fail");
    } catch (ExecutionException e) {
      return Status.fromThrowable(e.getCause());
    }
  }

  /** {@code bytes} with the single occurrence of {@code marker} replaced (same length). */
  static byte[] patch(final byte[] bytes, final String marker, final byte[] replacement) {
    final byte[] m = marker.getBytes(StandardCharsets.US_ASCII);
    for (int i = 0; i + m.length <= bytes.length; i++) {
      if (java.util.Arrays.equals(bytes, i, i + m.length, m, 0, m.length)) {
        final byte[] out = bytes.clone();
        System.arraycopy(replacement, 0, out, i, replacement.length);
        return out;
      }
    }
    throw new AssertionError("marker not found");
  }

  static final byte[] INVALID_UTF8 = {(byte) 0xC3, 0x28, (byte) 0xC3, 0x28};

  String reasonFor(final List<ByteString> chain) {
    return h.stub.lookupRoute(chainRequest(chain, 16).build()).getReasonCode();
  }

  GetCacheStateResponse state(final String tenant) {
    return h.stub.getCacheState(
        GetCacheStateRequest.newBuilder().setTenantId(tenant).setModelId(MODEL).build());
  }

  // ---- ReportCacheState

  @Test
  void acksOnlyOnHalfClose() throws Exception {
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> in = h.asyncStub.reportCacheState(observer(done));
    in.onNext(chainUpdate("r-a", hashes(1, 4), 16));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> reasonFor(hashes(1, 4)).equals("PREFIX_MATCH"));
    await() // no Ack before half-close, for a while after the update was ingested
        .during(Duration.ofMillis(200))
        .atMost(Duration.ofSeconds(5))
        .until(() -> !done.isDone());
    in.onCompleted();
    final Ack ack = done.get(10, TimeUnit.SECONDS);
    assertThat(ack.getAccepted()).isTrue();
    assertThat(ack.getReasonCode()).isEmpty();
  }

  @Test
  void clientCancelMidStreamEndsTheCallWithAnErrorNotAnAck() throws Exception {
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final AtomicReference<ClientCallStreamObserver<CacheStateUpdate>> stream =
        new AtomicReference<>();
    final StreamObserver<Ack> responses = observer(done);
    h.asyncStub.reportCacheState(
        new ClientResponseObserver<CacheStateUpdate, Ack>() {
          @Override
          public void beforeStart(final ClientCallStreamObserver<CacheStateUpdate> requests) {
            stream.set(requests);
          }

          @Override
          public void onNext(final Ack value) {
            responses.onNext(value);
          }

          @Override
          public void onError(final Throwable t) {
            responses.onError(t);
          }

          @Override
          public void onCompleted() {
            responses.onCompleted();
          }
        });
    stream.get().onNext(chainUpdate("r-a", hashes(1, 4), 16));
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> reasonFor(hashes(1, 4)).equals("PREFIX_MATCH"));
    stream.get().cancel("client gone", null);
    assertThat(spy.cancelled.await(5, TimeUnit.SECONDS)).as("server saw the cancel").isTrue();
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(2))
        .until(() -> spy.messagesSent.get() == 0);
    assertThat(statusOf(done).getCode()).isEqualTo(Status.Code.CANCELLED);
    assertThat(reasonFor(hashes(1, 4)))
        .as("what arrived before the cancel stays")
        .isEqualTo("PREFIX_MATCH");
  }

  @Test
  void invalidUtf8ReplicaIdIsInvalidArgumentNamingTheFieldAndKeepsEarlierUpdates()
      throws Exception {
    final byte[] bad =
        patch(chainUpdate("RID!", hashes(2, 4), 16).toByteArray(), "RID!", INVALID_UTF8);
    final Status s =
        statusOf(
            reportRaw(
                chainUpdate("r-a", hashes(1, 4), 16).toByteArray(),
                bad,
                chainUpdate("r-c", hashes(3, 4), 16).toByteArray()));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("replica_id");
    assertThat(reasonFor(hashes(1, 4))).isEqualTo("PREFIX_MATCH");
    assertThat(reasonFor(hashes(2, 4))).isNotEqualTo("PREFIX_MATCH");
    assertThat(reasonFor(hashes(3, 4)))
        .as("the call ended at the bad message")
        .isNotEqualTo("PREFIX_MATCH");
  }

  @Test
  void invalidUtf8PrefixAdapterIdIsInvalidArgumentNamingPrefixIndex() throws Exception {
    final CacheStateUpdate u =
        update("r-b")
            .addPrefixes(legacyEntry(hash(2, 0), 64))
            .addPrefixes(chainEntry(hashes(2, 4), 16).setAdapterId("ADP!"))
            .build();
    final byte[] bad = patch(u.toByteArray(), "ADP!", INVALID_UTF8);
    final Status s = statusOf(reportRaw(chainUpdate("r-a", hashes(1, 4), 16).toByteArray(), bad));
    assertThat(s.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(s.getDescription()).contains("prefixes[1].adapter_id");
    assertThat(reasonFor(hashes(1, 4))).isEqualTo("PREFIX_MATCH");
  }

  @Test
  void hashOfExactly256BytesIsAccepted() throws Exception {
    final ByteString big = ByteString.copyFrom(new byte[256]);
    assertThat(report(legacyUpdate("r-a", big, 64)).get(10, TimeUnit.SECONDS).getAccepted())
        .isTrue();
    assertThat(h.stub.lookupRoute(request().setPrefixHash(big).build()).getReasonCode())
        .isEqualTo("PREFIX_MATCH");
  }

  @Test
  void reservedProbeTenantUpdatesAreSkippedWhileOthersAreIngested() throws Exception {
    final CacheStateUpdate probe =
        update("__probe-x")
            .setTenantId(CacheIndex.RESERVED_TENANT)
            .addPrefixes(legacyEntry(hash(5, 0), 64))
            .build();
    assertThat(
            report(probe, chainUpdate("r-a", hashes(1, 4), 16), probe)
                .get(10, TimeUnit.SECONDS)
                .getAccepted())
        .isTrue();
    assertThat(h.index.reservedEntries()).isZero();
    assertThat(h.index.totalKeys()).isEqualTo(4);
    assertThat(reasonFor(hashes(1, 4))).isEqualTo("PREFIX_MATCH");
  }

  @Test
  void clientVersionIsAcceptedAndTheReplicaLands() throws Exception {
    final CacheStateUpdate u =
        update("r-a")
            .addPrefixes(legacyEntry(hash(2, 0), 64))
            .setStats(ReplicaStats.newBuilder().setClientVersion("v0.9.1").setHitRate(0.5f))
            .build();
    assertThat(report(u).get(10, TimeUnit.SECONDS).getAccepted()).isTrue();
    final GetCacheStateResponse s = state(TENANT);
    assertThat(s.getReplicasList()).hasSize(1);
    assertThat(s.getReplicas(0).getReplicaId()).isEqualTo("r-a");
    assertThat(s.getReplicas(0).getHitRate()).isEqualTo(0.5f);
    assertThat(s.getReplicas(0).getClientVersion()).as("not stored").isEmpty();
  }

  @Test
  void statsOnlyUpdateCreatesTheStatsRowOnly() throws Exception {
    report(Fixtures.statsUpdate("r-a", 0.4f)).get(10, TimeUnit.SECONDS);
    final GetCacheStateResponse s = state(TENANT);
    assertThat(s.getReplicasList()).extracting(ReplicaStats::getReplicaId).containsExactly("r-a");
    assertThat(s.getSummary().getTotalPrefixes()).isZero();
    assertThat(h.index.totalKeys()).isZero();
  }

  // ---- PublishEvent

  Ack publish(final CacheEvent.Builder e) {
    return h.stub.publishEvent(e.build());
  }

  static CacheEvent.Builder event(final CacheEvent.Type type, final String replica) {
    return CacheEvent.newBuilder()
        .setType(type)
        .setReplicaId(replica)
        .setTenantId(TENANT)
        .setModelId(MODEL)
        .setPrefixHash(hash(2, 0));
  }

  @Test
  void prefixEvictedEventRemovesTheEntry() throws Exception {
    report(legacyUpdate("r-a", hash(2, 0), 128), legacyUpdate("r-b", hash(2, 0), 128))
        .get(10, TimeUnit.SECONDS);
    assertThat(publish(event(CacheEvent.Type.PREFIX_EVICTED, "r-a")).getAccepted()).isTrue();
    final LookupRouteResponse r = h.stub.lookupRoute(request().setPrefixHash(hash(2, 0)).build());
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getReplicaScoresList()).extracting(s -> s.getReplicaId()).containsExactly("r-b");
    assertThat(h.index.accessCount(TENANT, MODEL, SCHEME, "", hash(2, 0).toByteArray(), "r-a"))
        .isEqualTo(-1);
    assertThat(h.service.ingestRules().ingested(IngestRules.Ingested.EVENTS)).isEqualTo(1);
  }

  @Test
  void reservedProbeTenantEventsAreAcceptedButNotApplied() {
    h.index.ingest(
        new IngestUpdate(
            "__probe-x",
            MODEL,
            CacheIndex.RESERVED_TENANT,
            SCHEME,
            0,
            "",
            List.of(IngestPrefix.legacy(hash(2, 0).toByteArray(), 64, 1)),
            null));
    assertThat(h.index.reservedEntries()).isEqualTo(1);
    final Ack ack =
        publish(
            event(CacheEvent.Type.PREFIX_EVICTED, "__probe-x")
                .setTenantId(CacheIndex.RESERVED_TENANT));
    assertThat(ack.getAccepted()).isTrue();
    assertThat(
            publish(
                    event(CacheEvent.Type.ALL_CLEARED, "__probe-x")
                        .setTenantId(CacheIndex.RESERVED_TENANT))
                .getAccepted())
        .isTrue();
    assertThat(h.index.reservedEntries()).isEqualTo(1);
    assertThat(h.service.ingestRules().ingested(IngestRules.Ingested.EVENTS))
        .as("events of the reserved tenant are not counted as ingested")
        .isZero();
  }

  @Test
  void unknownAndUnspecifiedEventTypesAreIgnored() throws Exception {
    report(legacyUpdate("r-a", hash(2, 0), 128)).get(10, TimeUnit.SECONDS);
    assertThat(publish(event(CacheEvent.Type.PREFIX_EVICTED, "r-a").setTypeValue(42)).getAccepted())
        .isTrue();
    assertThat(publish(event(CacheEvent.Type.TYPE_UNSPECIFIED, "r-a")).getAccepted()).isTrue();
    assertThat(publish(event(CacheEvent.Type.PREFIX_ADDED, "r-a")).getAccepted()).isTrue();
    assertThat(h.stub.lookupRoute(request().setPrefixHash(hash(2, 0)).build()).getReasonCode())
        .isEqualTo("PREFIX_MATCH");
  }

  @Test
  void allClearedEventRemovesTheReplicaAndItsStats() throws Exception {
    report(
            update("r-a")
                .addPrefixes(legacyEntry(hash(2, 0), 128))
                .setStats(ReplicaStats.newBuilder().setHitRate(0.5f))
                .build())
        .get(10, TimeUnit.SECONDS);
    assertThat(publish(event(CacheEvent.Type.ALL_CLEARED, "r-a")).getAccepted()).isTrue();
    final GetCacheStateResponse s = state(TENANT);
    assertThat(s.getReplicasList()).isEmpty();
    assertThat(s.getSummary().getTotalPrefixes()).isZero();
  }

  // ---- GetCacheState

  @Test
  void getCacheStateReturnsTheAggregate() throws Exception {
    report(
            update("r-a")
                .addPrefixes(legacyEntry(hash(2, 0), 128))
                .setStats(
                    ReplicaStats.newBuilder()
                        .setCacheMemoryBytes(2048)
                        .setHitRate(0.5f)
                        .setPressure(0.25f)
                        .setT2HitTokens(600)
                        .setT2QueryTokens(1000))
                .build())
        .get(10, TimeUnit.SECONDS);
    final GetCacheStateResponse s = state(TENANT);
    assertThat(s.getSummary().getTotalPrefixes()).isEqualTo(1);
    assertThat(s.getSummary().getHotPrefixes()).isZero();
    assertThat(s.getReplicasList()).hasSize(1);
    final ReplicaStats r = s.getReplicas(0);
    assertThat(r.getReplicaId()).isEqualTo("r-a");
    assertThat(r.getCacheMemoryBytes()).isEqualTo(2048);
    assertThat(r.getHitRate()).isEqualTo(0.5f);
    assertThat(r.getPressure()).isEqualTo(0.25f);
    assertThat(r.getT2HitTokens()).isEqualTo(600);
    assertThat(r.getT2QueryTokens()).isEqualTo(1000);
  }

  @Test
  void getCacheStateForReservedProbeTenantIsAnEmptySummary() {
    h.index.ingest(
        new IngestUpdate(
            "__probe-x",
            MODEL,
            CacheIndex.RESERVED_TENANT,
            SCHEME,
            0,
            "",
            List.of(IngestPrefix.legacy(hash(2, 0).toByteArray(), 64, 1)),
            new IngestStats(2048, 0.5f, 0f, 0, 0)));
    final GetCacheStateResponse s = state(CacheIndex.RESERVED_TENANT);
    assertThat(s.hasSummary()).isTrue();
    assertThat(s.getSummary().getTotalPrefixes()).isZero();
    assertThat(s.getReplicasList()).isEmpty();
  }

  // ---- Stubs

  @Test
  void renderTemplateAnswersOkWithEmptyHash() {
    final RenderTemplateResponse r =
        h.stub.renderTemplate(
            RenderTemplateRequest.newBuilder()
                .setTemplateRef("ns/name")
                .setTenantId(TENANT)
                .build());
    assertThat(r.getReasonCode()).isEqualTo("OK");
    assertThat(r.getStablePrefixHash().isEmpty()).isTrue();
    assertThat(r.getRenderedPrompt().isEmpty()).isTrue();
  }

  @Test
  void lookupPdRouteWithoutATopologyFailsOpenWithoutAPair() throws Exception {
    report(legacyUpdate("r-a", hash(2, 0), 128)).get(10, TimeUnit.SECONDS);
    final LookupPDRouteResponse r =
        h.stub.lookupPDRoute(
            LookupPDRouteRequest.newBuilder()
                .setTenantId(TENANT)
                .setModelId(MODEL)
                .setPrefixHash(hash(2, 0))
                .build());
    assertThat(r.getReasonCode()).isEqualTo("PD_TOPOLOGY_NOT_FOUND");
    assertThat(r.getPrefillReplicaId()).isEmpty();
    assertThat(r.getDecodeReplicaId()).isEmpty();
    assertThat(r.getMessage()).isNotEmpty();
  }

  @Test
  void streamingStubsCloseImmediatelyWithoutMessages() {
    assertThat(h.stub.streamCacheEvents(StreamEventsRequest.getDefaultInstance()).hasNext())
        .isFalse();
    assertThat(h.stub.streamMetrics(StreamMetricsRequest.getDefaultInstance()).hasNext()).isFalse();
  }
}
