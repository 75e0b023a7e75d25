package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * Adapter partitions of the content key (docs/behaviour.md#index-model and docs/behaviour.md#ingest
 * and docs/behaviour.md#events; checklist 11–19).
 */
class AdapterPartitionTest extends IndexTestSupport {

  private LookupRequest exact(final String adapter, final String hash) {
    final LookupRequest q = exactReq("t", "m", "vllm", hash, 64);
    q.adapter().set(adapter);
    return q;
  }

  @Test
  void sameHashUnderTwoAdaptersNeverAliases() {
    ingest(update("t", "m", "vllm", "ra").adapter("A").legacy("p", 64));
    ingest(update("t", "m", "vllm", "rb").adapter("B").legacy("p", 64));
    assertThat(names(route(exact("A", "p")))).containsExactly("ra");
    assertThat(names(route(exact("B", "p")))).containsExactly("rb");
  }

  @Test
  void sameAdapterReturnsEveryHolder() {
    ingest(update("t", "m", "vllm", "r1").adapter("A").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r2").adapter("A").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r3").adapter("B").legacy("q", 64));
    route(exact("A", "p"));
    assertThat(names(r)).containsExactly("r1", "r2");
    // the distinguishing-power scope has no adapter: 2 of 3 replicas
    LookupScoringTest.assertBits(r.score(0), (float) 64 * IndexFixtures.specDp(2, 3));
  }

  @Test
  void absentAdapterIsItsOwnLegacyPartition() {
    ingest(update("t", "m", "vllm", "r0").legacy("p", 64));
    ingest(update("t", "m", "vllm", "ra").adapter("A").legacy("p", 64));
    assertThat(names(route(exact("", "p")))).containsExactly("r0");
    assertThat(names(route(exact("A", "p")))).containsExactly("ra");
    assertThat(r.matchedTokens(0)).isEqualTo(64);
  }

  @Test
  void updateAdapterIsTheDefaultAndAnEntryAdapterOverridesIt() {
    ingest(update("t", "m", "vllm", "r1").adapter("A").legacy("p1", 64).legacyFor("B", "p2", 32));
    assertThat(names(route(exact("A", "p1")))).containsExactly("r1");
    assertThat(route(exact("A", "p2")).size()).isZero();
    assertThat(names(route(exact("B", "p2")))).containsExactly("r1");
    assertThat(route(exact("B", "p1")).size()).isZero();
    assertThat(route(exact("", "p1")).size()).isZero();
  }

  @Test
  void chainExpansionLandsInTheEntrysPartitionAndChainLookupsDoNotCross() {
    ingest(
        update("t", "m", "vllm", "r1")
            .adapter("A")
            .prefix(
                IngestPrefix.chain(
                        java.util.List.of(IndexFixtures.h("b0"), IndexFixtures.h("b1")),
                        new int[] {16, 16},
                        0)
                    .withAdapter("B")));
    final LookupRequest q = chainReq("t", "m", "vllm", 16, "b0", "b1");
    q.adapter().set("A");
    assertThat(route(q).size()).isZero();
    q.adapter().set("");
    assertThat(route(q).size()).isZero();
    q.adapter().set("B");
    assertThat(route(q).matchedTokens(0)).isEqualTo(32);
  }

  @Test
  void prefixEvictedWithAnAdapterRemovesOnlyThatPartition() {
    ingest(update("t", "m", "vllm", "r1").adapter("A").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r1").adapter("B").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p", "A"));
    assertThat(route(exact("A", "p")).size()).isZero();
    assertThat(names(route(exact("B", "p")))).containsExactly("r1");
    assertThat(names(route(exact("", "p")))).containsExactly("r1");
    assertThat(index.totalEntries()).isEqualTo(2);
  }

  @Test
  void prefixEvictedNamingAnUnknownAdapterRemovesNothing() {
    ingest(update("t", "m", "vllm", "r1").adapter("A").legacy("p", 64));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p", "never-seen"));
    assertThat(names(route(exact("A", "p")))).containsExactly("r1");
  }

  @Test
  void prefixEvictedWithoutAnAdapterSweepsEveryPartition() {
    ingest(update("t", "m", "vllm", "r1").adapter("A").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r1").adapter("B").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r2").adapter("A").legacy("p", 64));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p", ""));
    assertThat(names(route(exact("A", "p")))).containsExactly("r2");
    assertThat(route(exact("B", "p")).size()).isZero();
    assertThat(route(exact("", "p")).size()).isZero();
    assertThat(index.totalEntries()).isEqualTo(1);
  }

  @Test
  void allClearedIgnoresTheAdapter() {
    ingest(update("t", "m", "vllm", "r1").adapter("A").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r1").adapter("B").legacy("q", 64));
    ingest(update("t", "m", "sglang", "r1").legacy("p", 64));
    ingest(update("t", "m", "vllm", "r2").adapter("A").legacy("p", 64));
    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", null, "B"));
    assertThat(names(route(exact("A", "p")))).containsExactly("r2");
    assertThat(route(exact("B", "q")).size()).isZero();
    assertThat(index.totalEntries()).isEqualTo(1);
  }

  @Test
  void unseenAdapterInAKnownScopeIsANovelPrefixMiss() {
    ingest(update("t", "m", "vllm", "r1").adapter("A").legacy("p", 64));
    route(exact("never-seen", "p"));
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
    assertThat(r.size()).isZero();
    route(exact("", "p"));
    assertThat(r.outcome()).isEqualTo(Outcome.NONE);
  }
}
