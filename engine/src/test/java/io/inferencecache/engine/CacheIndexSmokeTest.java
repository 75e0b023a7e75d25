package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.chain;
import static io.inferencecache.engine.IndexFixtures.chainReq;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.legacy;
import static io.inferencecache.engine.IndexFixtures.replicas;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class CacheIndexSmokeTest {
  private final IndexFixtures.ManualClock clock = new IndexFixtures.ManualClock();
  private final CacheIndex index =
      CacheIndex.open(new IndexConfig().maxEntries(10_000).clock(clock));
  private final LookupResult r = new LookupResult();

  @AfterEach
  void close() {
    index.close();
  }

  @Test
  void legacyIngestThenExactLookupFindsTheReplica() {
    index.ingest(legacy("t", "m", "vllm", "r1", "p1", 100));
    index.lookupAndClassify(exactReq("t", "m", "vllm", "p1", 100), r);
    assertThat(r.outcome()).isEqualTo(Outcome.PREFIX_MATCH);
    assertThat(replicas(index, r)).containsExactly("r1");
    assertThat(r.score(0)).isEqualTo(100f);
    assertThat(index.verifyCounts()).isEmpty();
  }

  @Test
  void chainWalkReturnsLongestCommonPrefixPerReplica() {
    index.ingest(chain("t", "m", "vllm", "a", 16, "b0", "b1", "b2", "x3", "x4"));
    index.ingest(chain("t", "m", "vllm", "b", 16, "b0", "y1", "y2", "y3", "y4"));
    index.lookupAndClassify(chainReq("t", "m", "vllm", 16, "b0", "b1", "b2", "b3", "b4"), r);
    assertThat(r.outcome()).isEqualTo(Outcome.PREFIX_MATCH);
    assertThat(replicas(index, r)).containsExactly("a", "b");
    assertThat(r.matchedTokens(0)).isEqualTo(48);
    assertThat(r.matchedTokens(1)).isEqualTo(16);
    assertThat(index.verifyCounts()).isEmpty();
  }

  @Test
  void sweepRemovesExpiredEntriesAndCountsStayConsistent() {
    index.ingest(legacy("t", "m", "vllm", "r1", "p1", 100));
    clock.advance(31, TimeUnit.MINUTES);
    assertThat(index.sweepExpired()).isEqualTo(1);
    assertThat(index.totalEntries()).isZero();
    assertThat(index.verifyCounts()).isEmpty();
  }
}
