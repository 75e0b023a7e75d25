package io.inferencecache.perf.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class SimulatedReplicasTest {
  private static final List<long[]> EVICTED = new ArrayList<>();

  private static int serve(
      final SimulatedReplicas s, final int r, final long[] chain, final long at, final int out) {
    return s.serve(r, chain, at, out, (rep, key) -> EVICTED.add(new long[] {rep, key}));
  }

  @Test
  void evictsTheOldestChainsButKeepsPrefixesSharedWithNewerOnes() {
    EVICTED.clear();
    final SimulatedReplicas s = new SimulatedReplicas(1, 2, 5, 1.0);
    assertThat(serve(s, 0, new long[] {1, 2, 3}, 0, 0)).isZero();
    assertThat(serve(s, 0, new long[] {1, 2, 4}, 1, 0)).isZero();
    assertThat(s.storedBlocks(0)).isEqualTo(4);
    assertThat(s.prefixMatch(0, new long[] {1, 2, 3, 9})).isEqualTo(3);
    // 1,2,4 + 5,6 = 6 blocks > 5: the oldest chain {1,2,3} goes; 1 and 2 stay (in {1,2,4}).
    assertThat(serve(s, 0, new long[] {1, 5, 6}, 2, 0)).isEqualTo(1);
    assertThat(EVICTED).hasSize(1);
    assertThat(EVICTED.get(0)).containsExactly(0, 3);
    assertThat(s.storedBlocks(0)).isEqualTo(5);
    assertThat(s.prefixMatch(0, new long[] {1, 2, 3})).isEqualTo(2);
    assertThat(s.prefixMatch(0, new long[] {1, 5, 6})).isEqualTo(3);
    assertThat(s.prefixMatch(1, new long[] {1})).isZero();
    assertThat(s.storedBlocks()).isEqualTo(5);
  }

  @Test
  void aChainServedTwiceStaysUntilItsLastCopyIsEvicted() {
    EVICTED.clear();
    final SimulatedReplicas s = new SimulatedReplicas(1, 1, 3, 1.0);
    serve(s, 0, new long[] {1, 2}, 0, 0);
    serve(s, 0, new long[] {1, 2}, 0, 0);
    serve(s, 0, new long[] {7}, 0, 0);
    assertThat(s.storedBlocks(0)).isEqualTo(3);
    serve(
        s,
        0,
        new long[] {8},
        0,
        0); // 4 > 3: drops the first {1,2}, nothing evicted, then the second
    assertThat(EVICTED).extracting(e -> e[1]).containsExactly(1L, 2L);
    assertThat(s.storedBlocks(0)).isEqualTo(2);
  }

  @Test
  void loadIsTheBlocksOfTheRequestsInFlight() {
    final SimulatedReplicas s = new SimulatedReplicas(2, 2, 100, 10.0);
    s.serve(0, new long[] {1, 2, 3}, 0, 5, null); // in flight until 50 ms
    s.serve(0, new long[] {4}, 10, 1, null); // until 20 ms
    s.serve(1, new long[] {5, 6}, 10, 10, null); // until 110 ms
    assertThat(s.activeBlocks(0)).isEqualTo(4);
    assertThat(s.leastLoaded(0)).isEqualTo(1);
    s.advance(0, 20);
    assertThat(s.activeBlocks(0)).isEqualTo(3);
    s.advance(0, 50);
    assertThat(s.activeBlocks(0)).isZero();
    assertThat(s.leastLoaded(0)).isEqualTo(0);
    assertThat(s.activeBlocks(1)).isEqualTo(2);
    // copy 1 is replicas 2 and 3
    assertThat(s.first(1)).isEqualTo(2);
    assertThat(s.leastLoaded(1)).isEqualTo(2);
    assertThat(s.requests(0)).isEqualTo(2);
    assertThat(s.requestImbalance()).isCloseTo(8.0 / 3, org.assertj.core.data.Offset.offset(1e-9));
  }
}
