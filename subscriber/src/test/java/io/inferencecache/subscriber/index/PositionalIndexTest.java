package io.inferencecache.subscriber.index;

import static io.inferencecache.subscriber.Msgpack.tokens;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.inferencecache.engine.fingerprint.Fingerprint;
import io.inferencecache.subscriber.LogCapture;
import io.inferencecache.subscriber.decode.KvEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 10, unit = TimeUnit.SECONDS)
class PositionalIndexTest {
  /** docs/behaviour.md#fingerprint golden vectors: tokens 1..32, block size 16. */
  private static final long GOLDEN_1 = Long.parseUnsignedLong("16863443419780771464");

  private static final long GOLDEN_2 = Long.parseUnsignedLong("12466389667045779788");

  private final PositionalIndex index = new PositionalIndex();

  private static byte[] engineHash(final long h) {
    return Fingerprint.toWire(h);
  }

  private static KvEvent.BlockStored stored(
      final long[] hashes, final Long parent, final int[] tokens, final int blockSize) {
    final List<byte[]> engineHashes = new ArrayList<>();
    for (final long h : hashes) {
      engineHashes.add(engineHash(h));
    }
    return new KvEvent.BlockStored(
        engineHashes,
        parent == null ? null : engineHash(parent),
        tokens,
        blockSize,
        OptionalLong.empty());
  }

  private static KvEvent.BlockRemoved removed(final long... hashes) {
    final List<byte[]> engineHashes = new ArrayList<>();
    for (final long h : hashes) {
      engineHashes.add(engineHash(h));
    }
    return new KvEvent.BlockRemoved(engineHashes);
  }

  @Test
  void rootEventYieldsGoldenVectorsWithCumulativeCounts() {
    final List<PrefixRecord> records =
        index.stored(stored(new long[] {0xA, 0xB}, null, tokens(1, 32), 16), "");

    assertThat(records)
        .containsExactly(
            new PrefixRecord(Fingerprint.toWire(GOLDEN_1), 16, "", PrefixRecord.TIER_T1),
            new PrefixRecord(Fingerprint.toWire(GOLDEN_2), 32, "", PrefixRecord.TIER_T1));
    assertThat(index.size()).isEqualTo(2);
  }

  @Test
  void extensionChainsFromTheKnownParentAcrossEvents() {
    index.stored(stored(new long[] {0xA}, null, tokens(1, 16), 16), "");

    final List<PrefixRecord> records =
        index.stored(stored(new long[] {0xB}, 0xAL, tokens(17, 16), 16), "");

    assertThat(records)
        .containsExactly(
            new PrefixRecord(Fingerprint.toWire(GOLDEN_2), 32, "", PrefixRecord.TIER_T1));
  }

  @Test
  void chainedHashesMatchTheFingerprintWithAParent() {
    // The index chains exactly like Fingerprint.prefixHashes with hasParent (spec vector with
    // parent 0xDEADBEEF checks the same primitive).
    assertThat(Fingerprint.prefixHashes(tokens(50, 32), 0, 32, 16, true, 0xDEADBEEFL))
        .containsExactly(
            Long.parseUnsignedLong("13185224009891017151"),
            Long.parseUnsignedLong("2998384554010166533"));
    index.stored(stored(new long[] {1, 2}, null, tokens(0, 64), 32), "");
    final long parentPrefix = Fingerprint.prefixHashes(tokens(0, 64), 32)[1];

    final List<PrefixRecord> records =
        index.stored(stored(new long[] {3, 4, 5}, 2L, tokens(64, 48), 16), "a");

    final long[] expected = Fingerprint.prefixHashes(tokens(64, 48), 0, 48, 16, true, parentPrefix);
    assertThat(records).extracting(PrefixRecord::tokenCount).containsExactly(80, 96, 112);
    assertThat(records)
        .extracting(r -> Fingerprint.fromWire(r.prefixHash(), 0))
        .containsExactly(expected[0], expected[1], expected[2]);
    assertThat(records).extracting(PrefixRecord::adapterId).containsOnly("a");
  }

  @Test
  void unknownParentStartsAFreshRoot() {
    final List<PrefixRecord> records =
        index.stored(stored(new long[] {0xB}, 0x999L, tokens(17, 16), 16), "");

    assertThat(records)
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.prefixHash())
                  .isEqualTo(Fingerprint.toWire(Fingerprint.prefixHashes(tokens(17, 16), 16)[0]));
              assertThat(r.tokenCount()).isEqualTo(16);
            });
  }

  @Test
  void trailingPartialBlockIsDropped() {
    assertThat(index.stored(stored(new long[] {1, 2}, null, tokens(1, 40), 16), ""))
        .extracting(PrefixRecord::tokenCount)
        .containsExactly(16, 32);
  }

  @Test
  void countMismatchDropsTheEventAndWarns() {
    try (LogCapture logs = LogCapture.of(PositionalIndex.class)) {
      assertThat(index.stored(stored(new long[] {1, 2, 3}, null, tokens(1, 32), 16), "")).isEmpty();
      assertThat(index.stored(stored(new long[] {1}, null, new int[0], 16), "")).isEmpty();
      assertThat(index.stored(stored(new long[0], null, tokens(1, 32), 16), "")).isEmpty();

      assertThat(index.size()).isZero();
      assertThat(index.droppedMismatched()).isEqualTo(2);
      assertThat(logs.messages(Level.WARN))
          .singleElement()
          .asString()
          .contains("block_hashes=3 token_ids=32 block_size=16");
    }
  }

  @Test
  void removalResolvesKnownHashesAndForgetsThem() {
    index.stored(stored(new long[] {0xA, 0xB}, null, tokens(1, 32), 16), "sql-lora");

    final List<PositionalIndex.Evicted> evicted = index.removed(removed(0xB, 0x777));

    assertThat(evicted)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.prefixHash()).isEqualTo(Fingerprint.toWire(GOLDEN_2));
              assertThat(e.adapterId()).isEqualTo("sql-lora");
              assertThat(e.tokenCount()).isEqualTo(32);
            });
    assertThat(index.size()).isEqualTo(1);
    assertThat(index.removed(removed(0xB))).isEmpty();
    // a child of the forgotten block now starts a fresh root
    assertThat(index.stored(stored(new long[] {0xC}, 0xBL, tokens(33, 16), 16), "sql-lora"))
        .extracting(PrefixRecord::tokenCount)
        .containsExactly(16);
  }

  @Test
  void entriesListWhatTheIndexMirrorsOldestFirst() {
    index.stored(stored(new long[] {0xA, 0xB}, null, tokens(1, 32), 16), "");
    index.stored(stored(new long[] {0xC}, null, tokens(500, 16), 16), "sql-lora");
    index.removed(new KvEvent.BlockRemoved(List.of(engineHash(0xB))));
    final List<PrefixRecord> entries = index.entries();
    assertThat(entries).hasSize(2);
    assertThat(entries.get(0))
        .isEqualTo(new PrefixRecord(Fingerprint.toWire(GOLDEN_1), 16, "", PrefixRecord.TIER_T1));
    assertThat(entries.get(1).adapterId()).isEqualTo("sql-lora");
    assertThat(entries.get(1).tokenCount()).isEqualTo(16);
    index.clear();
    assertThat(index.entries()).isEmpty();
  }

  @Test
  void clearForgetsEverything() {
    index.stored(stored(new long[] {0xA, 0xB}, null, tokens(1, 32), 16), "");

    index.clear();

    assertThat(index.size()).isZero();
    assertThat(index.removed(removed(0xA, 0xB))).isEmpty();
  }

  @Test
  void capForgetsTheOldestBlocks() {
    final PositionalIndex small = new PositionalIndex(4);

    small.stored(stored(new long[] {1, 2, 3, 4, 5, 6}, null, tokens(0, 6), 1), "");

    assertThat(small.size()).isEqualTo(4);
    assertThat(small.overflowEvictions()).isEqualTo(2);
    assertThat(small.removed(removed(1, 2))).isEmpty();
    assertThat(small.removed(removed(6))).hasSize(1);
    assertThatThrownBy(() -> new PositionalIndex(0)).isInstanceOf(IllegalArgumentException.class);
  }
}
