package io.inferencecache.engine.internal;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.MapSegmentContext;

/**
 * Makes a reopened {@link RunStore} file consistent (engine/docs/design.md §6) and builds its
 * {@link BlockLocations}, which is not persisted: a block left in two runs by a crash in the middle
 * of a split stays only in the split-off run, a malformed entry and a locator entry (layout 2 kept
 * one per later block; the directory replaces them) are removed, holders the index does not trust
 * are dropped, and every run's rows are entered in the directory. Writer, at open only; O(entries),
 * allocates.
 */
final class RunRecovery {
  private final RunEntries entries;
  private final RunWriter writer;
  private final KeyBuffer headKey = new KeyBuffer();
  private final KeyBuffer wk = new KeyBuffer();

  RunRecovery(final RunEntries entries, final RunWriter writer) {
    this.entries = entries;
    this.writer = writer;
  }

  /** See {@link RunStore#recover}. */
  long recover(final RunStore.CellValidator validator) {
    writer.flush();
    entries.directory.clear();
    final List<byte[]> heads = new ArrayList<>();
    final List<byte[]> locators = new ArrayList<>();
    final int n = entries.map.segments();
    for (int s = 0; s < n; s++) {
      try (MapSegmentContext<byte[], byte[], ?> c = entries.map.segmentContext(s)) {
        c.forEachSegmentEntry(
            e -> {
              final Data<byte[]> k = e.key();
              final byte[] key = new byte[(int) k.size()];
              k.bytes().read(k.offset(), key, 0, key.length);
              if (key.length < HolderLayout.KEY_PARTITION_BYTES
                  || key.length > HolderLayout.KEY_PARTITION_BYTES + HolderLayout.MAX_HASH_BYTES) {
                e.doRemove();
                return;
              }
              if (KeyBuffer.partitionOf(key) == HolderLayout.META_PARTITION) {
                return;
              }
              final Data<byte[]> v = e.value();
              final byte tag = v.size() >= 1 ? v.bytes().readByte(v.offset()) : 0;
              if (tag == RunLayout.RUN_TAG && v.size() >= RunLayout.UNIT_HEADER_BYTES) {
                heads.add(key);
              } else if (tag == RunLayout.LOCATOR_TAG) {
                locators.add(key);
              } else {
                e.doRemove();
              }
            });
      }
    }
    for (byte[] key : locators) {
      wk.setRaw(key, key.length);
      entries.remove(wk);
    }
    final Set<ByteBuffer> runKeys = new HashSet<>();
    for (byte[] head : heads) {
      runKeys.add(ByteBuffer.wrap(head));
    }
    long dropped = 0;
    final Set<ByteBuffer> owned = new HashSet<>();
    final RunImage m = writer.image();
    for (byte[] head : heads) {
      headKey.setRaw(head, head.length);
      if (!writer.load(headKey)) {
        continue;
      }
      // The directory is empty: every row of the run gets its entry when it is stored again.
      m.runId = BlockLocations.NO_RUN;
      Arrays.fill(m.dirVal, 0, m.rows, BlockLocations.NO_ENTRY);
      // A split writes its tail (a suffix of the run) as a run of its own before truncating the
      // original: a crash in between leaves the suffix in both places, with the same content. It
      // stays in the split-off run (its first block is a run key).
      int keep = m.rows;
      for (int r = 1; r < m.rows; r++) {
        m.rowKey(r, wk);
        final ByteBuffer keyOf = ByteBuffer.wrap(Arrays.copyOf(wk.bytes, wk.length));
        if (owned.contains(keyOf) || runKeys.contains(keyOf)) {
          keep = r;
          break;
        }
        owned.add(keyOf);
      }
      for (int r = keep; r < m.rows; r++) {
        for (int col = 0; col < m.cols; col++) {
          m.clear(r, col);
        }
      }
      for (int r = 0; r < m.rows; r++) {
        for (int col = 0; col < m.cols; col++) {
          if (m.present(r, col)
              && !validator.valid(m.partition, m.holders[col], m.slot(r, col), m.gen(r, col))) {
            m.clear(r, col);
            dropped++;
          }
        }
      }
      writer.flush();
    }
    return dropped;
  }
}
