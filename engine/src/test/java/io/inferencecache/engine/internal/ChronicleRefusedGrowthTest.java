package io.inferencecache.engine.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ChronicleMapBuilder;
import org.junit.jupiter.api.Test;

/**
 * Pins the Chronicle Map behaviour {@link RunEntries}' writes work around: replacing a value with a
 * larger one that does not fit where the entry is, in a full map, throws after the entry's chunks
 * were freed, its hash-lookup slot still naming them. The entry reads as before until the next
 * insert in the segment takes those chunks; then its key is gone and the slot names the new key (an
 * iteration visits that key twice). If this test fails after a Chronicle upgrade, the library no
 * longer loses such an entry and {@code RunEntries}' remove-and-insert of a growing value could go
 * back to an in-place replace.
 */
class ChronicleRefusedGrowthTest {
  private static byte[] key(final int i) {
    return String.format("k%011d", i).getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] value(final int length, final int fill) {
    final byte[] v = new byte[length];
    Arrays.fill(v, (byte) fill);
    return v;
  }

  @Test
  void aRefusedGrowthFreesTheEntryForTheNextInsert() {
    try (ChronicleMap<byte[], byte[]> map =
        ChronicleMapBuilder.of(byte[].class, byte[].class)
            .entries(64)
            .averageKeySize(12)
            .averageValueSize(40)
            .actualChunkSize(8)
            .actualSegments(1)
            .maxBloatFactor(1.0)
            .create()) {
      int n = 0;
      try {
        for (; n < 10_000; n++) {
          map.put(key(n), value(40, 7));
        }
      } catch (IllegalStateException full) {
        // the map is full
      }
      assertThat(n).as("the map filled").isLessThan(10_000);
      final long size = map.longSize();
      assertThatThrownBy(() -> map.put(key(0), value(400, 9)))
          .isInstanceOf(IllegalStateException.class);
      assertThat(map.get(key(0))).as("reads as before").isEqualTo(value(40, 7));
      assertThat(map.longSize()).as("but is no longer counted").isEqualTo(size - 1);

      map.remove(key(1));
      int inserted = 0;
      for (int i = 0; i < 50; i++) {
        try {
          map.put(key(100_000 + i), value(16, 3));
          inserted++;
        } catch (IllegalStateException full) {
          // no room for this one
        }
      }
      assertThat(inserted).isPositive();
      assertThat(map.containsKey(key(0))).as("the refused entry is gone").isFalse();
      final List<String> visited = new ArrayList<>();
      map.forEachEntry(e -> visited.add(new String(e.key().get(), StandardCharsets.UTF_8)));
      assertThat(new HashSet<>(visited)).as("a key visited twice").hasSize(visited.size() - 1);
    }
  }
}
