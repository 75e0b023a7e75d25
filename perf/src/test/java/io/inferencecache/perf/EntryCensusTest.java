package io.inferencecache.perf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.inferencecache.engine.StorageProbe;
import io.inferencecache.engine.internal.EntryCensus;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EntryCensusTest {
  @Test
  void pinnedCensusAccountsForEveryUsedByteAndEveryHolderBlock() {
    final SyntheticChains w = SyntheticChains.pinned(40);
    try (IndexUnderTest index = IndexUnderTest.build(IndexUnderTest.OFFHEAP, w)) {
      final IndexUnderTest.Engine e = (IndexUnderTest.Engine) index;
      final EntryCensus c = StorageProbe.census(e.index);
      assertThat(c.runs).isEqualTo(40); // one 64-block run per chain, no locator entries
      assertThat(c.locators).isZero();
      // the block directory: a slot per block key, a run id (12 B first key) per 64-block run
      assertThat(c.directorySlotBytes).isEqualTo(8 * w.distinctKeys());
      assertThat(c.runIdBytes).isEqualTo(12 * 40L);
      assertThat(c.presentCells).isEqualTo(w.holderBlocks());
      assertThat(c.cellBytes).isEqualTo(8 * w.holderBlocks()); // full 64 x 16 runs
      // one segment per column of each 64-row run: (16 + 1) × 2 B of index + 16 × 4 B
      assertThat(c.segmentBytes).isEqualTo(c.runs * (17 * 2 + 16 * 4));
      final Map<String, Double> b = index.breakdown();
      final double used = (double) index.usedOffHeapBytes() / w.holderBlocks();
      assertThat(b.get("used")).isCloseTo(used, within(1e-9));
      assertThat(b.get("lfuCounters")).isZero(); // an LRU tenant (the default) has no counters
      assertThat(b.get("used") + b.get("allocatedUnused"))
          .isCloseTo((double) index.offHeapBytes() / w.holderBlocks(), within(1e-9));
    }
  }

  @Test
  void singleHolderKeysAreUnitRunsWithoutRunIds() {
    final SyntheticChains w = SyntheticChains.singleHolder(3_000);
    try (IndexUnderTest index = IndexUnderTest.build(IndexUnderTest.OFFHEAP, w)) {
      final EntryCensus c = StorageProbe.census(((IndexUnderTest.Engine) index).index);
      assertThat(c.runs).isEqualTo(3_000);
      assertThat(c.locators).isZero();
      assertThat(c.runIdBytes).isZero(); // a one-block run needs no id
      assertThat(c.directorySlotBytes).isEqualTo(8 * 3_000L);
      assertThat(c.headerBytes).isEqualTo(2 * 3_000L); // unit header: tag and flags
      assertThat(c.usedBytes()).isEqualTo(index.usedOffHeapBytes()); // LRU: no LFU counters
    }
  }
}
