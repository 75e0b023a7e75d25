package io.inferencecache.perf;

import static org.assertj.core.api.Assertions.assertThat;

import net.openhft.chronicle.map.ChronicleMap;
import org.junit.jupiter.api.Test;

class ChronicleWriteFloorBenchmarkTest {
  private final ChronicleWriteFloorBenchmark bench = new ChronicleWriteFloorBenchmark();

  private static ChronicleWriteFloorBenchmark.NewKeys newKeys(final long entries, final long fill) {
    final ChronicleWriteFloorBenchmark.NewKeys s = new ChronicleWriteFloorBenchmark.NewKeys();
    s.entries = entries;
    s.fill = fill;
    s.open();
    return s;
  }

  private static byte[] valueOf(
      final ChronicleMap<byte[], byte[]> map,
      final long block,
      final ChronicleWriteFloorBenchmark.Writer w) {
    w.fillKey(block);
    return map.get(w.key.clone());
  }

  @Test
  void insertModesAddABatchOfNewKeysOfTheirValueSizeAndTheFillIsRestoredAfter() {
    final ChronicleWriteFloorBenchmark.NewKeys s = newKeys(200_000, 1_000);
    try {
      assertThat(s.map().longSize()).isEqualTo(1_000);

      s.mark();
      bench.insertLocator(s);
      assertThat(s.map().longSize()).isEqualTo(1_000 + ChronicleWriteFloorBenchmark.BATCH);
      final byte[] locator = valueOf(s.map(), s.nextBlock - 1, s);
      assertThat(locator).hasSize(BareChronicleMap.LOCATOR_BYTES);
      assertThat(locator[0]).isEqualTo(BareChronicleMap.LOCATOR_TAG);
      s.removeInserted();
      assertThat(s.map().longSize()).isEqualTo(1_000);
      assertThat(valueOf(s.map(), s.nextBlock - 1, s)).isNull();

      s.mark();
      bench.insertUnitRun(s);
      assertThat(s.map().longSize()).isEqualTo(1_000 + ChronicleWriteFloorBenchmark.BATCH);
      assertThat(valueOf(s.map(), s.nextBlock - 1, s)).hasSize(BareChronicleMap.UNIT_RUN_BYTES);
      s.removeInserted();
      assertThat(s.map().longSize()).isEqualTo(1_000);
    } finally {
      s.closeMap();
    }
  }

  @Test
  void prefaultLeavesOnlyTheFillAndTouchesTheMapsMemory() {
    final ChronicleWriteFloorBenchmark.NewKeys s = new ChronicleWriteFloorBenchmark.NewKeys();
    s.entries = 200_000;
    s.fill = 50;
    s.prefault = 20_000;
    s.open();
    try {
      assertThat(s.prefaulted).isEqualTo(20_000); // every prefault key was new, then removed
      assertThat(s.map().longSize()).isEqualTo(50);
      s.mark();
      assertThat(s.firstThisInvocation).isGreaterThanOrEqualTo(50);
      bench.insertLocator(s);
      s.removeInserted();
      assertThat(s.map().longSize()).isEqualTo(50);
    } finally {
      s.closeMap();
    }
  }

  @Test
  void newChainStoresOneRunAnd63LocatorsAChain() {
    final ChronicleWriteFloorBenchmark.NewKeys s = newKeys(200_000, 10);
    try {
      s.mark();
      final long first = s.firstThisInvocation;
      assertThat(first % ChronicleWriteFloorBenchmark.BLOCKS).isZero();
      bench.newChain(s);
      assertThat(s.map().longSize()).isEqualTo(10 + ChronicleWriteFloorBenchmark.BATCH);
      for (int c = 0; c < ChronicleWriteFloorBenchmark.CHAINS_PER_BATCH; c++) {
        final long head = first + (long) c * ChronicleWriteFloorBenchmark.BLOCKS;
        final byte[] run = valueOf(s.map(), head, s);
        assertThat(run).hasSize(ChronicleWriteFloorBenchmark.CHAIN_RUN_BYTES);
        assertThat(run[0]).isEqualTo(BareChronicleMap.RUN_TAG);
        s.fillKey(head);
        final byte[] headHash = java.util.Arrays.copyOfRange(s.key, 4, 12);
        final byte[] loc = valueOf(s.map(), head + 5, s);
        assertThat(loc[0]).isEqualTo(BareChronicleMap.LOCATOR_TAG);
        assertThat(loc[1]).isEqualTo((byte) 5);
        assertThat(java.util.Arrays.copyOfRange(loc, 2, 10)).isEqualTo(headHash);
      }
      s.removeInserted();
      assertThat(s.map().longSize()).isEqualTo(10);
    } finally {
      s.closeMap();
    }
  }

  @Test
  void removeTakesOutTheBatchInsertedBeforeIt() {
    final ChronicleWriteFloorBenchmark.StoredKeys s = new ChronicleWriteFloorBenchmark.StoredKeys();
    s.entries = 200_000;
    s.fill = 100;
    s.open();
    try {
      s.insertBatch();
      assertThat(s.map().longSize()).isEqualTo(100 + ChronicleWriteFloorBenchmark.BATCH);
      bench.remove(s);
      assertThat(s.map().longSize()).isEqualTo(100);
      s.checkRemoved();
    } finally {
      s.closeMap();
    }
  }

  @Test
  void refreshModesReplaceTheRunInPlaceWithTheSameSize() {
    final ChronicleWriteFloorBenchmark.HeldRuns s = new ChronicleWriteFloorBenchmark.HeldRuns();
    s.refreshChains = 8;
    s.open();
    try {
      assertThat(s.map().longSize()).isEqualTo(8L * ChronicleWriteFloorBenchmark.BLOCKS);
      final int chain = s.order[0];
      assertThat(bench.replaceInPlace(s)).isEqualTo(ChronicleWriteFloorBenchmark.PINNED_RUN_BYTES);
      final byte[] run = valueOf(s.map(), (long) chain * ChronicleWriteFloorBenchmark.BLOCKS, s);
      assertThat(run).hasSize(ChronicleWriteFloorBenchmark.PINNED_RUN_BYTES);
      assertThat(run[s.seenOffset]).isEqualTo((byte) 1); // lastSeen 1, little endian
      assertThat(bench.refreshChain(s)).isEqualTo(ChronicleWriteFloorBenchmark.PINNED_RUN_BYTES);
      assertThat(s.map().longSize()).isEqualTo(8L * ChronicleWriteFloorBenchmark.BLOCKS);
    } finally {
      s.closeMap();
    }
  }
}
