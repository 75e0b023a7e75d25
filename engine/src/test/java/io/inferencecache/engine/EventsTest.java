package io.inferencecache.engine;

import static io.inferencecache.engine.IndexFixtures.event;
import static io.inferencecache.engine.IndexFixtures.exactReq;
import static io.inferencecache.engine.IndexFixtures.h;
import static io.inferencecache.engine.IndexFixtures.micros;
import static io.inferencecache.engine.IndexFixtures.minutes;
import static io.inferencecache.engine.IndexFixtures.update;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** PublishEvent semantics (docs/behaviour.md#events; checklist 10, 62, 71). */
class EventsTest extends IndexTestSupport {

  @Test
  void prefixEvictedRemovesOneHolderAndAllClearedTheReplicasRest() {
    ingest(update("t", "m", "vllm", "r1").legacy("p1", 64).legacy("p2", 64));
    ingest(update("t", "m", "vllm", "r2").legacy("p1", 64));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p1", ""));
    assertThat(names(route(exactReq("t", "m", "vllm", "p1", 0)))).containsExactly("r2");
    assertThat(names(route(exactReq("t", "m", "vllm", "p2", 0)))).containsExactly("r1");
    assertThat(index.totalEntries()).isEqualTo(2);

    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", null, ""));
    assertThat(route(exactReq("t", "m", "vllm", "p2", 0)).size()).isZero();
    assertThat(names(route(exactReq("t", "m", "vllm", "p1", 0)))).containsExactly("r2");
    assertThat(index.totalEntries()).isEqualTo(1);
    assertThat(index.totalKeys()).isEqualTo(1);
  }

  @Test
  void prefixEvictedRemovesTheReplicaUnderEveryHashScheme() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("t", "m", "sglang", "r1").legacy("p", 64));
    ingest(update("t", "m", "sglang", "r1").legacy("q", 64));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p", ""));
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).size()).isZero();
    assertThat(route(exactReq("t", "m", "sglang", "p", 0)).size()).isZero();
    assertThat(names(route(exactReq("t", "m", "sglang", "q", 0)))).containsExactly("r1");
  }

  @Test
  void prefixEvictedIsScopedToTenantAndModel() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("t", "m2", "vllm", "r1").legacy("p", 64));
    ingest(update("u", "m", "vllm", "r1").legacy("p", 64));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "p", ""));
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).size()).isZero();
    assertThat(route(exactReq("t", "m2", "vllm", "p", 0)).size()).isEqualTo(1);
    assertThat(route(exactReq("u", "m", "vllm", "p", 0)).size()).isEqualTo(1);
  }

  @Test
  void prefixAddedRefreshesNothingSoEntriesStillExpire() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    ingest(update("t", "m", "sglang", "r1").legacy("p", 64));
    clock.advance(29, TimeUnit.MINUTES);
    final IndexEvent added =
        new IndexEvent(IndexEvent.Type.PREFIX_ADDED, "r1", "m", "t", h("p"), 0, "");
    index.applyEvent(added);
    clock.advance(1, TimeUnit.MINUTES);
    assertThat(route(exactReq("t", "m", "vllm", "p", 0)).size()).isZero();
    assertThat(route(exactReq("t", "m", "sglang", "p", 0)).size()).isZero();
    assertThat(index.sweepExpired()).isEqualTo(2);
  }

  @Test
  void replicaUpdatedRefreshesLivenessOnlyAndKeepsTheStatsRowThroughSweeps() {
    ingest(update("t", "m", "vllm", "r1").stats(0.5f, 0.25f));
    final long reported = clock.now;
    clock.advance(20, TimeUnit.MINUTES);
    index.applyEvent(event(IndexEvent.Type.REPLICA_UPDATED, "t", "m", "r1", null, ""));
    final long refreshed = clock.now;
    clock.advance(20, TimeUnit.MINUTES); // 40 min after the report, 20 after the event
    index.sweepExpired();
    assertThat(index.cacheState("t", "m").replicas()).hasSize(1);
    final IndexSnapshot.ReplicaRow row = index.snapshot().replicas().get(0);
    assertThat(row.lastUpdateNanos()).isEqualTo(refreshed).isNotEqualTo(reported);
    clock.advance(10, TimeUnit.MINUTES);
    index.sweepExpired();
    assertThat(index.cacheState("t", "m").replicas()).isEmpty();
  }

  @Test
  void replicaUpdatedTakesANonZeroTimestampLiterally() {
    ingest(update("t", "m", "vllm", "r1").stats(0.5f, 0.25f));
    final long at = clock.now + minutes(7);
    index.applyEvent(
        new IndexEvent(IndexEvent.Type.REPLICA_UPDATED, "r1", "m", "t", null, micros(at), ""));
    assertThat(index.snapshot().replicas().get(0).lastUpdateNanos()).isEqualTo(at);
  }

  @Test
  void replicaUpdatedWithoutAStatsRowCreatesNone() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    index.applyEvent(event(IndexEvent.Type.REPLICA_UPDATED, "t", "m", "r1", null, ""));
    assertThat(index.cacheState("t", "m").replicas()).isEmpty();
    assertThat(index.snapshot().replicas().get(0).statsReported()).isFalse();
  }

  @Test
  void allClearedRemovesTheReplicaEverywhereInTheModelAndDeletesItsStatsRow() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64).stats(0.5f, 0f));
    ingest(update("t", "m", "sglang", "r1").chain(16, "b0", "b1"));
    ingest(update("t", "m2", "vllm", "r1").legacy("p", 64).stats(0.5f, 0f));
    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", null, ""));
    assertThat(index.cacheState("t", "m").replicas()).isEmpty();
    assertThat(index.cacheState("t", "m").totalPrefixes()).isZero();
    assertThat(index.cacheState("t", "m2").replicas()).hasSize(1);
    assertThat(index.cacheState("t", "m2").totalPrefixes()).isEqualTo(1);
    assertThat(index.totalEntries()).isEqualTo(1);
  }

  @Test
  void allClearedForAStatsOnlyReplicaDeletesTheRow() {
    ingest(update("t", "m", "vllm", "r1").stats(0.5f, 0f));
    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "m", "r1", null, ""));
    assertThat(index.cacheState("t", "m").replicas()).isEmpty();
  }

  @Test
  void unspecifiedAndUnknownEventTypesAreIgnored() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64).stats(0.5f, 0f));
    assertThat(IndexEvent.Type.fromWire(0)).isEqualTo(IndexEvent.Type.UNSPECIFIED);
    assertThat(IndexEvent.Type.fromWire(99)).isEqualTo(IndexEvent.Type.UNSPECIFIED);
    assertThat(IndexEvent.Type.fromWire(2)).isEqualTo(IndexEvent.Type.PREFIX_EVICTED);
    assertThat(IndexEvent.Type.fromWire(4)).isEqualTo(IndexEvent.Type.ALL_CLEARED);
    index.applyEvent(event(IndexEvent.Type.fromWire(99), "t", "m", "r1", "p", ""));
    assertThat(index.totalEntries()).isEqualTo(1);
    assertThat(index.cacheState("t", "m").replicas()).hasSize(1);
  }

  @Test
  void eventsForUnknownKeysChangeNothing() {
    ingest(update("t", "m", "vllm", "r1").legacy("p", 64));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "x", "m", "r1", "p", ""));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "x", "r1", "p", ""));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "nobody", "p", ""));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "other", ""));
    index.applyEvent(event(IndexEvent.Type.ALL_CLEARED, "t", "m", "nobody", null, ""));
    index.applyEvent(event(IndexEvent.Type.REPLICA_UPDATED, "x", "y", "z", null, ""));
    assertThat(index.totalEntries()).isEqualTo(1);
    assertThat(names(route(exactReq("t", "m", "vllm", "p", 0)))).containsExactly("r1");
  }

  @Test
  void removingEveryHolderRemovesTheKeyAndFreesItsCounts() {
    ingest(update("t", "m", "vllm", "r1").chain(16, "b0", "b1"));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "b0", ""));
    index.applyEvent(event(IndexEvent.Type.PREFIX_EVICTED, "t", "m", "r1", "b1", ""));
    assertThat(index.totalKeys()).isZero();
    assertThat(index.totalEntries()).isZero();
    assertThat(index.modelKeys("m")).isZero();
  }
}
