package io.inferencecache.service.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import io.grpc.stub.StreamObserver;
import io.inferencecache.proto.v1alpha1.Ack;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.InferenceCacheGrpc;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.PrefixEntry;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(30)
class LookupRouteEndToEndTest {

  static void report(final ServiceHarness h, final CacheStateUpdate... updates) throws Exception {
    final CompletableFuture<Ack> done = new CompletableFuture<>();
    final StreamObserver<CacheStateUpdate> in =
        InferenceCacheGrpc.newStub(h.channel)
            .reportCacheState(
                new StreamObserver<>() {
                  @Override
                  public void onNext(final Ack value) {
                    done.complete(value);
                  }

                  @Override
                  public void onError(final Throwable t) {
                    done.completeExceptionally(t);
                  }

                  @Override
                  public void onCompleted() {}
                });
    for (CacheStateUpdate u : updates) {
      in.onNext(u);
    }
    in.onCompleted();
    assertThat(done.get(10, TimeUnit.SECONDS).getAccepted()).isTrue();
  }

  static ByteString hash(final int i) {
    return ByteString.copyFrom(new byte[] {0, 0, 0, 0, 0, 0, (byte) (i >>> 8), (byte) i});
  }

  @ParameterizedTest(name = "zeroCopy={0}")
  @ValueSource(booleans = {true, false})
  void reportedChainIsFoundAsPrefixMatchWithMatchedTokens(final boolean zeroCopy) throws Exception {
    try (ServiceHarness h = ServiceHarness.defaults(zeroCopy)) {
      final PrefixEntry.Builder chain = PrefixEntry.newBuilder();
      for (int i = 0; i < 8; i++) {
        chain.addBlockHashes(hash(i)).addBlockTokenCounts(16);
      }
      report(
          h,
          CacheStateUpdate.newBuilder()
              .setReplicaId("vllm-0")
              .setModelId("llama-3.1-8b")
              .setTenantId("team-a")
              .setHashScheme("vllm")
              .addPrefixes(chain)
              .build());
      final LookupRouteRequest.Builder q =
          LookupRouteRequest.newBuilder()
              .setModelId("llama-3.1-8b")
              .setTenantId("team-a")
              .setHashScheme("vllm")
              .setAdapterId("");
      for (int i = 0; i < 10; i++) {
        q.addBlockHashes(hash(i)).addBlockTokenCounts(16);
      }
      for (int round = 0; round < 3; round++) {
        final LookupRouteResponse r = h.stub.lookupRoute(q.build());
        assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
        assertThat(r.getReplicaScoresCount()).isEqualTo(1);
        assertThat(r.getReplicaScores(0).getReplicaId()).isEqualTo("vllm-0");
        assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(128);
        assertThat(r.getReplicaScores(0).getScore())
            .isCloseTo(128f, org.assertj.core.data.Offset.offset(0.5f));
        assertThat(r.getReplicaScores(0).getTierValue()).isEqualTo(1);
        assertThat(r.getReplicaScores(0).getEstimatedCacheHitProb()).isGreaterThan(0.99f);
      }
      final LookupRouteResponse miss =
          h.stub.lookupRoute(
              LookupRouteRequest.newBuilder()
                  .setModelId("other")
                  .setTenantId("team-a")
                  .setHashScheme("vllm")
                  .addBlockHashes(hash(1))
                  .addBlockTokenCounts(16)
                  .build());
      assertThat(miss.getReasonCode()).isEqualTo("UNKNOWN_MODEL");
      assertThat(miss.getReplicaScoresCount()).isZero();
    }
  }
}
