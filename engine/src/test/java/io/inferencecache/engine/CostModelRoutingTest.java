package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chain;
import static io.inferencecache.engine.IndexFixtures.stats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.inferencecache.engine.policy.CostModelSpec;
import io.inferencecache.engine.policy.LoadAwareSpec;
import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.agrona.concurrent.EpochNanoClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The cost-model strategy (docs/behaviour.md#cost-model) through {@link LookupRouter}: replicas in
 * order of expected time to first token, PREFIX_MATCH when the cache decided and AFFINITY_HINT when
 * load decided among replicas holding the same, the upstream affinity replica when the fleet is
 * idle, stale stats drained and answers since counted, and no allocation on warm calls. Blocks of
 * 512 tokens, 10,000 prefill tokens/s (51.2 ms a block), 3 s a request, 8 slots (a queued request
 * ahead costs 375 ms).
 */
@Timeout(30)
class CostModelRoutingTest {
  static final String T = "team-a";
  static final String M = "m";
  static final int BLOCK = 512;

  /** The index's clock, moved by hand (stats ages). */
  static final class Clock implements EpochNanoClock {
    volatile long nanos = 1_767_225_600_000_000_000L;

    @Override
    public long nanoTime() {
      return nanos;
    }
  }

  final Clock clock = new Clock();
  CacheIndex index;
  LookupRouter router;

  @BeforeEach
  void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(10_000).clock(clock));
    index.start();
    router = new LookupRouter(index, LookupRouterTest.NO_TOKENIZER, 16, System::nanoTime);
  }

  @AfterEach
  void close() {
    index.close();
  }

  void costModel(final Integer slots, final Boolean affinity) {
    final PolicySpec p =
        PolicySpec.builder(T)
            .minimumMatchedTokens(64)
            .affinityRouting(affinity)
            .loadAwareRouting(LoadAwareSpec.costModel(new CostModelSpec(10_000f, 3f, slots)))
            .build();
    index.policyStore().replace(new PolicySnapshot(7, List.of(p), List.of()));
  }

  RouteResult route(final String... hashes) {
    final byte[][] bytes = new byte[hashes.length][];
    for (int i = 0; i < hashes.length; i++) {
      bytes[i] = hashes[i].getBytes(StandardCharsets.UTF_8);
    }
    final RouteResult out = new RouteResult();
    call(new RouteRequest(), out, bytes);
    return out;
  }

  private int call(final RouteRequest in, final RouteResult out, final byte[][] hashes) {
    in.reset().request().keys(T, M, "vllm", "");
    for (byte[] h : hashes) {
      in.request().addBlockHash(h).addBlockTokenCount(BLOCK);
    }
    router.route(in, out, RouteCall.NONE, System.nanoTime());
    return out.scoreCount();
  }

  static List<String> names(final RouteResult out) {
    return LoadAwareRoutingTest.names(out);
  }

  /** a holds 4 blocks, b 3, c only the first; pressures as given. */
  void deepAndShallow(final float a, final float b, final float c) {
    index.ingest(chain(T, M, "vllm", "a", BLOCK, "k0", "k1", "k2", "k3"));
    index.ingest(chain(T, M, "vllm", "b", BLOCK, "k0", "k1", "k2"));
    index.ingest(chain(T, M, "vllm", "c", BLOCK, "k0"));
    index.ingest(stats(T, M, "a", 0f, a));
    index.ingest(stats(T, M, "b", 0f, b));
    index.ingest(stats(T, M, "c", 0f, c));
  }

  @Test
  void anIdleFleetAnswersTheDeepestHolderFirst() {
    deepAndShallow(0.5f, 0f, 0f);
    costModel(8, null);
    final RouteResult out = route("k0", "k1", "k2", "k3", "k4");
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    // Half its slots busy, no queue: a's 4 blocks save the most prefill.
    assertThat(names(out)).containsExactly("a", "b", "c");
    assertThat(out.matchedTokens(0)).isEqualTo(4 * BLOCK);
  }

  @Test
  void aQueuedDeepHolderYieldsWhenItsWaitCostsMoreThanThePrefillItSaves() {
    // a: 16 requests for 8 slots, 9 queued ahead = 3,375 ms; b prefills one block more (51 ms).
    deepAndShallow(2f, 0f, 0f);
    costModel(8, null);
    final RouteResult out = route("k0", "k1", "k2", "k3", "k4");
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    assertThat(names(out)).containsExactly("b", "c", "a");
  }

  @Test
  void aSharedPrefixIsDecidedByLoadAmongTheReplicasHoldingIt() {
    // Every replica holds s0..s3: no replica distinguishes itself. Upstream hashes; the cost
    // model takes the least loaded (b), then c (one queued ahead), then a (five).
    for (String r : List.of("a", "b", "c")) {
      index.ingest(chain(T, M, "vllm", r, BLOCK, "s0", "s1", "s2", "s3"));
    }
    index.ingest(stats(T, M, "a", 0f, 1.5f));
    index.ingest(stats(T, M, "b", 0f, 0.25f));
    index.ingest(stats(T, M, "c", 0f, 1f));
    assertThat(route("s0", "s1", "s2", "s3", "new").reasonCode())
        .isEqualTo(ReasonCodes.AFFINITY_HINT);
    costModel(8, null);
    final RouteResult out = route("s0", "s1", "s2", "s3", "new");
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.AFFINITY_HINT);
    assertThat(names(out)).containsExactly("b", "c", "a");
    assertThat(out.matchedTokens(0)).isZero();
    assertThat(out.score(0)).isZero();
  }

  @Test
  void anIdleFleetKeepsTheUpstreamAffinityReplica() {
    for (String r : List.of("r0", "r1", "r2", "r3")) {
      index.ingest(chain(T, M, "vllm", r, BLOCK, "own-" + r));
      index.ingest(stats(T, M, r, 0f, 0f));
    }
    final String hashed = route("q0", "q1").replicaName(0);
    costModel(8, null);
    final RouteResult out = route("q0", "q1");
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.AFFINITY_HINT);
    assertThat(out.replicaName(0)).isEqualTo(hashed);
    assertThat(names(out)).hasSize(3).doesNotHaveDuplicates();
  }

  @Test
  void staleStatsAreDrainedAtOneSlotPerRequestTime() {
    for (String r : List.of("x", "y")) {
      index.ingest(chain(T, M, "vllm", r, BLOCK, "s0", "s1"));
    }
    index.ingest(stats(T, M, "x", 0f, 2f)); // 16 requests, 3 s ago: 8 have finished since
    clock.nanos += 3_000_000_000L;
    index.ingest(stats(T, M, "y", 0f, 1.25f)); // 10 requests, now
    costModel(8, null);
    // x: 8 left, one finish to wait for (375 ms); y: 10, three (1,125 ms).
    assertThat(route("s0", "s1", "new").replicaName(0)).isEqualTo("x");
  }

  @Test
  void answersSinceTheLastReportCountAsLoad() {
    for (String r : List.of("x", "y")) {
      index.ingest(chain(T, M, "vllm", r, BLOCK, "s0", "s1"));
      index.ingest(stats(T, M, r, 0f, 0f));
    }
    costModel(2, null);
    final String first = route("s0", "s1", "new").replicaName(0);
    final String second = route("s0", "s1", "new").replicaName(0);
    assertThat(second).isNotEqualTo(first);
    // A new report of the first replica starts its count afresh: it is the less loaded again.
    index.ingest(stats(T, M, first, 0f, 0f));
    assertThat(route("s0", "s1", "new").replicaName(0)).isEqualTo(first);
  }

  @Test
  void withoutAffinityRoutingAnUndistinguishedChoiceIsLeftToTheUpstreamSteps() {
    for (String r : List.of("a", "b")) {
      index.ingest(chain(T, M, "vllm", r, BLOCK, "s0", "s1"));
    }
    costModel(8, false);
    // Upstream: the shared match has distinguishing power 0, under the floor; no affinity.
    assertThat(route("s0", "s1", "new").reasonCode()).isEqualTo(ReasonCodes.NO_HINT);
  }

  @Test
  void warmCostModelCallAllocatesNothing() {
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported());
    deepAndShallow(2f, 0.5f, 0f);
    costModel(8, null);
    final RouteRequest in = new RouteRequest();
    final RouteResult out = new RouteResult();
    final byte[][] match = {b("k0"), b("k1"), b("k2"), b("k3")};
    final byte[][] shared = {b("k0"), b("q1"), b("q2")};
    long least = Long.MAX_VALUE;
    long sink = 0;
    for (int round = 0; round < 20 && least >= 8 * 1024; round++) {
      final long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < 20_000; i++) {
        sink += call(in, out, (i & 1) == 0 ? match : shared);
      }
      least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
    }
    assertThat(sink).isPositive();
    assertThat(least).isLessThan(8 * 1024);
  }

  private static byte[] b(final String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
