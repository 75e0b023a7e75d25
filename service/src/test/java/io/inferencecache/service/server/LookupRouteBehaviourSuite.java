package io.inferencecache.service.server;

import static io.inferencecache.service.server.Fixtures.MODEL;
import static io.inferencecache.service.server.Fixtures.SCHEME;
import static io.inferencecache.service.server.Fixtures.TENANT;
import static io.inferencecache.service.server.Fixtures.boxed;
import static io.inferencecache.service.server.Fixtures.chainEntry;
import static io.inferencecache.service.server.Fixtures.chainRequest;
import static io.inferencecache.service.server.Fixtures.chainUpdate;
import static io.inferencecache.service.server.Fixtures.expectedAffinity;
import static io.inferencecache.service.server.Fixtures.expectedAffinityExact;
import static io.inferencecache.service.server.Fixtures.hash;
import static io.inferencecache.service.server.Fixtures.hashes;
import static io.inferencecache.service.server.Fixtures.legacyEntry;
import static io.inferencecache.service.server.Fixtures.legacyUpdate;
import static io.inferencecache.service.server.Fixtures.request;
import static io.inferencecache.service.server.Fixtures.tokenChain;
import static io.inferencecache.service.server.Fixtures.tokens;
import static io.inferencecache.service.server.Fixtures.update;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.google.common.util.concurrent.ListenableFuture;
import com.google.protobuf.ByteString;
import io.grpc.Context;
import io.grpc.ForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.inferencecache.engine.CacheIndex;
import io.inferencecache.engine.IndexConfig;
import io.inferencecache.engine.IngestPrefix;
import io.inferencecache.engine.IngestUpdate;
import io.inferencecache.engine.LookupRouter;
import io.inferencecache.engine.LookupRouter.IndexHook;
import io.inferencecache.engine.policy.PolicySpec;
import io.inferencecache.engine.policy.StrategySpec;
import io.inferencecache.proto.v1alpha1.CacheStateUpdate;
import io.inferencecache.proto.v1alpha1.CacheTier;
import io.inferencecache.proto.v1alpha1.LookupRouteRequest;
import io.inferencecache.proto.v1alpha1.LookupRouteResponse;
import io.inferencecache.proto.v1alpha1.ReplicaScore;
import io.inferencecache.proto.v1alpha1.SLO;
import io.inferencecache.service.lookup.FakePromptTokenizer;
import io.inferencecache.service.lookup.ManualClock;
import io.inferencecache.service.lookup.RecordingLookupMetrics;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Every LookupRoute reason code and every gate of the handler's decision order
 * (docs/behaviour.md#lookup-route), over a real gRPC transport. Subclasses choose the transport and
 * the LookupRoute path.
 */
@Timeout(60)
abstract class LookupRouteBehaviourSuite {
  /** How long a blocking fake (index hook, tokenizer) blocks at most when nobody releases it. */
  static final long BLOCK_MS = 8_000;

  /** An answer "on time" despite a blocked handler: far below {@link #BLOCK_MS}. */
  static final long PROMPT_MS = 3_000;

  final RecordingLookupMetrics metrics = new RecordingLookupMetrics();
  final FakePromptTokenizer tokenizer = new FakePromptTokenizer();
  final ManualClock clock = new ManualClock();
  final AtomicInteger indexCalls = new AtomicInteger();
  final HoldInterceptor hold = new HoldInterceptor();
  private final List<CountDownLatch> latches = new CopyOnWriteArrayList<>();
  private final List<ServiceHarness> harnesses = new ArrayList<>();
  volatile IndexHook onIndex = IndexHook.NONE;
  ServiceHarness h;

  /** The transport and LookupRoute path under test. */
  abstract ServiceHarness.Transport transport();

  ServiceHarness.Options options() {
    return new ServiceHarness.Options()
        .transport(transport())
        .tokenizer(tokenizer)
        .metrics(metrics)
        .nanoTime(clock)
        .intercept(hold);
  }

  ServiceHarness open(final ServiceHarness.Options o) throws IOException {
    final ServiceHarness x = new ServiceHarness(o);
    x.handler
        .router()
        .indexHook(
            () -> {
              indexCalls.incrementAndGet();
              onIndex.beforeIndexLookup();
            });
    harnesses.add(x);
    return x;
  }

  @BeforeEach
  void openHarness() throws IOException {
    h = open(options());
  }

  @AfterEach
  void closeHarnesses() {
    for (CountDownLatch l : latches) {
      while (l.getCount() > 0) {
        l.countDown();
      }
    }
    for (ServiceHarness x : harnesses) {
      x.close();
    }
  }

  /** A latch released at the latest when the test ends. */
  CountDownLatch latch() {
    final CountDownLatch l = new CountDownLatch(1);
    latches.add(l);
    return l;
  }

  /** An index hook that blocks (at most {@link #BLOCK_MS}) until {@code release}. */
  static IndexHook blockUntil(final CountDownLatch release, final CountDownLatch entered) {
    return () -> {
      entered.countDown();
      release.await(BLOCK_MS, TimeUnit.MILLISECONDS);
    };
  }

  LookupRouteResponse lookup(final LookupRouteRequest.Builder r) {
    return h.stub.lookupRoute(r.build());
  }

  void report(final CacheStateUpdate... updates) throws Exception {
    h.report(updates);
  }

  static PolicySpec.Builder policy() {
    return PolicySpec.builder(TENANT);
  }

  void policies(final PolicySpec.Builder p) {
    h.policies(p.build());
  }

  /** r-a serves the scope with a 128-token legacy key and fresh stats (hit rate 0.9). */
  void warmTenant() throws Exception {
    report(
        update("r-a")
            .addPrefixes(legacyEntry(hash(9, 0), 128))
            .setStats(io.inferencecache.proto.v1alpha1.ReplicaStats.newBuilder().setHitRate(0.9f))
            .build());
  }

  /** r-a, r-b and r-c each serve the scope with a distinct legacy key (no stats). */
  void threeReplicas() throws Exception {
    report(
        legacyUpdate("r-a", hash(7, 1), 128),
        legacyUpdate("r-b", hash(7, 2), 128),
        legacyUpdate("r-c", hash(7, 3), 128));
  }

  static List<String> replicas(final LookupRouteResponse r) {
    return r.getReplicaScoresList().stream().map(ReplicaScore::getReplicaId).toList();
  }

  long accessCount(final ByteString hash, final String replica) {
    return h.index.accessCount(TENANT, MODEL, SCHEME, "", hash.toByteArray(), replica);
  }

  /** Asserts that exactly {@code n} metric records exist and stay so (no late second record). */
  void assertMetricCountStays(final int n) {
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> metrics.count() == n);
  }

  /**
   * Holds the next LookupRoute call between its half-close and the handler until the call's gRPC
   * context is cancelled (deadline expired or caller cancelled), so the handler starts on an
   * already expired / cancelled call.
   */
  static final class HoldInterceptor implements ServerInterceptor {
    volatile boolean armed;
    volatile CountDownLatch reached = new CountDownLatch(1);

    void arm() {
      reached = new CountDownLatch(1);
      armed = true;
    }

    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        final ServerCall<Q, R> call, final Metadata headers, final ServerCallHandler<Q, R> next) {
      final ServerCall.Listener<Q> l = next.startCall(call, headers);
      if (!armed || !call.getMethodDescriptor().getFullMethodName().endsWith("/LookupRoute")) {
        return l;
      }
      armed = false;
      final CountDownLatch signal = reached;
      return new ForwardingServerCallListener.SimpleForwardingServerCallListener<>(l) {
        @Override
        public void onHalfClose() {
          signal.countDown();
          final Context ctx = Context.current();
          final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(BLOCK_MS);
          while (!ctx.isCancelled() && System.nanoTime() < end) {
            LockSupport.parkNanos(1_000_000);
          }
          super.onHalfClose();
        }
      };
    }
  }

  // ---------------------------------------------------------------------------------------------
  // docs/behaviour.md#probe-tenant and docs/behaviour.md#lookup-route: the reserved probe tenant

  @Test
  void returnsNoHintWithZeroLatencyForReservedProbeTenantAndRecordsMetric() throws Exception {
    h.index.ingest(
        new IngestUpdate(
            "__probe-x",
            MODEL,
            CacheIndex.RESERVED_TENANT,
            SCHEME,
            0,
            "",
            List.of(IngestPrefix.legacy(hash(1, 0).toByteArray(), 128, 1)),
            null));
    final LookupRouteResponse r =
        lookup(
            request()
                .setTenantId(CacheIndex.RESERVED_TENANT)
                .setPrefixHash(hash(1, 0))
                .setPrefixTokenCount(128)
                .setAdapterId("lora-1"));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(r.getLookupLatencyUs()).isZero();
    assertThat(r.getAdapterId()).isEmpty();
    assertThat(indexCalls).hasValue(0);
    assertThat(metrics.calls())
        .containsExactly(new RecordingLookupMetrics.Call(MODEL, "NO_HINT", false, 0));
  }

  // ---------------------------------------------------------------------------------------------
  // docs/behaviour.md#lookup-route, 4, 7, 11 and docs/behaviour.md#lookup-route: deadlines and
  // cancellation

  @Test
  void returnsTimeoutPromptlyWhenIndexBlocksPastPolicyTimeout() throws Exception {
    report(chainUpdate("r-a", hashes(1, 4), 16));
    policies(policy().lookupTimeoutMs(100));
    final CountDownLatch release = latch();
    final CountDownLatch entered = new CountDownLatch(1);
    onIndex = blockUntil(release, entered);
    final long t0 = System.nanoTime();
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 4), 16).setAdapterId("lora-1"));
    final long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
    assertThat(r.getReasonCode()).isEqualTo("TIMEOUT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(r.getAdapterId()).isEmpty();
    assertThat(r.getTokenIdsCount()).isZero();
    assertThat(ms).isLessThan(PROMPT_MS);
    assertThat(release.getCount()).as("handler still blocked when TIMEOUT arrived").isEqualTo(1);
    release.countDown();
    assertMetricCountStays(1);
    assertThat(metrics.last().reasonCode()).isEqualTo("TIMEOUT");
    assertThat(metrics.last().hintUsed()).isFalse();
  }

  @Test
  void returnsTimeoutWhenSlowLookupFinishesAfterPolicyTimeout() throws Exception {
    report(chainUpdate("r-a", hashes(1, 4), 16));
    policies(policy().lookupTimeoutMs(50));
    onIndex = () -> clock.advance(Duration.ofMillis(400)); // the index lookup "takes" 400 ms
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 4), 16));
    assertThat(r.getReasonCode()).isEqualTo("TIMEOUT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertMetricCountStays(1);
  }

  @Test
  void keepsPrefixMatchWhenFastLookupIsWithinPolicyTimeout() throws Exception {
    report(chainUpdate("r-a", hashes(1, 4), 16));
    policies(policy().lookupTimeoutMs(1000));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 4), 16));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
  }

  @Test
  void policyTimeoutOfAnotherTenantDoesNotApply() throws Exception {
    h.policies(PolicySpec.builder("team-b").lookupTimeoutMs(1).minimumPrefixTokens(1000).build());
    report(chainUpdate("r-a", hashes(1, 8), 16));
    onIndex = () -> clock.advance(Duration.ofMillis(20)); // past team-b's 1 ms, were it applied
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 8), 16));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(128);
  }

  @Test
  void returnsTimeoutWhenCallerDeadlinePassesWhileIndexBlocks() throws Exception {
    report(chainUpdate("r-a", hashes(1, 4), 16));
    final CountDownLatch release = latch();
    onIndex = blockUntil(release, new CountDownLatch(1));
    final long t0 = System.nanoTime();
    final Throwable t =
        catchThrowable(
            () -> {
              final LookupRouteResponse r =
                  h.stub
                      .withDeadlineAfter(300, TimeUnit.MILLISECONDS)
                      .lookupRoute(chainRequest(hashes(1, 4), 16).build());
              assertThat(r.getReasonCode()).isEqualTo("TIMEOUT");
            });
    if (t != null) {
      assertThat(t).isInstanceOf(StatusRuntimeException.class);
      assertThat(Status.fromThrowable(t).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    }
    // The server side answered TIMEOUT on time, while the index is still blocked.
    await()
        .atMost(Duration.ofMillis(PROMPT_MS))
        .until(() -> metrics.count() == 1 && metrics.last().reasonCode().equals("TIMEOUT"));
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(PROMPT_MS + 300);
    assertThat(release.getCount()).isEqualTo(1);
    release.countDown();
    assertMetricCountStays(1);
  }

  @Test
  void returnsTimeoutWithoutTouchingIndexWhenCallerDeadlineAlreadyExpired() throws Exception {
    report(chainUpdate("r-a", hashes(1, 4), 16));
    hold.arm();
    final Throwable t =
        catchThrowable(
            () ->
                h.stub
                    .withDeadlineAfter(150, TimeUnit.MILLISECONDS)
                    .lookupRoute(chainRequest(hashes(1, 4), 16).build()));
    assertThat(Status.fromThrowable(t).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
    assertThat(hold.reached.await(5, TimeUnit.SECONDS)).isTrue();
    await().atMost(Duration.ofSeconds(5)).until(() -> metrics.count() == 1);
    assertThat(metrics.last().reasonCode()).isEqualTo("TIMEOUT");
    assertThat(metrics.last().hintUsed()).isFalse();
    assertThat(indexCalls).hasValue(0);
    assertMetricCountStays(1);
  }

  @Test
  void returnsTimeoutWithoutTouchingIndexWhenCallerCancelled() throws Exception {
    report(chainUpdate("r-a", hashes(1, 4), 16));
    hold.arm();
    final ListenableFuture<LookupRouteResponse> f =
        h.futureStub.lookupRoute(chainRequest(hashes(1, 4), 16).build());
    assertThat(hold.reached.await(5, TimeUnit.SECONDS)).isTrue();
    f.cancel(true);
    await().atMost(Duration.ofSeconds(5)).until(() -> metrics.count() == 1);
    assertThat(metrics.last().reasonCode()).isEqualTo("TIMEOUT");
    assertThat(indexCalls).hasValue(0);
    assertMetricCountStays(1);
  }

  // ---------------------------------------------------------------------------------------------
  // docs/behaviour.md#lookup-route: requireChain

  void requireChainWithData() throws Exception {
    report(chainUpdate("r-a", hashes(1, 8), 16));
    report(chainUpdate("r-b", tokenChain(tokens(0, 128), 16), 16));
    policies(policy().strategy(new StrategySpec(null, true, null)));
  }

  void assertPolicyRequiresChainWithoutIndex(final LookupRouteResponse r) {
    assertThat(r.getReasonCode()).isEqualTo("POLICY_REQUIRES_CHAIN");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(r.getAdapterId()).isEmpty();
    assertThat(r.getTokenIdsCount()).isZero();
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void returnsPolicyRequiresChainForLegacyPrefixHashWhenRequireChainIsSet() throws Exception {
    requireChainWithData();
    report(legacyUpdate("r-a", hash(2, 0), 128));
    assertPolicyRequiresChainWithoutIndex(
        lookup(request().setPrefixHash(hash(2, 0)).setPrefixTokenCount(128).setAdapterId("x")));
  }

  @Test
  void returnsPolicyRequiresChainForMalformedChainWhenRequireChainIsSet() throws Exception {
    requireChainWithData();
    final LookupRouteRequest.Builder q = chainRequest(hashes(1, 8), 16).setAdapterId("x");
    q.clearBlockTokenCounts().addAllBlockTokenCounts(List.of(16, 16, 16));
    assertPolicyRequiresChainWithoutIndex(lookup(q));
  }

  @Test
  void returnsPolicyRequiresChainForTokenIdsWhenRequireChainIsSet() throws Exception {
    requireChainWithData();
    assertPolicyRequiresChainWithoutIndex(
        lookup(request().addAllTokenIds(boxed(tokens(0, 128))).setAdapterId("x")));
  }

  @Test
  void returnsPolicyRequiresChainForPromptTextWhenRequireChainIsSet() throws Exception {
    requireChainWithData();
    tokenizer.returning(tokens(0, 128));
    assertPolicyRequiresChainWithoutIndex(
        lookup(request().setPromptText("hello").setAdapterId("x")));
    assertThat(tokenizer.requests()).isEmpty();
  }

  @Test
  void validChainSatisfiesRequireChain() throws Exception {
    requireChainWithData();
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 8), 16));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
  }

  // ---------------------------------------------------------------------------------------------
  // The answer cap (inference-cache extension): request max_replicas, policy maxReplicas

  @Test
  void maxReplicasKeepsTheBestReplicasOfTheFullAnswerAndThePolicyCapsIt() throws Exception {
    final List<ByteString> chain = hashes(1, 8);
    final String[] names = {"r-a", "r-b", "r-c", "r-d", "r-e"};
    for (int i = 0; i < names.length; i++) {
      report(chainUpdate(names[i], chain.subList(0, 8 - i), 16)); // r-a holds the most
    }
    final List<String> all = replicas(lookup(chainRequest(chain, 16)));
    assertThat(all).containsExactly("r-a", "r-b", "r-c", "r-d", "r-e");
    final LookupRouteResponse two = lookup(chainRequest(chain, 16).setMaxReplicas(2));
    assertThat(two.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(two)).isEqualTo(all.subList(0, 2));
    assertThat(replicas(lookup(chainRequest(chain, 16).setMaxReplicas(-1))))
        .as("negative: no cap")
        .isEqualTo(all);
    policies(policy().minimumMatchedTokens(64).maxReplicas(3));
    assertThat(replicas(lookup(chainRequest(chain, 16)))).isEqualTo(all.subList(0, 3));
    assertThat(replicas(lookup(chainRequest(chain, 16).setMaxReplicas(1))))
        .isEqualTo(all.subList(0, 1));
    assertThat(replicas(lookup(chainRequest(chain, 16).setMaxReplicas(4))))
        .as("a request cannot lift the policy's cap")
        .isEqualTo(all.subList(0, 3));
  }

  // ---------------------------------------------------------------------------------------------
  // docs/behaviour.md#lookup-route: input resolution

  @Test
  void explicitChainBeatsTokenIds() throws Exception {
    final int[] t = tokens(0, 128);
    report(chainUpdate("r-a", hashes(1, 8), 16), chainUpdate("r-b", tokenChain(t, 16), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 8), 16).addAllTokenIds(boxed(t)));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(128);
  }

  @Test
  void chainIsWalkedWhenPrefixHashIsAlsoSet() throws Exception {
    report(chainUpdate("r-a", hashes(1, 8), 16), legacyUpdate("r-b", hash(2, 0), 500));
    final LookupRouteResponse r =
        lookup(chainRequest(hashes(1, 8), 16).setPrefixHash(hash(2, 0)).setPrefixTokenCount(500));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(128);
  }

  @Test
  void tokenIdsLookupEqualsExplicitChainOverTheSameTokens() throws Exception {
    final int[] t = tokens(1000, 64);
    report(chainUpdate("r-a", tokenChain(t, 16), 16));
    final LookupRouteResponse viaTokens = lookup(request().addAllTokenIds(boxed(t)));
    final LookupRouteResponse viaChain = lookup(chainRequest(tokenChain(t, 16), 16));
    assertThat(viaTokens.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(viaChain.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(viaTokens)).isEqualTo(replicas(viaChain)).containsExactly("r-a");
    assertThat(viaTokens.getReplicaScores(0).getMatchedTokens())
        .isEqualTo(viaChain.getReplicaScores(0).getMatchedTokens())
        .isEqualTo(64);
    assertThat(viaTokens.getReplicaScores(0).getScore())
        .isCloseTo(viaChain.getReplicaScores(0).getScore(), Offset.offset(0.01f));
    assertThat(viaTokens.getTokenIdsCount()).as("token_ids are never echoed").isZero();
  }

  @Test
  void tokenIdsAreFingerprintedAtTheConfiguredBlockSize() throws Exception {
    h = open(options().blockSize(32));
    final int[] t = tokens(0, 128);
    report(chainUpdate("r-32", tokenChain(t, 32), 32), chainUpdate("r-16", tokenChain(t, 16), 16));
    final LookupRouteResponse r = lookup(request().addAllTokenIds(boxed(t)));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-32");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(128);
  }

  @Test
  void oversizedTokenIdsFailOpenToNoHintWithoutTouchingIndex() throws Exception {
    final int[] ones = new int[LookupRouter.MAX_LOOKUP_TOKENS + 1];
    java.util.Arrays.fill(ones, 1);
    report(chainUpdate("r-a", tokenChain(java.util.Arrays.copyOf(ones, 16), 16), 16));
    final LookupRouteResponse r = lookup(request().addAllTokenIds(boxed(ones)));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void tokenIdsAtTheSizeLimitAreLookedUp() throws Exception {
    final int[] ones = new int[LookupRouter.MAX_LOOKUP_TOKENS];
    java.util.Arrays.fill(ones, 1);
    report(chainUpdate("r-a", tokenChain(java.util.Arrays.copyOf(ones, 16), 16), 16));
    final LookupRouteResponse r = lookup(request().addAllTokenIds(boxed(ones)));
    // 16 matched tokens are under the default floor of 64: the index answered, affinity took over.
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(replicas(r)).containsExactly("r-a");
    assertThat(indexCalls).hasValue(1);
  }

  @Test
  void subBlockTokenIdsFailOpenToNoHintNotTenantHot() throws Exception {
    warmTenant();
    final LookupRouteResponse r = lookup(request().addAllTokenIds(boxed(tokens(0, 15))));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(indexCalls).hasValue(0);
  }

  // ---------------------------------------------------------------------------------------------
  // Malformed chains: fail open, never TENANT_HOT or affinity

  @Test
  void malformedChainReturnsNoHintAndNeverFallsThroughToTenantHot() throws Exception {
    warmTenant();
    threeReplicas();
    final LookupRouteRequest.Builder q = chainRequest(hashes(1, 2), 16).setAdapterId("lora-1");
    q.clearBlockTokenCounts().addBlockTokenCounts(16);
    final LookupRouteResponse r = lookup(q);
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(r.getAdapterId()).as("pre-index NO_HINT carries no adapter").isEmpty();
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void countsOnlyChainReturnsNoHintNeverAffinityByPrefixHash() throws Exception {
    warmTenant();
    threeReplicas();
    final LookupRouteResponse r =
        lookup(
            request()
                .addBlockTokenCounts(16)
                .addBlockTokenCounts(16)
                .setPrefixHash(hash(9, 0))
                .setPrefixTokenCount(128));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void hashesOnlyChainReturnsNoHint() throws Exception {
    warmTenant();
    final LookupRouteResponse r =
        lookup(request().addBlockHashes(hash(9, 0)).setPrefixHash(hash(9, 0)));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(indexCalls).hasValue(0);
  }

  // ---------------------------------------------------------------------------------------------
  // docs/behaviour.md#lookup-route and 13 (stage 0): minimumPrefixTokens

  @Test
  void proceedsToLookupWhenPrefixTokenCountMeetsMinimumPrefixTokens() throws Exception {
    policies(policy().minimumPrefixTokens(100));
    report(legacyUpdate("r-a", hash(2, 0), 128));
    final LookupRouteResponse r =
        lookup(request().setPrefixHash(hash(2, 0)).setPrefixTokenCount(100));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getReplicaScores(0).getMatchedTokens())
        .as("exact path reports the stored token count")
        .isEqualTo(128);
  }

  @Test
  void returnsNoHintWithoutTouchingIndexWhenPrefixTokenCountIsBelowMinimumAndAffinityIsOff()
      throws Exception {
    policies(policy().minimumPrefixTokens(100).affinityRouting(false));
    report(legacyUpdate("r-a", hash(2, 0), 128));
    final LookupRouteResponse r =
        lookup(request().setPrefixHash(hash(2, 0)).setPrefixTokenCount(99).setAdapterId("l"));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getAdapterId()).isEmpty();
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void proceedsToLookupWhenChainCountsMeetMinimumPrefixTokens() throws Exception {
    policies(policy().minimumPrefixTokens(100));
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 7), 16));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(112);
  }

  @Test
  void returnsNoHintWithoutTouchingIndexWhenChainCountsAreBelowMinimumAndAffinityIsOff()
      throws Exception {
    policies(policy().minimumPrefixTokens(100).affinityRouting(false));
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 6), 16));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void chainCountsTakePrecedenceOverPrefixTokenCountForTheMinimumPrefixGate() throws Exception {
    policies(policy().minimumPrefixTokens(100).affinityRouting(false));
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r =
        lookup(chainRequest(hashes(1, 2), 16).setPrefixHash(hash(2, 0)).setPrefixTokenCount(500));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void minimumPrefixTokensDowngradesPrefixMatchToAffinityHintWhenAffinityIsOn() throws Exception {
    policies(policy().minimumPrefixTokens(100));
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 8), 4));
    assertThat(indexCalls).hasValue(1);
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(replicas(r)).containsExactly("r-a");
  }

  @Test
  void minimumPrefixTokensDowngradesTenantHotToAffinityHintWhenAffinityIsOn() throws Exception {
    policies(policy().minimumPrefixTokens(100));
    warmTenant();
    final LookupRouteResponse r =
        lookup(request().setPrefixHash(hash(5, 5)).setPrefixTokenCount(5));
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(replicas(r)).containsExactly("r-a");
  }

  @Test
  void affinityHintBypassesMinimumPrefixTokens() throws Exception {
    policies(policy().minimumPrefixTokens(100));
    threeReplicas();
    final LookupRouteResponse r = lookup(chainRequest(hashes(6, 2), 16));
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(r.getReplicaScoresCount()).isEqualTo(1);
  }

  // ---------------------------------------------------------------------------------------------
  // docs/behaviour.md#lookup-route stage 1: matched-tokens floor

  @Test
  void defaultMatchedTokensFloorOf64AppliesWithoutPolicy() throws Exception {
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 1), 16));
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isZero();
  }

  @Test
  void returnsNoHintForSixteenTokenMatchUnderFloor64WithAffinityOff() throws Exception {
    policies(policy().minimumMatchedTokens(64).affinityRouting(false));
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 1), 16).setAdapterId(""));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(indexCalls).hasValue(1);
  }

  @Test
  void keepsPrefixMatchAtExactlyTheDefaultFloor() throws Exception {
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 4), 16));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(64);
  }

  @Test
  void dropsMatchOneTokenBelowTheDefaultFloor() throws Exception {
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteRequest.Builder q = chainRequest(hashes(1, 4), 16);
    q.setBlockTokenCounts(3, 15);
    final LookupRouteResponse r = lookup(q);
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
  }

  @Test
  void policyMatchedTokensFloor256RejectsMatchOf100() throws Exception {
    policies(policy().minimumMatchedTokens(256).affinityRouting(false));
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 2), 50));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  @Test
  void policyMatchedTokensFloorZeroReportsAnyMatch() throws Exception {
    policies(policy().minimumMatchedTokens(0));
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 1), 16));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(16);
  }

  @Test
  void matchedTokensFloorDropsShallowReplicaAndKeepsDeepOne() throws Exception {
    report(chainUpdate("r-a", hashes(1, 8), 16), chainUpdate("r-b", hashes(1, 1), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 8), 16));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(128);
  }

  @Test
  void matchedTokensFloorPrunesLfuCreditsOfDroppedReplicas() throws Exception {
    policies(policy().eviction("lfu").minimumMatchedTokens(64));
    report(chainUpdate("r-a", hashes(1, 8), 16), chainUpdate("r-b", hashes(1, 1), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 8), 16));
    assertThat(replicas(r)).containsExactly("r-a");
    assertThat(accessCount(hash(1, 0), "r-a")).isEqualTo(1);
    assertThat(accessCount(hash(1, 7), "r-a")).isEqualTo(1);
    assertThat(accessCount(hash(1, 0), "r-b")).isZero();
  }

  @Test
  void subFloorMatchRecordsNoHintMetric() throws Exception {
    policies(policy().minimumMatchedTokens(64).affinityRouting(false));
    report(chainUpdate("r-a", hashes(1, 8), 16));
    lookup(chainRequest(hashes(1, 1), 16));
    assertThat(metrics.calls()).hasSize(1);
    assertThat(metrics.last().reasonCode()).isEqualTo("NO_HINT");
    assertThat(metrics.last().hintUsed()).isFalse();
  }

  // ---------------------------------------------------------------------------------------------
  // docs/behaviour.md#lookup-route stage 2: routing floor score

  void threeHoldersOf(final int tokens) throws Exception {
    report(
        legacyUpdate("r-a", hash(3, 0), tokens),
        legacyUpdate("r-b", hash(3, 0), tokens),
        legacyUpdate("r-c", hash(3, 0), tokens));
  }

  LookupRouteResponse lookupHash30() {
    return lookup(request().setPrefixHash(hash(3, 0)).setPrefixTokenCount(1500));
  }

  @Test
  void routingFloorDowngradesWhenAllThreeReplicasHoldThePrefix() throws Exception {
    policies(policy().affinityRouting(false));
    threeHoldersOf(1500);
    final LookupRouteResponse r = lookupHash30();
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  @Test
  void defaultRoutingFloorWithoutPolicyDowngradesUndistinguishedMatchToAffinity() throws Exception {
    threeHoldersOf(1500);
    final LookupRouteResponse r = lookupHash30();
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(replicas(r))
        .containsExactly(expectedAffinityExact(hash(3, 0), List.of("r-a", "r-b", "r-c")));
  }

  @Test
  void routingFloorKeepsUniqueMatch() throws Exception {
    threeReplicas();
    report(legacyUpdate("r-a", hash(3, 0), 64));
    final LookupRouteResponse r = lookupHash30();
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
    assertThat(r.getReplicaScores(0).getScore()).isCloseTo(64f * 2 / 3, Offset.offset(0.05f));
  }

  @Test
  void routingFloorPolicyOverrideDowngradesScoreBelowIt() throws Exception {
    policies(policy().routingFloorScore(100f).affinityRouting(false));
    threeReplicas();
    report(legacyUpdate("r-a", hash(3, 0), 64));
    final LookupRouteResponse r = lookupHash30();
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  @Test
  void routingFloorZeroDisablesTheFloor() throws Exception {
    policies(policy().routingFloorScore(0f).minimumMatchedTokens(0).affinityRouting(false));
    threeHoldersOf(1500);
    final LookupRouteResponse r = lookupHash30();
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a", "r-b", "r-c");
    assertThat(r.getReplicaScoresList()).allSatisfy(s -> assertThat(s.getScore()).isZero());
  }

  @Test
  void singleReplicaSurvivesRoutingFloor() throws Exception {
    report(legacyUpdate("r-a", hash(3, 0), 64));
    final LookupRouteResponse r = lookupHash30();
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getReplicaScores(0).getScore()).isCloseTo(64f, Offset.offset(0.05f));
  }

  // ---------------------------------------------------------------------------------------------
  // Strategy switches

  @Test
  void tenantHotCarriesUnspecifiedTierAndZeroMatchedTokens() throws Exception {
    warmTenant();
    final LookupRouteResponse r =
        lookup(request().setPrefixHash(hash(5, 0)).setPrefixTokenCount(128));
    assertThat(r.getReasonCode()).isEqualTo("TENANT_HOT");
    assertThat(replicas(r)).containsExactly("r-a");
    final ReplicaScore s = r.getReplicaScores(0);
    assertThat(s.getTier()).isEqualTo(CacheTier.CACHE_TIER_UNSPECIFIED);
    assertThat(s.getMatchedTokens()).isZero();
    assertThat(s.getEstimatedCacheHitProb()).isEqualTo(0.9f);
    assertThat(s.getScore()).isGreaterThan(0.8f);
  }

  @Test
  void returnsNoHintWhenTenantHotIsDisabledAndAffinityIsOff() throws Exception {
    policies(policy().strategy(new StrategySpec(null, null, false)).affinityRouting(false));
    warmTenant();
    final LookupRouteResponse r =
        lookup(request().setPrefixHash(hash(5, 0)).setPrefixTokenCount(128));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  static PolicySpec.Builder chainOff() {
    return policy().strategy(new StrategySpec(false, null, null));
  }

  @Test
  void chainMatchingOffUsesPrefixHashEvenWhenTheChainIsMalformed() throws Exception {
    policies(chainOff());
    report(legacyUpdate("r-a", hash(2, 0), 128), chainUpdate("r-b", hashes(1, 8), 16));
    final LookupRouteRequest.Builder q =
        chainRequest(hashes(1, 8), 16).setPrefixHash(hash(2, 0)).setPrefixTokenCount(128);
    q.clearBlockTokenCounts().addBlockTokenCounts(16);
    final LookupRouteResponse r = lookup(q);
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
  }

  @Test
  void chainMatchingOffAnswersChainOnlyRequestNoHintWithoutTouchingIndex() throws Exception {
    policies(chainOff());
    report(chainUpdate("r-a", hashes(1, 8), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 8), 16));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void chainMatchingOffLooksUpTokenIdsByLastBlockHashWithoutEcho() throws Exception {
    policies(chainOff().affinityRouting(false));
    final int[] t = tokens(500, 64);
    final List<ByteString> chain = tokenChain(t, 16);
    report(legacyUpdate("r-a", chain.get(3), 64), legacyUpdate("r-b", hash(7, 0), 64));
    final LookupRouteResponse r = lookup(request().addAllTokenIds(boxed(t)));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(64);
    assertThat(r.getTokenIdsCount()).isZero();
  }

  @Test
  void chainMatchingOffLooksUpPromptTextByLastBlockHashAndEchoesTokens() throws Exception {
    policies(chainOff().affinityRouting(false));
    final int[] t = tokens(500, 64);
    tokenizer.returning(t);
    report(legacyUpdate("r-a", tokenChain(t, 16).get(3), 64));
    final LookupRouteResponse r = lookup(request().setPromptText("hi"));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
    assertThat(r.getTokenIdsList()).isEqualTo(boxed(t));
  }

  @Test
  void chainMatchingOffMinimumPrefixGateIgnoresChainCounts() throws Exception {
    policies(chainOff().minimumPrefixTokens(100).affinityRouting(false));
    report(legacyUpdate("r-a", hash(2, 0), 128));
    final LookupRouteResponse r =
        lookup(chainRequest(hashes(1, 8), 16).setPrefixHash(hash(2, 0)).setPrefixTokenCount(10));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void chainMatchingOffSeedsAffinityFromThePrefixHash() throws Exception {
    policies(chainOff());
    threeReplicas();
    final LookupRouteResponse r =
        lookup(chainRequest(hashes(6, 4), 16).setPrefixHash(hash(6, 99)).setPrefixTokenCount(64));
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(replicas(r))
        .containsExactly(expectedAffinityExact(hash(6, 99), List.of("r-a", "r-b", "r-c")));
  }

  // ---------------------------------------------------------------------------------------------
  // docs/behaviour.md#affinity AFFINITY_HINT

  @Test
  void affinityHintPicksTheConsistentHashReplicaForNovelChain() throws Exception {
    threeReplicas();
    final LookupRouteResponse r = lookup(chainRequest(hashes(6, 3), 16).setAdapterId("lora-9"));
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(replicas(r))
        .containsExactly(expectedAffinity(hashes(6, 3), List.of("r-a", "r-b", "r-c")));
    assertThat(r.getAdapterId()).isEqualTo("lora-9");
    assertThat(metrics.last().reasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(metrics.last().hintUsed()).isTrue();
  }

  @Test
  void affinityHintForNovelPrefixHashIsSeededByTheHash() throws Exception {
    threeReplicas();
    final LookupRouteResponse r =
        lookup(request().setPrefixHash(hash(6, 7)).setPrefixTokenCount(128));
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(replicas(r))
        .containsExactly(expectedAffinityExact(hash(6, 7), List.of("r-a", "r-b", "r-c")));
  }

  @Test
  void returnsNoHintWhenAffinityRoutingIsDisabled() throws Exception {
    policies(policy().affinityRouting(false));
    threeReplicas();
    final LookupRouteResponse r = lookup(chainRequest(hashes(6, 3), 16));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  @Test
  void returnsNoHintForAffinityWithoutServingReplicas() {
    final LookupRouteResponse r = lookup(chainRequest(hashes(6, 3), 16));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  @Test
  void returnsNoHintForAffinityWithoutSeed() throws Exception {
    threeReplicas();
    final LookupRouteResponse r = lookup(request());
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(indexCalls).hasValue(1);
  }

  @Test
  void affinityHintIsStableAcrossRepeats() throws Exception {
    threeReplicas();
    final String first = replicas(lookup(chainRequest(hashes(6, 5), 16))).get(0);
    for (int i = 0; i < 5; i++) {
      assertThat(replicas(lookup(chainRequest(hashes(6, 5), 16)))).containsExactly(first);
    }
  }

  @Test
  void affinityHintScoreFieldsAreZero() throws Exception {
    threeReplicas();
    final ReplicaScore s = lookup(chainRequest(hashes(6, 3), 16)).getReplicaScores(0);
    assertThat(s.getScore()).isZero();
    assertThat(s.getMatchedTokens()).isZero();
    assertThat(s.getEstimatedCacheHitProb()).isZero();
    assertThat(s.getTier()).isEqualTo(CacheTier.CACHE_TIER_UNSPECIFIED);
  }

  @Test
  void affinityHintKeepsUnknownHashSchemePrecedence() throws Exception {
    policies(policy().minimumPrefixTokens(100));
    threeReplicas();
    final LookupRouteResponse r = lookup(chainRequest(hashes(6, 1), 16).setHashScheme("vllm-v1"));
    assertThat(r.getReasonCode()).isEqualTo("UNKNOWN_HASH_SCHEME");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  @Test
  void affinityHintRequiresAllContractKeys() throws Exception {
    threeReplicas();
    for (LookupRouteRequest.Builder q :
        List.of(
            chainRequest(hashes(6, 3), 16).setTenantId(""),
            chainRequest(hashes(6, 3), 16).setModelId(""),
            chainRequest(hashes(6, 3), 16).setHashScheme(""))) {
      final LookupRouteResponse r = lookup(q);
      assertThat(r.getReasonCode()).as(q.toString()).isEqualTo("NO_HINT");
      assertThat(r.getReplicaScoresCount()).isZero();
    }
  }

  @Test
  void novelTokenIdsGetAffinityHintSeededFromTheDerivedChain() throws Exception {
    threeReplicas();
    final int[] t = tokens(7000, 64);
    final LookupRouteResponse r = lookup(request().addAllTokenIds(boxed(t)));
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(replicas(r))
        .containsExactly(expectedAffinity(tokenChain(t, 16), List.of("r-a", "r-b", "r-c")));
    assertThat(r.getTokenIdsCount()).isZero();
  }

  // ---------------------------------------------------------------------------------------------
  // Diagnostics and plain misses

  @Test
  void returnsUnknownTenantWithAdapterEchoAndHintUnused() throws Exception {
    report(update("r-a").setTenantId("ic-smoke").addPrefixes(legacyEntry(hash(2, 0), 64)).build());
    final LookupRouteResponse r =
        lookup(request().setTenantId("default").setPrefixHash(hash(2, 0)).setAdapterId("lora-z"));
    assertThat(r.getReasonCode()).isEqualTo("UNKNOWN_TENANT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(r.getAdapterId()).isEqualTo("lora-z");
    assertThat(metrics.last().reasonCode()).isEqualTo("UNKNOWN_TENANT");
    assertThat(metrics.last().hintUsed()).isFalse();
  }

  @Test
  void returnsUnknownModelWithAdapterEchoAndHintUnused() throws Exception {
    report(update("r-a").setModelId("m1").addPrefixes(legacyEntry(hash(2, 0), 64)).build());
    final LookupRouteResponse r =
        lookup(request().setModelId("m2").setPrefixHash(hash(2, 0)).setAdapterId("lora-z"));
    assertThat(r.getReasonCode()).isEqualTo("UNKNOWN_MODEL");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(r.getAdapterId()).isEqualTo("lora-z");
    assertThat(metrics.last().hintUsed()).isFalse();
  }

  @Test
  void returnsUnknownHashSchemeWithAdapterEchoAndHintUnused() throws Exception {
    report(legacyUpdate("r-a", hash(2, 0), 64));
    final LookupRouteResponse r =
        lookup(request().setHashScheme("vllm-v1").setPrefixHash(hash(2, 0)).setAdapterId("lora-z"));
    assertThat(r.getReasonCode()).isEqualTo("UNKNOWN_HASH_SCHEME");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(r.getAdapterId()).isEqualTo("lora-z");
    assertThat(metrics.last().reasonCode()).isEqualTo("UNKNOWN_HASH_SCHEME");
    assertThat(metrics.last().hintUsed()).isFalse();
  }

  @Test
  void genuineMissIsStillNoHintWithAdapterEcho() throws Exception {
    policies(policy().affinityRouting(false));
    report(chainUpdate("r-a", hashes(1, 8), 16));
    assertThat(lookup(chainRequest(hashes(1, 8), 16)).getReasonCode()).isEqualTo("PREFIX_MATCH");
    final LookupRouteResponse miss = lookup(chainRequest(hashes(6, 8), 16).setAdapterId("l-1"));
    assertThat(miss.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(miss.getReplicaScoresCount()).isZero();
    assertThat(miss.getAdapterId()).as("index-path NO_HINT echoes the adapter").isEqualTo("l-1");
  }

  @Test
  void coldStartFailsOpenToNoHint() {
    final LookupRouteResponse r =
        h.stub.lookupRoute(LookupRouteRequest.newBuilder().setModelId(MODEL).build());
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  @Test
  void probeTenantKeysMakeAnOtherwiseEmptyIndexAnswerUnknownTenant() {
    h.index.ingest(
        new IngestUpdate(
            "__probe-x",
            MODEL,
            CacheIndex.RESERVED_TENANT,
            SCHEME,
            0,
            "",
            List.of(IngestPrefix.legacy(hash(1, 0).toByteArray(), 128, 1)),
            null));
    assertThat(lookup(request().setPrefixHash(hash(1, 0))).getReasonCode())
        .isEqualTo("UNKNOWN_TENANT");
  }

  @Test
  void negativeAndUnknownTiersSurfaceAsUnspecified() throws Exception {
    report(
        update("r-a").addPrefixes(legacyEntry(hash(2, 0), 128).setTierValue(-1)).build(),
        update("r-a").addPrefixes(legacyEntry(hash(2, 1), 128).setTierValue(7)).build(),
        update("r-a").addPrefixes(legacyEntry(hash(2, 2), 128)).build());
    assertThat(lookup(request().setPrefixHash(hash(2, 0))).getReplicaScores(0).getTier())
        .isEqualTo(CacheTier.CACHE_TIER_UNSPECIFIED);
    assertThat(lookup(request().setPrefixHash(hash(2, 1))).getReplicaScores(0).getTier())
        .isEqualTo(CacheTier.CACHE_TIER_UNSPECIFIED);
    assertThat(lookup(request().setPrefixHash(hash(2, 2))).getReplicaScores(0).getTier())
        .as("unset tier is stored as T1")
        .isEqualTo(CacheTier.CACHE_TIER_T1);
  }

  @Test
  void emptyHashSchemeIsNoHintEvenWithWarmTenant() throws Exception {
    warmTenant();
    final LookupRouteResponse r =
        lookup(request().setHashScheme("").setPrefixHash(hash(9, 0)).setPrefixTokenCount(128));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
  }

  // ---------------------------------------------------------------------------------------------
  // Tier, SLO, adapter, latency

  @Test
  void reportedTierSurfacesThroughPrefixMatch() throws Exception {
    report(
        update("r-a")
            .addPrefixes(chainEntry(hashes(1, 4), 16).setTier(CacheTier.CACHE_TIER_T1))
            .build());
    assertThat(lookup(chainRequest(hashes(1, 4), 16)).getReplicaScores(0).getTier())
        .isEqualTo(CacheTier.CACHE_TIER_T1);
    report(
        update("r-a")
            .addPrefixes(chainEntry(hashes(1, 4), 16).setTier(CacheTier.CACHE_TIER_T2))
            .build());
    assertThat(lookup(chainRequest(hashes(1, 4), 16)).getReplicaScores(0).getTier())
        .isEqualTo(CacheTier.CACHE_TIER_T2);
    report(
        update("r-a")
            .addPrefixes(chainEntry(hashes(1, 4), 16).setTier(CacheTier.CACHE_TIER_T1))
            .build());
    assertThat(lookup(chainRequest(hashes(1, 4), 16)).getReplicaScores(0).getTier())
        .isEqualTo(CacheTier.CACHE_TIER_T1);
  }

  @Test
  void tightSloTtftRaisesTheScore() throws Exception {
    report(legacyUpdate("r-a", hash(2, 0), 128));
    final float plain = lookup(request().setPrefixHash(hash(2, 0))).getReplicaScores(0).getScore();
    final float tight =
        lookup(request().setPrefixHash(hash(2, 0)).setSlo(SLO.newBuilder().setTtftMs(100)))
            .getReplicaScores(0)
            .getScore();
    final float loose =
        lookup(request().setPrefixHash(hash(2, 0)).setSlo(SLO.newBuilder().setTtftMs(500)))
            .getReplicaScores(0)
            .getScore();
    assertThat(plain).isCloseTo(128f, Offset.offset(0.1f));
    assertThat(tight).isCloseTo(2 * plain, Offset.offset(0.2f));
    assertThat(loose).isCloseTo(plain, Offset.offset(0.1f));
  }

  @Test
  void adapterPartitionsRoundTripWithEchoAndNoCrossAdapterAliasing() throws Exception {
    policies(policy().affinityRouting(false));
    report(update("r-a").setAdapterId("lora-1").addPrefixes(chainEntry(hashes(1, 4), 16)).build());
    final LookupRouteResponse hit = lookup(chainRequest(hashes(1, 4), 16).setAdapterId("lora-1"));
    assertThat(hit.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(hit.getAdapterId()).isEqualTo("lora-1");
    final LookupRouteResponse other = lookup(chainRequest(hashes(1, 4), 16).setAdapterId("lora-2"));
    assertThat(other.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(other.getAdapterId()).isEqualTo("lora-2");
    assertThat(lookup(chainRequest(hashes(1, 4), 16)).getReasonCode()).isEqualTo("NO_HINT");
  }

  @Test
  void requestWithoutAdapterMatchesTheDefaultPartition() throws Exception {
    report(chainUpdate("r-a", hashes(1, 4), 16));
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 4), 16));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getAdapterId()).isEmpty();
  }

  @Test
  void lookupLatencyIsReportedOnNormalAnswers() throws Exception {
    report(chainUpdate("r-a", hashes(1, 4), 16));
    onIndex = () -> clock.advance(Duration.ofMillis(2)); // the index lookup "takes" 2 ms
    final LookupRouteResponse hit = lookup(chainRequest(hashes(1, 4), 16));
    assertThat(hit.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(hit.getLookupLatencyUs()).isGreaterThanOrEqualTo(2000);
    final LookupRouteResponse miss = lookup(request().setModelId("zz").setPrefixHash(hash(2, 2)));
    assertThat(miss.getReasonCode()).isEqualTo("UNKNOWN_MODEL");
    assertThat(miss.getLookupLatencyUs()).isGreaterThanOrEqualTo(2000);
    onIndex = IndexHook.NONE;
    // Without any injected delay: a 65,536-token token_ids lookup (4,096 fingerprinted blocks).
    final LookupRouteResponse plain = lookup(request().addAllTokenIds(boxed(tokens(0, 1 << 16))));
    assertThat(plain.getReasonCode()).isNotEmpty();
    assertThat(plain.getLookupLatencyUs()).isPositive();
  }

  // ---------------------------------------------------------------------------------------------
  // LFU credit (docs/behaviour.md#eviction-lru-lfu)

  @Test
  void creditsLfuOnlyForDeliveredPrefixMatch() throws Exception {
    policies(policy().eviction("lfu").minimumMatchedTokens(64));
    warmTenant();
    report(chainUpdate("r-a", hashes(1, 8), 16));
    lookup(chainRequest(hashes(1, 4), 16));
    lookup(chainRequest(hashes(1, 4), 16));
    assertThat(accessCount(hash(1, 0), "r-a")).isEqualTo(2);
    assertThat(accessCount(hash(1, 3), "r-a")).isEqualTo(2);
    assertThat(accessCount(hash(1, 4), "r-a")).as("block beyond the request").isZero();
    // AFFINITY_HINT (sub-floor) and TENANT_HOT credit nothing.
    assertThat(lookup(chainRequest(hashes(1, 1), 16)).getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(lookup(request().setPrefixHash(hash(5, 0))).getReasonCode()).isEqualTo("TENANT_HOT");
    assertThat(accessCount(hash(1, 0), "r-a")).isEqualTo(2);
    assertThat(accessCount(hash(9, 0), "r-a")).isZero();
  }

  ServiceHarness capOfTwo() throws IOException {
    return open(options().config(new IndexConfig().maxEntries(2).evictionHeadroom(0)));
  }

  static long micros(final long agoMillis) {
    return (System.currentTimeMillis() - agoMillis) * 1000;
  }

  @Test
  void olderCreditedEntrySurvivesCapEviction() throws Exception {
    h = capOfTwo();
    policies(policy().eviction("lfu"));
    report(
        update("r-a").setTimestampUs(micros(3000)).addPrefixes(legacyEntry(hash(4, 0), 64)).build(),
        update("r-a")
            .setTimestampUs(micros(2000))
            .addPrefixes(legacyEntry(hash(4, 1), 64))
            .build());
    assertThat(lookup(request().setPrefixHash(hash(4, 0))).getReasonCode())
        .isEqualTo("PREFIX_MATCH");
    report(legacyUpdate("r-a", hash(4, 2), 64));
    assertThat(accessCount(hash(4, 0), "r-a")).isEqualTo(1);
    assertThat(accessCount(hash(4, 1), "r-a")).as("uncredited older entry evicted").isEqualTo(-1);
    assertThat(accessCount(hash(4, 2), "r-a")).isZero();
  }

  @Test
  void timeoutDoesNotCreditLfuAndEntryIsEvictedAsIfNeverLookedUp() throws Exception {
    h = capOfTwo();
    policies(policy().eviction("lfu").lookupTimeoutMs(100));
    report(
        update("r-a").setTimestampUs(micros(3000)).addPrefixes(legacyEntry(hash(4, 0), 64)).build(),
        update("r-a")
            .setTimestampUs(micros(2000))
            .addPrefixes(legacyEntry(hash(4, 1), 64))
            .build());
    final CountDownLatch release = latch();
    final CountDownLatch entered = new CountDownLatch(1);
    final CountDownLatch left = new CountDownLatch(1);
    onIndex =
        () -> {
          blockUntil(release, entered).beforeIndexLookup();
          left.countDown();
        };
    assertThat(lookup(request().setPrefixHash(hash(4, 0))).getReasonCode()).isEqualTo("TIMEOUT");
    release.countDown();
    assertThat(left.await(5, TimeUnit.SECONDS)).isTrue();
    await()
        .during(Duration.ofMillis(300))
        .atMost(Duration.ofSeconds(5))
        .until(() -> accessCount(hash(4, 0), "r-a") == 0);
    onIndex = IndexHook.NONE;
    report(legacyUpdate("r-a", hash(4, 2), 64));
    assertThat(accessCount(hash(4, 0), "r-a")).as("evicted like never looked up").isEqualTo(-1);
    assertThat(accessCount(hash(4, 1), "r-a")).isZero();
  }

  // ---------------------------------------------------------------------------------------------
  // Metrics: one record per call

  @Test
  void recordsExactlyOneMetricPerCallWithReasonAndHintUsed() throws Exception {
    threeReplicas();
    report(chainUpdate("r-a", hashes(1, 8), 16));
    lookup(chainRequest(hashes(1, 8), 16));
    lookup(chainRequest(hashes(6, 8), 16));
    lookup(request().setTenantId("nobody").setPrefixHash(hash(1, 1)));
    lookup(request().setModelId("nobody").setPrefixHash(hash(1, 1)));
    lookup(request().setHashScheme("nobody").setPrefixHash(hash(1, 1)));
    assertThat(metrics.calls())
        .extracting(c -> c.reasonCode() + "/" + c.hintUsed())
        .containsExactly(
            "PREFIX_MATCH/true",
            "AFFINITY_HINT/true",
            "UNKNOWN_TENANT/false",
            "UNKNOWN_MODEL/false",
            "UNKNOWN_HASH_SCHEME/false");
    assertThat(metrics.calls().get(0).model()).isEqualTo(MODEL);
    assertThat(metrics.calls().get(0).latencyNanos()).isPositive();
  }

  // ---------------------------------------------------------------------------------------------
  // Fail-open on internal faults

  @Test
  void indexFaultFailsOpenToNoHintWithStatusOkAndIsCounted() throws Exception {
    report(chainUpdate("r-a", hashes(1, 8), 16));
    onIndex =
        () -> {
          throw new IllegalStateException("injected fault");
        };
    final LookupRouteResponse r = lookup(chainRequest(hashes(1, 8), 16));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(metrics.internalErrors()).isEqualTo(1);
    assertThat(metrics.calls()).hasSize(1);
    assertThat(metrics.last().reasonCode()).isEqualTo("NO_HINT");
    onIndex = IndexHook.NONE;
    assertThat(lookup(chainRequest(hashes(1, 8), 16)).getReasonCode()).isEqualTo("PREFIX_MATCH");
  }

  @Test
  void checkedIndexFaultFailsOpenToNoHint() throws Exception {
    report(chainUpdate("r-a", hashes(1, 8), 16));
    onIndex =
        () -> {
          throw new IOException("injected");
        };
    assertThat(lookup(chainRequest(hashes(1, 8), 16)).getReasonCode()).isEqualTo("NO_HINT");
    assertThat(metrics.internalErrors()).isEqualTo(1);
  }

  // ---------------------------------------------------------------------------------------------
  // prompt_text (docs/behaviour.md#lookup-route)

  @Test
  void passesPromptTextToTokenizerAsTheSingleUserTurn() throws Exception {
    tokenizer.returning(tokens(0, 64));
    lookup(request().setPromptText("Tell me about KV caches ✓"));
    assertThat(tokenizer.requests())
        .containsExactly(new FakePromptTokenizer.Request(MODEL, "Tell me about KV caches ✓"));
  }

  @Test
  void promptTextIsTokenizedMatchedAndEchoed() throws Exception {
    final int[] t = tokens(40, 64);
    tokenizer.returning(t);
    report(chainUpdate("r-a", tokenChain(t, 16), 16));
    final LookupRouteResponse r = lookup(request().setPromptText("hello"));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(replicas(r)).containsExactly("r-a");
    assertThat(r.getReplicaScores(0).getMatchedTokens()).isEqualTo(64);
    assertThat(r.getTokenIdsList()).isEqualTo(boxed(t));
  }

  @Test
  void promptTextEchoesTokensOnMinimumPrefixGateNoHint() throws Exception {
    policies(policy().minimumPrefixTokens(1000).affinityRouting(false));
    final int[] t = tokens(40, 64);
    tokenizer.returning(t);
    report(chainUpdate("r-a", tokenChain(t, 16), 16));
    final LookupRouteResponse r = lookup(request().setPromptText("hello").setAdapterId("l"));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getTokenIdsList()).isEqualTo(boxed(t));
    assertThat(r.getAdapterId()).isEmpty();
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void promptTextSubBlockStillEchoesTokens() throws Exception {
    warmTenant();
    tokenizer.returning(tokens(1, 10));
    final LookupRouteResponse r = lookup(request().setPromptText("hi"));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getTokenIdsList()).isEqualTo(boxed(tokens(1, 10)));
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void promptTextTokenizerErrorFailsOpenWithoutEcho() throws Exception {
    warmTenant();
    tokenizer.behaviour(
        (m, t) -> {
          throw new IOException("tokenizer broke");
        });
    final LookupRouteResponse r = lookup(request().setPromptText("hi"));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getTokenIdsCount()).isZero();
    assertThat(indexCalls).hasValue(0);
    assertThat(tokenizer.requests()).hasSize(1);
  }

  @Test
  void promptTextEmptyTokenizerOutputFailsOpenWithoutEcho() throws Exception {
    warmTenant();
    tokenizer.returning(new int[0]);
    final LookupRouteResponse r = lookup(request().setPromptText("hi"));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getTokenIdsCount()).isZero();
  }

  @Test
  void promptTextOversizedTokenizerOutputFailsOpenWithoutEcho() throws Exception {
    warmTenant();
    tokenizer.returning(new int[LookupRouter.MAX_LOOKUP_TOKENS + 1]);
    final LookupRouteResponse r = lookup(request().setPromptText("hi"));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getTokenIdsCount()).isZero();
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void promptTextOver1MiBFailsOpenWithoutCallingTheTokenizer() throws Exception {
    warmTenant();
    tokenizer.returning(tokens(0, 64));
    final String big = "a".repeat(LookupRouter.MAX_PROMPT_TEXT_BYTES + 1);
    final LookupRouteResponse r = lookup(request().setPromptText(big));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getTokenIdsCount()).isZero();
    assertThat(tokenizer.requests()).isEmpty();
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void promptTextOfExactly1MiBIsTokenized() throws Exception {
    tokenizer.returning(tokens(0, 64));
    final String big = "a".repeat(LookupRouter.MAX_PROMPT_TEXT_BYTES);
    lookup(request().setPromptText(big));
    assertThat(tokenizer.requests()).hasSize(1);
    assertThat(tokenizer.requests().get(0).text()).hasSize(LookupRouter.MAX_PROMPT_TEXT_BYTES);
  }

  @Test
  void promptTextShedsLoadWhenTokenizerIsSaturated() throws Exception {
    final int[] t = tokens(40, 64);
    report(chainUpdate("r-a", tokenChain(t, 16), 16));
    final CountDownLatch release = latch();
    final AtomicInteger inside = new AtomicInteger();
    tokenizer.behaviour(
        (m, text) -> {
          inside.incrementAndGet();
          release.await(BLOCK_MS, TimeUnit.MILLISECONDS);
          return t.clone();
        });
    final List<ListenableFuture<LookupRouteResponse>> blocked = new ArrayList<>();
    for (int i = 0; i < LookupRouter.MAX_CONCURRENT_TOKENIZE; i++) {
      blocked.add(h.futureStub.lookupRoute(request().setPromptText("p" + i).build()));
    }
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> inside.get() == LookupRouter.MAX_CONCURRENT_TOKENIZE);
    final long t0 = System.nanoTime();
    final LookupRouteResponse shed = lookup(request().setPromptText("one too many"));
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(PROMPT_MS);
    assertThat(shed.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(shed.getTokenIdsCount()).isZero();
    assertThat(tokenizer.requests()).hasSize(LookupRouter.MAX_CONCURRENT_TOKENIZE);
    release.countDown();
    for (ListenableFuture<LookupRouteResponse> f : blocked) {
      assertThat(f.get(10, TimeUnit.SECONDS).getReasonCode()).isEqualTo("PREFIX_MATCH");
    }
    // Permits are returned: a new prompt is tokenized again.
    assertThat(lookup(request().setPromptText("again")).getReasonCode()).isEqualTo("PREFIX_MATCH");
  }

  @Test
  void promptTextWithoutTokenizerFailsOpen() throws Exception {
    warmTenant();
    tokenizer.supported(false).returning(tokens(0, 64));
    final LookupRouteResponse r = lookup(request().setPromptText("hi"));
    assertThat(r.getReasonCode()).isEqualTo("NO_HINT");
    assertThat(r.getTokenIdsCount()).isZero();
    assertThat(indexCalls).hasValue(0);
  }

  @Test
  void slowTokenizerIsBoundedByPolicyTimeout() throws Exception {
    policies(policy().lookupTimeoutMs(100));
    final CountDownLatch release = latch();
    tokenizer.behaviour(
        (m, text) -> {
          release.await(BLOCK_MS, TimeUnit.MILLISECONDS);
          return tokens(0, 64);
        });
    final long t0 = System.nanoTime();
    final LookupRouteResponse r = lookup(request().setPromptText("slow"));
    assertThat(r.getReasonCode()).isEqualTo("TIMEOUT");
    assertThat(r.getReplicaScoresCount()).isZero();
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(PROMPT_MS);
    release.countDown();
    assertMetricCountStays(1);
  }

  @Test
  void tokenizationWithoutAnyDeadlineIsBoundedByTheDefault5sTimeout() throws Exception {
    final int[] t = tokens(40, 64);
    report(chainUpdate("r-a", tokenChain(t, 16), 16));
    tokenizer.behaviour(
        (m, text) -> {
          clock.advance(Duration.ofMillis(5001));
          return t.clone();
        });
    assertThat(lookup(request().setPromptText("slow")).getReasonCode()).isEqualTo("TIMEOUT");
    tokenizer.behaviour(
        (m, text) -> {
          clock.advance(Duration.ofMillis(4900));
          return t.clone();
        });
    assertThat(lookup(request().setPromptText("fast enough")).getReasonCode())
        .isEqualTo("PREFIX_MATCH");
  }

  @Test
  void blockedTokenizerWithoutAnyDeadlineIsAnsweredTimeoutAtTheDefault5s() throws Exception {
    final CountDownLatch release = latch();
    final CountDownLatch entered = new CountDownLatch(1);
    tokenizer.behaviour(
        (m, text) -> {
          entered.countDown();
          release.await(BLOCK_MS, TimeUnit.MILLISECONDS);
          return tokens(0, 64);
        });
    final ListenableFuture<LookupRouteResponse> f =
        h.futureStub.lookupRoute(request().setPromptText("blocks").build());
    assertThat(entered.await(5, TimeUnit.SECONDS)).isTrue();
    clock.advance(Duration.ofSeconds(4));
    // Several watchdog ticks at 4 s into the call: none of them answers it.
    await().during(Duration.ofMillis(200)).atMost(Duration.ofSeconds(2)).until(() -> !f.isDone());
    clock.advance(Duration.ofSeconds(6));
    final long t0 = System.nanoTime();
    assertThat(f.get(PROMPT_MS, TimeUnit.MILLISECONDS).getReasonCode()).isEqualTo("TIMEOUT");
    assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0)).isLessThan(PROMPT_MS);
    assertThat(release.getCount()).isEqualTo(1);
    release.countDown();
    assertMetricCountStays(1);
  }

  @Test
  void affinityHintViaPromptTextEchoesTokens() throws Exception {
    threeReplicas();
    final int[] t = tokens(9000, 64);
    tokenizer.returning(t);
    final LookupRouteResponse r = lookup(request().setPromptText("novel"));
    assertThat(r.getReasonCode()).isEqualTo("AFFINITY_HINT");
    assertThat(replicas(r))
        .containsExactly(expectedAffinity(tokenChain(t, 16), List.of("r-a", "r-b", "r-c")));
    assertThat(r.getTokenIdsList()).isEqualTo(boxed(t));
  }

  @Test
  void promptTextIsIgnoredWhenTokenIdsArePresent() throws Exception {
    final int[] t = tokens(40, 64);
    report(chainUpdate("r-a", tokenChain(t, 16), 16));
    tokenizer.returning(tokens(1, 64));
    final LookupRouteResponse r = lookup(request().addAllTokenIds(boxed(t)).setPromptText("x"));
    assertThat(r.getReasonCode()).isEqualTo("PREFIX_MATCH");
    assertThat(r.getTokenIdsCount()).isZero();
    assertThat(tokenizer.requests()).isEmpty();
  }
}
