package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chain;
import static io.inferencecache.engine.IndexFixtures.stats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.inferencecache.engine.policy.LoadAwareSpec;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The opt-in load-aware routing (docs/behaviour.md#load-aware) through {@link LookupRouter}: the
 * PREFIX_MATCH ranking, the floor judged without the pressure factor, the bounded-load affinity
 * with several ranked replicas, the answers counted between stats reports, and the same answers as
 * upstream when the policy leaves it off.
 */
@Timeout(30)
class LoadAwareRoutingTest {
  static final String T = "team-a";
  static final String M = "m";

  CacheIndex index;
  LookupRouter router;

  @BeforeEach
  void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(10_000));
    index.start();
    router = new LookupRouter(index, LookupRouterTest.NO_TOKENIZER, 16, System::nanoTime);
  }

  @AfterEach
  void close() {
    index.close();
  }

  void loadAware(final LoadAwareSpec spec) {
    final PolicySpec p =
        PolicySpec.builder(T).minimumMatchedTokens(64).loadAwareRouting(spec).build();
    index.policyStore().replace(new PolicySnapshot(7, List.of(p), List.of()));
  }

  RouteResult route(final String... hashes) {
    final RouteRequest in = new RouteRequest();
    in.request().keys(T, M, "vllm", "");
    for (String h : hashes) {
      in.request().addBlockHash(h.getBytes(StandardCharsets.UTF_8)).addBlockTokenCount(64);
    }
    final RouteResult out = new RouteResult();
    router.route(in, out, RouteCall.NONE, System.nanoTime());
    return out;
  }

  static List<String> names(final RouteResult out) {
    final List<String> n = new ArrayList<>();
    for (int i = 0; i < out.scoreCount(); i++) {
      n.add(out.replicaName(i));
    }
    return n;
  }

  /** a holds 4 blocks, b 3, c only the first; a reports {@code pressureA}, the others 0. */
  void deepAndShallow(final float pressureA) {
    index.ingest(chain(T, M, "vllm", "a", 64, "k0", "k1", "k2", "k3"));
    index.ingest(chain(T, M, "vllm", "b", 64, "k0", "k1", "k2"));
    index.ingest(chain(T, M, "vllm", "c", 64, "k0"));
    index.ingest(stats(T, M, "a", 0f, pressureA));
    index.ingest(stats(T, M, "b", 0f, 0f));
    index.ingest(stats(T, M, "c", 0f, 0f));
  }

  @Test
  void busyDeepHolderYieldsToShallowerIdleHolder() {
    deepAndShallow(0.2f);
    final RouteResult upstream = route("k0", "k1", "k2", "k3");
    assertThat(upstream.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    assertThat(names(upstream)).startsWith("a");
    final float upstreamScoreOfA = upstream.score(0);

    // Keys matched − 4096 × pressure: a 256 − 819.2, b 192, c 64. The scores stay upstream's.
    loadAware(LoadAwareSpec.DEFAULTS);
    final RouteResult out = route("k0", "k1", "k2", "k3");
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    assertThat(names(out)).containsExactly("b", "c", "a");
    assertThat(out.matchedTokens(0)).isEqualTo(192);
    // Freshness moves with the clock between the two calls: equal to a few parts in a million.
    assertThat(out.score(2)).isCloseTo(upstreamScoreOfA, within(0.01f)).isGreaterThan(out.score(0));
  }

  @Test
  void pressureTokensZeroRanksByMatchedTokensAlone() {
    deepAndShallow(0.9f);
    loadAware(new LoadAwareSpec(0, null, null, null));
    assertThat(names(route("k0", "k1", "k2", "k3"))).containsExactly("a", "b", "c");
  }

  @Test
  void floorJudgesTheMatchNotTheLoad() {
    // A single holder at pressure 1: its upstream score is 0, under the 0.1 floor.
    index.ingest(chain(T, M, "vllm", "a", 64, "x0", "x1", "x2", "x3", "x4"));
    index.ingest(chain(T, M, "vllm", "z", 64, "other"));
    index.ingest(stats(T, M, "a", 0f, 1f));
    assertThat(route("x0", "x1", "x2", "x3", "x4").reasonCode())
        .isEqualTo(ReasonCodes.AFFINITY_HINT);

    loadAware(new LoadAwareSpec(0, null, null, null));
    final RouteResult out = route("x0", "x1", "x2", "x3", "x4");
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    assertThat(names(out)).containsExactly("a");
  }

  @Test
  void matchSharedByEveryReplicaStillFallsBackToAffinity() {
    // Distinguishing power 0 without the pressure factor too: the floor still refuses it.
    for (String r : List.of("a", "b", "c")) {
      index.ingest(chain(T, M, "vllm", r, 64, "s0", "s1", "s2", "s3"));
    }
    loadAware(LoadAwareSpec.DEFAULTS);
    assertThat(route("s0", "s1", "s2", "s3", "new").reasonCode())
        .isEqualTo(ReasonCodes.AFFINITY_HINT);
  }

  void fourServing() {
    for (String r : List.of("r0", "r1", "r2", "r3")) {
      index.ingest(chain(T, M, "vllm", r, 64, "own-" + r));
      index.ingest(stats(T, M, r, 0f, 0f));
    }
  }

  @Test
  void affinityListsRankedReplicasStartingAtTheUpstreamChoice() {
    fourServing();
    final RouteResult upstream = route("q0", "q1");
    assertThat(upstream.reasonCode()).isEqualTo(ReasonCodes.AFFINITY_HINT);
    assertThat(upstream.scoreCount()).isEqualTo(1);
    final String hashed = upstream.replicaName(0);

    loadAware(LoadAwareSpec.DEFAULTS);
    final RouteResult out = route("q0", "q1");
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.AFFINITY_HINT);
    assertThat(out.scoreCount()).isEqualTo(ResolvedPolicyDefaults.RANKED);
    assertThat(out.replicaName(0)).isEqualTo(hashed);
    assertThat(names(out)).doesNotHaveDuplicates();
    for (int i = 0; i < out.scoreCount(); i++) {
      assertThat(out.score(i)).isZero();
      assertThat(out.matchedTokens(i)).isZero();
    }
  }

  @Test
  void affinitySkipsReplicasAtOrAboveThePressureBound() {
    fourServing();
    final String hashed = route("q0", "q1").replicaName(0);
    index.ingest(stats(T, M, hashed, 0f, 1.5f));
    loadAware(LoadAwareSpec.DEFAULTS);
    final RouteResult out = route("q0", "q1");
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.AFFINITY_HINT);
    assertThat(names(out)).hasSize(3).doesNotContain(hashed);
  }

  @Test
  void everyReplicaOverTheBoundLeavesTheLeastPressuredFirst() {
    fourServing();
    index.ingest(stats(T, M, "r0", 0f, 3f));
    index.ingest(stats(T, M, "r1", 0f, 2f));
    index.ingest(stats(T, M, "r2", 0f, 4f));
    index.ingest(stats(T, M, "r3", 0f, 5f));
    loadAware(new LoadAwareSpec(null, null, 2, null));
    assertThat(names(route("q0", "q1"))).containsExactly("r1", "r0");
  }

  @Test
  void answersBetweenStatsReportsAddHintPressure() {
    fourServing();
    // 0.5 per answer, two choices (the hashed replica h and its successor s): h, then s (now
    // less pressured), h, s; then both are at the bound and the walk goes on.
    loadAware(new LoadAwareSpec(null, null, 1, 0.5f));
    final String h = route("q0", "q1").replicaName(0);
    final String s = route("q0", "q1").replicaName(0);
    assertThat(s).isNotEqualTo(h);
    assertThat(route("q0", "q1").replicaName(0)).isEqualTo(h);
    assertThat(route("q0", "q1").replicaName(0)).isEqualTo(s);
    assertThat(route("q0", "q1").replicaName(0)).isNotIn(h, s);
    // New reports: the counts start afresh.
    index.ingest(stats(T, M, h, 0f, 0f));
    index.ingest(stats(T, M, s, 0f, 0f));
    assertThat(route("q0", "q1").replicaName(0)).isEqualTo(h);
  }

  @Test
  void offByDefaultTheAnswersAreUpstreams() {
    deepAndShallow(0.2f);
    fourServing();
    final RouteResult before = route("k0", "k1", "k2", "k3");
    final RouteResult beforeAffinity = route("q0", "q1");
    index
        .policyStore()
        .replace(
            new PolicySnapshot(
                7, List.of(PolicySpec.builder(T).minimumMatchedTokens(64).build()), List.of()));
    assertThat(names(route("k0", "k1", "k2", "k3"))).isEqualTo(names(before));
    assertThat(names(route("q0", "q1"))).isEqualTo(names(beforeAffinity)).hasSize(1);
  }

  @Test
  void warmLoadAwareCallAllocatesNothing() {
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported());
    deepAndShallow(0.2f);
    fourServing();
    loadAware(new LoadAwareSpec(null, null, 3, 0.125f));
    final RouteRequest in = new RouteRequest();
    final RouteResult out = new RouteResult();
    final byte[][] match = {b("k0"), b("k1"), b("k2"), b("k3")};
    final byte[][] miss = {b("q0"), b("q1")};
    long least = Long.MAX_VALUE;
    long sink = 0;
    for (int round = 0; round < 20 && least >= 8 * 1024; round++) {
      final long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < 20_000; i++) {
        sink += call(in, out, (i & 1) == 0 ? match : miss);
      }
      least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
    }
    assertThat(sink).isPositive();
    // One allocation per call would be hundreds of kilobytes a round; allow only the noise.
    assertThat(least).isLessThan(8 * 1024);
  }

  private int call(final RouteRequest in, final RouteResult out, final byte[][] hashes) {
    in.reset().request().keys(T, M, "vllm", "");
    for (byte[] h : hashes) {
      in.request().addBlockHash(h).addBlockTokenCount(64);
    }
    router.route(in, out, RouteCall.NONE, System.nanoTime());
    return out.scoreCount();
  }

  private static byte[] b(final String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  /** The defaults the tests rely on. */
  static final class ResolvedPolicyDefaults {
    static final int RANKED =
        io.inferencecache.engine.policy.ResolvedPolicy.RANKED_REPLICAS_DEFAULT;

    private ResolvedPolicyDefaults() {}
  }
}
