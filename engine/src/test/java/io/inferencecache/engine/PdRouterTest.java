package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chain;
import static io.inferencecache.engine.IndexFixtures.stats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.offset;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.inferencecache.engine.pd.AcceleratorType;
import io.inferencecache.engine.pd.PdLinks;
import io.inferencecache.engine.pd.PdMember;
import io.inferencecache.engine.pd.PdPool;
import io.inferencecache.engine.pd.PdTopology;
import io.inferencecache.engine.pd.PdTopologySnapshot;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link PdRouter}: the pair scoring (prefill by cached prefix and load, decode by load, the KV
 * transfer by link class, scored together), the skip rule, the deterministic tie-break and every
 * reason code, never half a pair, no allocation on warm calls. Blocks of 512 tokens; the default
 * cost model: 10,000 prefill tokens/s (51.2 ms a block), 3 s a request, 8 slots (a queued request
 * ahead costs 375 ms); 8 blocks = a 4,096-token prompt.
 */
@Timeout(30)
class PdRouterTest {
  static final String T = "team-a";
  static final String M = "m";
  static final String S = "vllm";
  static final int BLOCK = 512;
  static final String[] PROMPT = {"k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7"};

  final CostModelRoutingTest.Clock clock = new CostModelRoutingTest.Clock();
  CacheIndex index;
  PdRouter router;

  @BeforeEach
  void open() {
    index = CacheIndex.open(new IndexConfig().maxEntries(10_000).clock(clock));
    index.start();
    router = new PdRouter(index, System::nanoTime);
  }

  @AfterEach
  void close() {
    index.close();
  }

  // ---------------------------------------------------------------------------------------------
  // Fixtures

  static PdMember m(final String id, final String node) {
    return new PdMember(id, node);
  }

  static PdTopology topology(
      final String ns,
      final String name,
      final int decodeLocal,
      final PdLinks links,
      final long kvBytes,
      final List<PdPool> prefill,
      final List<PdPool> decode) {
    return new PdTopology(
        ns,
        name,
        "NIXL",
        decodeLocal,
        links,
        kvBytes,
        prefill,
        decode,
        List.of(
            new AcceleratorType("h100", "nvidia", "H100-80GB"),
            new AcceleratorType("mi300", "amd", "MI300X")));
  }

  /** Four prefill (pf-i on node-i) and four decode (dc-i on node-i) replicas, all on h100. */
  static PdTopology fourByFour(final int decodeLocal) {
    final List<PdMember> pf = new ArrayList<>();
    final List<PdMember> dc = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pf.add(m("pf-" + i, "node-" + i));
      dc.add(m("dc-" + i, "node-" + i));
    }
    return topology(
        T,
        "llama-pd",
        decodeLocal,
        null,
        0,
        List.of(new PdPool("prefill", "h100", pf)),
        List.of(new PdPool("decode", "h100", dc)));
  }

  void topologies(final PdTopology... ts) {
    index.pdTopologies().replace(new PdTopologySnapshot(1, List.of(ts)));
  }

  void alive(final float pressure, final String... replicas) {
    for (String r : replicas) {
      index.ingest(stats(T, M, r, 0f, pressure));
    }
  }

  void holds(final String replica, final int blocks) {
    final String[] hs = new String[blocks];
    System.arraycopy(PROMPT, 0, hs, 0, blocks);
    index.ingest(chain(T, M, S, replica, BLOCK, hs));
  }

  PdRouteResult route(final String ref, final String tenant, final String... hashes) {
    final PdRouteRequest in = new PdRouteRequest();
    final PdRouteResult out = new PdRouteResult();
    call(in, out, ref, tenant, hashes);
    return out;
  }

  PdRouteResult route(final String... hashes) {
    return route("", T, hashes);
  }

  private void call(
      final PdRouteRequest in,
      final PdRouteResult out,
      final String ref,
      final String tenant,
      final String... hashes) {
    in.reset().topologyRef(ref).request().keys(tenant, M, S, "");
    for (String h : hashes) {
      in.request().addBlockHash(h.getBytes(StandardCharsets.UTF_8)).addBlockTokenCount(BLOCK);
    }
    router.route(in, out, System.nanoTime(), Long.MAX_VALUE);
    assertThat(out.prefillReplica().isEmpty()).isEqualTo(out.decodeReplica().isEmpty());
  }

  static void assertNoPair(final PdRouteResult out, final String reason) {
    assertThat(out.reasonCode()).isEqualTo(reason);
    assertThat(out.prefillReplica()).isEmpty();
    assertThat(out.decodeReplica()).isEmpty();
    assertThat(out.message()).isNotEmpty();
  }

  void allAlive() {
    alive(0f, "pf-0", "pf-1", "pf-2", "pf-3", "dc-0", "dc-1", "dc-2", "dc-3");
  }

  // ---------------------------------------------------------------------------------------------
  // Pair scoring

  @Test
  void theCachedPrefixPicksThePrefillReplicaAndTheNodeItsDecodePartner() {
    topologies(fourByFour(0));
    allAlive();
    holds("pf-2", 4);
    final PdRouteResult out = route(PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
    assertThat(out.prefillReplica()).isEqualTo("pf-2");
    assertThat(out.prefillMatchedTokens()).isEqualTo(4 * BLOCK);
    // Every decode replica is idle: the one on pf-2's node moves the KV over the fastest link.
    assertThat(out.decodeReplica()).isEqualTo("dc-2");
    assertThat(out.prefillPool()).isEqualTo("prefill");
    assertThat(out.decodePool()).isEqualTo("decode");
    assertThat(out.transportHint()).isEqualTo("NIXL");
    assertThat(out.topologyRef()).isEqualTo("team-a/llama-pd");
    assertThat(out.message()).isEmpty();
    // 4 uncached blocks (204.8 ms) + 4,096 tokens × 128 KiB at 300 GB/s (1.79 ms).
    assertThat(out.estimatedTtftMs())
        .isCloseTo(204.8f + 1.79f, org.assertj.core.data.Offset.offset(0.05f));
    assertThat(out.transferMs()).isCloseTo(1.79f, org.assertj.core.data.Offset.offset(0.01f));
  }

  @Test
  void theLinkClassRanksSameNodeThenSameVendorThenCross() {
    final PdTopology t =
        topology(
            T,
            "links",
            0,
            null,
            0,
            List.of(new PdPool("prefill", "h100", List.of(m("pf-0", "n0")))),
            List.of(
                new PdPool("amd", "mi300", List.of(m("dc-a", "n1"))),
                new PdPool("nv", "h100", List.of(m("dc-b", "n2"), m("dc-c", "n0")))));
    topologies(t);
    alive(0f, "pf-0", "dc-a", "dc-b", "dc-c");
    assertThat(route(PROMPT).decodeReplica()).isEqualTo("dc-c");
    // Without the same-node member, the same vendor beats the cross link.
    topologies(
        topology(
            T,
            "links",
            0,
            null,
            0,
            t.prefillPools(),
            List.of(
                new PdPool("amd", "mi300", List.of(m("dc-a", "n1"))),
                new PdPool("nv", "h100", List.of(m("dc-b", "n2"))))));
    final PdRouteResult out = route(PROMPT);
    assertThat(out.decodeReplica()).isEqualTo("dc-b");
    assertThat(out.decodePool()).isEqualTo("nv");
    // 4,096 tokens × 128 KiB = 536.9 MB at 50 GB/s.
    assertThat(out.transferMs()).isCloseTo(10.74f, org.assertj.core.data.Offset.offset(0.01f));
  }

  @Test
  void aPairIsScoredTogetherSoACloserShallowerPrefillBeatsADeeperFarOne() {
    // pf-near holds 1 block on dc-0's node; pf-far holds 2 blocks on another vendor's hardware.
    // Alone, pf-far saves 51.2 ms more prefill; moving 4,096 × 256 KiB across costs 107 ms
    // against 3.6 ms on the same node.
    topologies(
        topology(
            T,
            "joint",
            0,
            null,
            262_144,
            List.of(
                new PdPool("nv", "h100", List.of(m("pf-near", "n0"))),
                new PdPool("amd", "mi300", List.of(m("pf-far", "n1")))),
            List.of(new PdPool("decode", "h100", List.of(m("dc-0", "n0"))))));
    alive(0f, "pf-near", "pf-far", "dc-0");
    holds("pf-near", 1);
    holds("pf-far", 2);
    final PdRouteResult out = route(PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
    assertThat(out.prefillReplica()).isEqualTo("pf-near");
    assertThat(out.prefillMatchedTokens()).isEqualTo(BLOCK);
    assertThat(out.decodeReplica()).isEqualTo("dc-0");
  }

  @Test
  void aQueuedPrefillHolderYieldsToAnIdleReplicaWithoutTheCache() {
    topologies(fourByFour(0));
    allAlive();
    alive(3f, "pf-0"); // 24 requests for 8 slots: 17 queued ahead = 6,375 ms
    holds("pf-0", 7);
    final PdRouteResult out = route(PROMPT);
    assertThat(out.prefillReplica()).isEqualTo("pf-1");
    assertThat(out.prefillMatchedTokens()).isZero();
    assertThat(out.decodeReplica()).isEqualTo("dc-1");
  }

  @Test
  void theDecodeSideGoesByLoadThenReplicaIdOrder() {
    topologies(fourByFour(0));
    allAlive();
    alive(2f, "dc-0", "dc-1"); // 9 queued ahead each
    alive(0.5f, "dc-2"); // no queue, but loaded
    final PdRouteResult out = route(PROMPT);
    // dc-2 and dc-3 have no queue; among the equal pairs on one node, the less loaded decode
    // replica's: (pf-3, dc-3).
    assertThat(out.decodeReplica()).isEqualTo("dc-3");
    assertThat(out.prefillReplica()).isEqualTo("pf-3");
  }

  @Test
  void equalPairsGoToTheReplicaIdsFirstInOrderWhateverTheListOrder() {
    topologies(
        topology(
            T,
            "ties",
            0,
            null,
            0,
            List.of(
                new PdPool(
                    "prefill",
                    "",
                    List.of(m("pf-3", ""), m("pf-1", ""), m("pf-0", ""), m("pf-2", "")))),
            List.of(
                new PdPool("decode", "", List.of(m("dc-2", ""), m("dc-0", ""), m("dc-1", ""))))));
    alive(0f, "pf-0", "pf-1", "pf-2", "pf-3", "dc-0", "dc-1", "dc-2");
    for (int i = 0; i < 3; i++) {
      final PdRouteResult out = route(PROMPT);
      assertThat(out.prefillReplica()).isEqualTo("pf-" + i);
      assertThat(out.decodeReplica()).isEqualTo("dc-" + i);
      // Each answer counts toward its replicas' load until their next report: equal costs go to
      // the less loaded candidates, so the next call takes the next ids.
    }
  }

  @Test
  void answersSinceTheLastReportSpreadTheDecodeSideOnceItsSlotsFill() {
    topologies(fourByFour(0));
    allAlive();
    holds("pf-0", 8);
    final List<String> decodes = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      decodes.add(route(PROMPT).decodeReplica());
    }
    // The pf-0/dc-0 pair shares a node, so dc-0 takes answers until a wait builds up there: its
    // 8 slots fill after 8 answers, then one queued request (375 ms) outweighs the link.
    assertThat(decodes.subList(0, 8)).containsOnly("dc-0");
    assertThat(decodes.get(8)).isNotEqualTo("dc-0");
    // A new stats report starts the count afresh.
    clock.nanos += TimeUnit.MILLISECONDS.toNanos(1);
    alive(0f, "dc-0", "pf-0");
    assertThat(route(PROMPT).decodeReplica()).isEqualTo("dc-0");
  }

  // ---------------------------------------------------------------------------------------------
  // The skip rule

  @Test
  void aSmallUncachedPartIsPrefilledOnTheDecodeReplica() {
    topologies(fourByFour(1024));
    allAlive();
    holds("pf-1", 7); // 512 uncached on pf-1 and on dc-2 alike
    holds("dc-2", 7);
    holds("dc-1", 6); // 1,024 uncached: not below the threshold
    final PdRouteResult out = route(PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_DECODE_LOCAL);
    // The same prefill without the KV transfer: dc-2 prefills its own 512 tokens.
    assertThat(out.prefillReplica()).isEqualTo("dc-2");
    assertThat(out.decodeReplica()).isEqualTo("dc-2");
    assertThat(out.prefillPool()).isEqualTo("decode");
    assertThat(out.decodePool()).isEqualTo("decode");
    assertThat(out.prefillMatchedTokens()).isEqualTo(7 * BLOCK);
    assertThat(out.transferMs()).isZero();
    assertThat(out.transportHint()).isEqualTo("NIXL");
  }

  @Test
  void theDecodeReplicasOwnUncachedPartIsTestedNotThePrefillReplicas() {
    topologies(fourByFour(1024));
    allAlive();
    holds("pf-1", 8); // nothing to prefill on pf-1, but 4,096 tokens on every decode replica
    final PdRouteResult out = route(PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
    assertThat(out.prefillReplica()).isEqualTo("pf-1");
    assertThat(out.decodeReplica()).isEqualTo("dc-1");
  }

  @Test
  void aDecodeReplicaHoldingThePromptPrefillsLocallyWhenThePrefillPoolHoldsNothing() {
    topologies(fourByFour(1024));
    allAlive();
    holds("dc-3", 7); // 51.2 ms there against 409.6 ms on any prefill replica
    final PdRouteResult out = route(PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_DECODE_LOCAL);
    assertThat(out.decodeReplica()).isEqualTo("dc-3");
    assertThat(out.estimatedTtftMs()).isCloseTo(51.2f, offset(0.1f));
  }

  @Test
  void aCheaperPairWinsOverAnEligibleDecodeReplica() {
    topologies(fourByFour(1024));
    allAlive();
    holds("pf-0", 8); // nothing to prefill: the pair costs only the same-node transfer
    holds("dc-3", 7); // 512 tokens below the threshold, but 51.2 ms of prefill
    final PdRouteResult out = route(PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
    assertThat(out.prefillReplica()).isEqualTo("pf-0");
    assertThat(out.decodeReplica()).isEqualTo("dc-0");
  }

  @Test
  void aBusyDecodeReplicaPaysItsWaitAndTheStallOfItsBatch() {
    topologies(fourByFour(1024));
    allAlive();
    holds("dc-2", 7);
    clock.nanos += TimeUnit.MILLISECONDS.toNanos(1);
    alive(1f, "dc-2"); // 8 of 8 slots: 375 ms of wait + 51.2 ms of prefill + 51.2 ms of stall
    final PdRouteResult out = route(PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_PAIR); // 409.6 ms + the transfer
    assertThat(out.decodeReplica()).isNotEqualTo("dc-2");
    assertThat(PdRouter.localCost(8 * BLOCK, 7 * BLOCK, 8f, 0f, index.policyStore().resolve(T)))
        .isCloseTo(375f + 51.2f + 51.2f, offset(0.1f));
  }

  @Test
  void aPrefillReplicaJustHandedALongPromptLooksBusyByItsTokensUntilItsNextReport() {
    topologies(fourByFour(0));
    allAlive();
    final String[] longPrompt = new String[64]; // 32,768 uncached tokens: 3.3 s of prefill
    for (int i = 0; i < longPrompt.length; i++) {
      longPrompt[i] = "long-" + i;
    }
    assertThat(route(longPrompt).prefillReplica()).isEqualTo("pf-0");
    holds("pf-0", 4); // half of PROMPT: 204.8 ms there, 409.6 ms elsewhere
    // One request among 8 slots would cost no wait; its 32,768 tokens cost 3.3 s.
    assertThat(route(PROMPT).prefillReplica()).isNotEqualTo("pf-0");
    // A new stats report includes that request: the count starts afresh.
    clock.nanos += TimeUnit.MILLISECONDS.toNanos(1);
    alive(0f, "pf-0");
    assertThat(route(PROMPT).prefillReplica()).isEqualTo("pf-0");
  }

  @Test
  void anUncachedPartAtTheThresholdIsDisaggregated() {
    topologies(fourByFour(1024));
    allAlive();
    holds("pf-1", 6); // exactly 1,024 uncached
    final PdRouteResult out = route(PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
    assertThat(out.prefillReplica()).isEqualTo("pf-1");
  }

  @Test
  void aZeroThresholdNeverPrefillsLocally() {
    topologies(fourByFour(0));
    allAlive();
    holds("pf-1", 8);
    assertThat(route(PROMPT).reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
  }

  // ---------------------------------------------------------------------------------------------
  // Topology resolution and the misses

  @Test
  void aRefNamesATopologyInAnyNamespace() {
    final PdTopology other =
        topology(
            "team-b",
            "shared",
            0,
            null,
            0,
            fourByFour(0).prefillPools(),
            fourByFour(0).decodePools());
    topologies(other);
    allAlive();
    final PdRouteResult out = route("team-b/shared", T, PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
    assertThat(out.topologyRef()).isEqualTo("team-b/shared");
    // Without the ref, team-a has none.
    assertNoPair(route(PROMPT), ReasonCodes.PD_TOPOLOGY_NOT_FOUND);
  }

  @Test
  void anUnknownRefIsTopologyNotFound() {
    topologies(fourByFour(0));
    allAlive();
    final PdRouteResult out = route("team-a/nope", T, PROMPT);
    assertNoPair(out, ReasonCodes.PD_TOPOLOGY_NOT_FOUND);
    assertThat(out.transportHint()).isEmpty();
  }

  @Test
  void aTenantWithoutTopologyOrWithoutIdIsTopologyNotFound() {
    assertNoPair(route(PROMPT), ReasonCodes.PD_TOPOLOGY_NOT_FOUND);
    topologies(fourByFour(0));
    assertNoPair(route("", "", PROMPT), ReasonCodes.PD_TOPOLOGY_NOT_FOUND);
  }

  @Test
  void aTenantWithSeveralTopologiesAndNoRefIsAmbiguous() {
    final PdTopology a = fourByFour(0);
    final PdTopology b = topology(T, "second", 0, null, 0, a.prefillPools(), a.decodePools());
    topologies(a, b);
    allAlive();
    assertNoPair(route(PROMPT), ReasonCodes.PD_TOPOLOGY_AMBIGUOUS);
    assertThat(route("team-a/second", T, PROMPT).reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
  }

  @Test
  void aRefThatIsNotNamespaceSlashNameIsNoHint() {
    topologies(fourByFour(0));
    for (String bad : List.of("llama-pd", "/llama-pd", "team-a/", "a/b/c")) {
      final PdRouteResult out = route(bad, T, PROMPT);
      assertNoPair(out, ReasonCodes.NO_HINT);
      assertThat(out.message()).contains("pd_topology_ref");
    }
  }

  @Test
  void aSideWithoutLiveReplicaIsPoolEmptyNamingTheSide() {
    topologies(fourByFour(0));
    alive(0f, "dc-0");
    final PdRouteResult noPrefill = route(PROMPT);
    assertNoPair(noPrefill, ReasonCodes.PD_POOL_EMPTY);
    assertThat(noPrefill.message()).contains("prefill");
    index.pdTopologies().replace(PdTopologySnapshot.EMPTY);
    topologies(
        topology(
            T,
            "other",
            0,
            null,
            0,
            List.of(new PdPool("p", "", List.of(m("dc-0", "")))),
            List.of(new PdPool("d", "", List.of(m("dc-9", ""))))));
    final PdRouteResult noDecode = route(PROMPT);
    assertNoPair(noDecode, ReasonCodes.PD_POOL_EMPTY);
    assertThat(noDecode.message()).contains("decode");
  }

  @Test
  void aPoolWithoutMembersIsPoolEmpty() {
    topologies(
        topology(
            T,
            "empty",
            0,
            null,
            0,
            List.of(new PdPool("prefill", "", List.of())),
            fourByFour(0).decodePools()));
    allAlive();
    assertNoPair(route(PROMPT), ReasonCodes.PD_POOL_EMPTY);
  }

  @Test
  void stalenessBeyondTheTtlTakesAReplicaOutButEntriesKeepItLive() {
    topologies(fourByFour(0));
    allAlive();
    holds("pf-3", 2); // entries in the scope: live without fresh stats
    clock.nanos += TimeUnit.MINUTES.toNanos(31); // past the default 30 min TTL
    alive(0f, "dc-1");
    final PdRouteResult out = route(PROMPT);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
    assertThat(out.prefillReplica()).isEqualTo("pf-3");
    assertThat(out.decodeReplica()).isEqualTo("dc-1");
  }

  @Test
  void aMalformedChainOrNegativePromptLengthIsNoHint() {
    topologies(fourByFour(0));
    allAlive();
    final PdRouteRequest in = new PdRouteRequest();
    final PdRouteResult out = new PdRouteResult();
    in.reset()
        .request()
        .keys(T, M, S, "")
        .addBlockHash(new byte[] {1})
        .addBlockTokenCount(16)
        .addBlockHash(new byte[] {2});
    router.route(in, out, System.nanoTime(), Long.MAX_VALUE);
    assertNoPair(out, ReasonCodes.NO_HINT);
    assertThat(out.message()).contains("block_token_counts");
    in.reset().promptTokens(-1).request().keys(T, M, S, "");
    router.route(in, out, System.nanoTime(), Long.MAX_VALUE);
    assertNoPair(out, ReasonCodes.NO_HINT);
    assertThat(out.message()).contains("prompt_token_count");
  }

  @Test
  void anExpiredDeadlineIsNoHint() {
    topologies(fourByFour(0));
    allAlive();
    final PdRouteRequest in = new PdRouteRequest();
    in.reset().request().keys(T, M, S, "");
    final PdRouteResult out = new PdRouteResult();
    router.route(in, out, System.nanoTime(), System.nanoTime() - 1);
    assertNoPair(out, ReasonCodes.NO_HINT);
  }

  @Test
  void withoutAChainThePromptLengthAloneWeighsPrefillAndTransfer() {
    topologies(fourByFour(1000));
    allAlive();
    final PdRouteRequest in = new PdRouteRequest();
    final PdRouteResult out = new PdRouteResult();
    in.reset().promptTokens(999).request().keys(T, M, S, "");
    router.route(in, out, System.nanoTime(), Long.MAX_VALUE);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_DECODE_LOCAL);
    assertThat(out.promptTokens()).isEqualTo(999);
    in.promptTokens(4096);
    router.route(in, out, System.nanoTime(), Long.MAX_VALUE);
    assertThat(out.reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
    // dc-0 carries the first answer: the less loaded dc-1 and its node's prefill replica.
    assertThat(out.prefillReplica()).isEqualTo("pf-1");
    assertThat(out.decodeReplica()).isEqualTo("dc-1");
  }

  @Test
  void theLegacyExactKeyWithoutSchemeCountsAsTheMatchedPrefix() {
    topologies(fourByFour(0));
    allAlive();
    index.ingest(IndexFixtures.legacy(T, M, S, "pf-2", "whole", 2048));
    final PdRouteRequest in = new PdRouteRequest();
    final PdRouteResult out = new PdRouteResult();
    // No hash_scheme (upstream's request has none): the (tenant, model)'s only scheme.
    in.reset()
        .promptTokens(4096)
        .request()
        .keys(T, M, "", "")
        .exact(IndexFixtures.h("whole"), 2048);
    router.route(in, out, System.nanoTime(), Long.MAX_VALUE);
    assertThat(out.prefillReplica()).isEqualTo("pf-2");
    assertThat(out.prefillMatchedTokens()).isEqualTo(2048);
  }

  @Test
  void theProbeTenantIsNeverRouted() {
    topologies(fourByFour(0));
    index.ingest(stats(CacheIndex.RESERVED_TENANT, M, "pf-0", 0f, 0f));
    assertNoPair(route("team-a/llama-pd", CacheIndex.RESERVED_TENANT, PROMPT), ReasonCodes.NO_HINT);
  }

  @Test
  void aReplacedSnapshotIsReadWholeAtTheNextCall() {
    topologies(fourByFour(0));
    allAlive();
    assertThat(route(PROMPT).reasonCode()).isEqualTo(ReasonCodes.PD_PAIR);
    index.pdTopologies().replace(PdTopologySnapshot.EMPTY);
    assertNoPair(route(PROMPT), ReasonCodes.PD_TOPOLOGY_NOT_FOUND);
  }

  // ---------------------------------------------------------------------------------------------
  // Allocation

  @Test
  void warmCallsAllocateNothing() {
    final com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    assumeTrue(threads.isThreadAllocatedMemorySupported());
    topologies(fourByFour(1024));
    allAlive();
    holds("pf-1", 5);
    holds("dc-2", 7);
    final PdRouteRequest in = new PdRouteRequest();
    final PdRouteResult out = new PdRouteResult();
    final byte[][] prompt = new byte[PROMPT.length][];
    for (int i = 0; i < prompt.length; i++) {
      prompt[i] = PROMPT[i].getBytes(StandardCharsets.UTF_8);
    }
    long least = Long.MAX_VALUE;
    long sink = 0;
    for (int round = 0; round < 20 && least >= 8 * 1024; round++) {
      final long before = threads.getCurrentThreadAllocatedBytes();
      for (int i = 0; i < 20_000; i++) {
        in.reset().topologyRef((i & 1) == 0 ? "" : "team-a/llama-pd");
        in.request().keys(T, M, S, "");
        final int blocks = (i & 2) == 0 ? 8 : 7;
        for (int b = 0; b < blocks; b++) {
          in.request().addBlockHash(prompt[b]).addBlockTokenCount(BLOCK);
        }
        router.route(in, out, System.nanoTime(), Long.MAX_VALUE);
        sink += out.prefillMatchedTokens();
      }
      least = Math.min(least, threads.getCurrentThreadAllocatedBytes() - before);
    }
    assertThat(sink).isPositive();
    assertThat(least).isLessThan(8 * 1024);
  }
}
