package io.inferencecache.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.util.BitSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The storage budget and the LFU counters allocated a chunk at a time. */
class CounterArenaTest {
  private static final int CHUNK = CounterArena.CHUNK_SLOTS;

  @TempDir File dir;

  @Test
  void entriesWithoutCountersUseTheBudgetButNoMemory() {
    try (CounterArena a = CounterArena.inMemory(3)) {
      for (int i = 0; i < 3; i++) {
        final long sg = a.allocate(false);
        assertThat((int) (sg >>> 16)).isEqualTo(CounterArena.NO_COUNTER);
        assertThat((int) sg & 0xFFFF).isZero();
      }
      assertThat(a.hasFree()).isFalse();
      assertThat(a.allocate(false)).isEqualTo(-1);
      assertThat(a.bytes()).isZero();
      assertThat(a.incrementIfGeneration(CounterArena.NO_COUNTER, 0)).isFalse();
      assertThat(a.countAcquire(CounterArena.NO_COUNTER)).isZero();
      a.release(CounterArena.NO_COUNTER);
      assertThat(a.used()).isEqualTo(2);
      assertThat(a.hasFree()).isTrue();
    }
  }

  @Test
  void countersGrowAChunkAtATimeAndNeverPastTheBudget() {
    final int capacity = CHUNK + 10;
    try (CounterArena a = CounterArena.inMemory(capacity)) {
      a.allocate();
      assertThat(a.bytes()).isEqualTo((long) CHUNK * 8);
      for (int i = 1; i < CHUNK; i++) {
        a.allocate();
      }
      assertThat(a.bytes()).isEqualTo((long) CHUNK * 8);
      final long sg = a.allocate(); // the first slot of the second, shorter chunk
      assertThat((int) (sg >>> 16)).isEqualTo(CHUNK);
      assertThat(a.bytes()).isEqualTo((long) capacity * 8);
      assertThat(a.incrementIfGeneration(CHUNK, (int) sg & 0xFFFF)).isTrue();
      assertThat(a.countAcquire(CHUNK)).isEqualTo(1);
      assertThat(a.counters()).isEqualTo(CHUNK + 1);
    }
  }

  @Test
  void assignGivesACounterWithoutTouchingTheBudget() {
    try (CounterArena a = CounterArena.inMemory(4)) {
      a.allocate(false);
      final long sg = a.assign();
      assertThat(a.used()).isEqualTo(1);
      assertThat(a.counters()).isEqualTo(1);
      assertThat(a.incrementIfGeneration((int) (sg >>> 16), (int) sg & 0xFFFF)).isTrue();
      a.release((int) (sg >>> 16));
      assertThat(a.used()).isZero();
      assertThat(a.counters()).isZero();
      assertThat(a.incrementIfGeneration((int) (sg >>> 16), (int) sg & 0xFFFF))
          .as("a freed counter's late credit is discarded")
          .isFalse();
    }
  }

  @Test
  void aMappedArenaGrowsItsFileAndReopensWithItsCounts() throws IOException {
    final File f = new File(dir, "c.counters");
    final int capacity = 3 * CHUNK;
    long sg;
    try (CounterArena a = CounterArena.mapped(f, capacity)) {
      assertThat(f.length()).isZero();
      for (int i = 0; i < CHUNK; i++) {
        a.allocate();
      }
      sg = a.allocate();
      a.incrementIfGeneration((int) (sg >>> 16), (int) sg & 0xFFFF);
      assertThat(f.length()).isEqualTo(2L * CHUNK * 8);
    }
    try (CounterArena a = CounterArena.mapped(f, capacity)) {
      assertThat(a.bytes()).isEqualTo(2L * CHUNK * 8);
      assertThat(a.claimOnRecovery((int) (sg >>> 16), (int) sg & 0xFFFF)).isTrue();
      assertThat(a.claimOnRecovery(2 * CHUNK, 1)).as("a slot past the file").isFalse();
      final BitSet used = new BitSet();
      used.set((int) (sg >>> 16));
      a.rebuildFreeList(used, 5);
      assertThat(a.countAcquire((int) (sg >>> 16))).isEqualTo(1);
      assertThat(a.used()).isEqualTo(5);
      assertThat(a.counters()).isEqualTo(1);
    }
  }

  @Test
  void aFullSizeFileOfTheEarlierFormatOpensAndALargerOneIsRefused() throws IOException {
    final File f = new File(dir, "old.counters");
    try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
      raf.setLength(1000L * 8); // the earlier format: the whole budget, zeroed
    }
    try (CounterArena a = CounterArena.mapped(f, 1000)) {
      assertThat(a.bytes()).isEqualTo(1000L * 8);
      assertThat(a.claimOnRecovery(999, 0)).isTrue();
    }
    assertThatThrownBy(() -> CounterArena.mapped(f, 999))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("expected a multiple of 8 up to 7992");
    try (RandomAccessFile raf = new RandomAccessFile(f, "rw")) {
      raf.setLength(800L * 8 + 3); // a torn last word
    }
    assertThatThrownBy(() -> CounterArena.mapped(f, 1000))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("has 6403 bytes");
  }

  @Test
  void roomForCountersEndsAtTheBudgetAndCountsTheFreeList() {
    try (CounterArena a = CounterArena.inMemory(CHUNK + 4)) {
      assertThat(a.counterRoom(CHUNK + 4)).isTrue();
      assertThat(a.bytes()).as("both chunks made ready").isEqualTo((CHUNK + 4) * 8L);
      assertThat(a.counterRoom(CHUNK + 5)).isFalse();
      final long sg = a.allocate();
      a.release((int) (sg >>> 16));
      assertThat(a.counterRoom(CHUNK + 4)).as("the freed slot counts").isTrue();
    }
  }
}
