package io.inferencecache.engine;

import static org.assertj.core.api.Assertions.assertThat;

import io.inferencecache.engine.policy.PolicySnapshot;
import io.inferencecache.engine.policy.PolicySpec;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Wide fleets (issue 41): one chain held by hundreds of replicas stays in a few long runs, and an
 * answer can be capped to the best few replicas (request {@code max_replicas}, policy {@code
 * maxReplicas}) without changing which replicas come first.
 */
class WideFleetTest extends IndexTestSupport {
  private static final int BLOCKS = 64;

  @Override
  protected IndexConfig baseConfig() {
    return super.baseConfig().maxEntries(200_000);
  }

  private static String[] blocks(final String chain) {
    final String[] b = new String[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) {
      b[i] = chain + "-" + i;
    }
    return b;
  }

  @Test
  void aChainReportedByHundredsOfReplicasOneAtATimeStaysInTwoRuns() {
    final String[] chain = blocks("system-prompt");
    final int holders = 520; // 64 rows x 520 columns x 8 B of cells: more than one run may hold
    for (int h = 0; h < holders; h++) {
      index.ingest(IndexFixtures.chain("t", "m", "vllm", String.format("r-%03d", h), 16, chain));
    }
    assertThat(index.totalEntries()).isEqualTo((long) holders * BLOCKS);
    assertThat(index.state().storage.main().entries())
        .as("split into equal halves once, not cut again at every new column")
        .isEqualTo(2);
    index.lookupAndClassify(IndexFixtures.chainReq("t", "m", "vllm", 16, chain), r);
    assertThat(r.size()).isEqualTo(holders);
    for (int i = 0; i < r.size(); i++) {
      assertThat(r.matchedTokens(i)).isEqualTo(BLOCKS * 16);
    }
  }

  /** 40 replicas: replica i holds the first 2 + i % 8 blocks, reported i seconds apart. */
  private String[] fleet() {
    final String[] chain = blocks("doc");
    for (int i = 0; i < 40; i++) {
      final String[] held = java.util.Arrays.copyOf(chain, 2 + i % 8);
      index.ingest(IndexFixtures.chain("t", "m", "vllm", "r-" + i, 16, held));
      clock.advance(1, TimeUnit.SECONDS);
    }
    return chain;
  }

  private List<String> route(final LookupRouter router, final String[] chain, final int max) {
    final RouteRequest in = new RouteRequest();
    in.request().keys("t", "m", "vllm", "");
    for (String b : chain) {
      in.request().addBlockHash(IndexFixtures.h(b)).addBlockTokenCount(16);
    }
    in.request().maxReplicas(max);
    final RouteResult out = new RouteResult();
    router.route(in, out, RouteCall.NONE, System.nanoTime());
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PREFIX_MATCH);
    final List<String> names = new ArrayList<>();
    for (int i = 0; i < out.scoreCount(); i++) {
      names.add(out.replicaName(i));
    }
    return names;
  }

  @Test
  void aCappedAnswerIsTheFirstReplicasOfTheFullAnswer() {
    final String[] chain = fleet();
    final LookupRouter router = router();
    final List<String> all = route(router, chain, 0);
    assertThat(all).as("default: every holder above the 64-token floor").hasSize(30);
    for (int k : new int[] {1, 3, 10, 29, 30, 50}) {
      assertThat(route(router, chain, k))
          .as("max_replicas %d", k)
          .isEqualTo(all.subList(0, Math.min(k, 30)));
    }
  }

  @Test
  void thePolicyCapsAndARequestCanOnlyAskForFewer() {
    reopenWithPolicyStore(baseConfig());
    final String[] chain = fleet();
    final LookupRouter router = router();
    final List<String> all = route(router, chain, 0);
    assertThat(all).hasSize(30);
    index
        .policyStore()
        .replace(
            new PolicySnapshot(
                PolicySnapshot.PROPAGATION_VERSION,
                List.of(PolicySpec.builder("t").maxReplicas(5).minimumMatchedTokens(64).build()),
                List.of()));
    assertThat(route(router, chain, 0)).as("the policy's cap").isEqualTo(all.subList(0, 5));
    assertThat(route(router, chain, 2))
        .as("a request may ask for fewer")
        .isEqualTo(all.subList(0, 2));
    assertThat(route(router, chain, 9)).as("never more").isEqualTo(all.subList(0, 5));
  }

  @Test
  void onlyTheRepliesDeliveredAreCredited() {
    policies.lfu.add("t");
    index.syncLfuCounters();
    final String[] chain = fleet();
    final List<String> top = route(router(), chain, 3);
    for (int i = 0; i < 40; i++) {
      final String replica = "r-" + i;
      assertThat(index.accessCount("t", "m", "vllm", "", IndexFixtures.h(chain[0]), replica))
          .as(replica)
          .isEqualTo(top.contains(replica) ? 1 : 0);
    }
  }

  private LookupRouter router() {
    return new LookupRouter(index, LookupRouterTest.NO_TOKENIZER, 16, System::nanoTime);
  }
}
