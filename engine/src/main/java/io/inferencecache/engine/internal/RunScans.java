package io.inferencecache.engine.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;

/**
 * Whole-map and segment-at-a-time passes over a {@link RunStore}'s runs: the visit of every stored
 * block (recounts, snapshots, eviction scans) and the removal of the holders a filter selects (TTL
 * sweeps, ALL_CLEARED). Each pass stores the writer's pending run first. Writer only.
 */
final class RunScans {
  private final RunEntries entries;
  private final RunWriter writer;
  private final RunImage scan = new RunImage();
  private final HolderBuffer scanHolders = new HolderBuffer(64);
  private final KeyBuffer scanKey = new KeyBuffer();
  private final KeyBuffer headKey = new KeyBuffer();
  private final KeyBuffer visitKey = new KeyBuffer();

  RunScans(final RunEntries entries, final RunWriter writer) {
    this.entries = entries;
    this.writer = writer;
  }

  /** See {@link RunStore#forEachBlock}. */
  void forEachBlock(final RunStore.BlockVisitor visitor) {
    writer.flush();
    final int n = entries.map.segments();
    for (int s = 0; s < n; s++) {
      try (MapSegmentContext<byte[], byte[], ?> c = entries.map.segmentContext(s)) {
        c.forEachSegmentEntry(
            e -> {
              if (decodeRun(e, scan)) {
                visitRows(scan, visitor);
              }
            });
      }
    }
  }

  /** Decodes entry {@code e} into {@code into} (its key in {@link #scanKey}) if it is a run. */
  private boolean decodeRun(final MapEntry<byte[], byte[]> e, final RunImage into) {
    final Data<byte[]> k = e.key();
    final int klen = (int) k.size();
    if (klen < HolderLayout.KEY_PARTITION_BYTES
        || klen > HolderLayout.KEY_PARTITION_BYTES + HolderLayout.MAX_HASH_BYTES) {
      return false;
    }
    k.bytes().read(k.offset(), scanKey.bytes, 0, klen);
    scanKey.length = klen;
    if (KeyBuffer.partitionOf(scanKey.bytes) == HolderLayout.META_PARTITION) {
      return false;
    }
    return entries.decode(e.value(), scanKey, into);
  }

  private void visitRows(final RunImage m, final RunStore.BlockVisitor visitor) {
    for (int r = 0; r < m.rows; r++) {
      if (m.rowCount[r] == 0) {
        continue;
      }
      scanHolders.ensureBytes(m.rowCount[r] * HolderLayout.RECORD_BYTES);
      int n = 0;
      for (int c = 0; c < m.cols; c++) {
        if (m.present(r, c)) {
          m.copyCell(scanHolders, n++, r, c);
        }
      }
      scanHolders.count = n;
      m.rowKey(r, visitKey);
      visitor.visit(visitKey.bytes, visitKey.length, scanHolders);
    }
  }

  /** See {@link RunStore#removeCells}. */
  void removeCells(
      final int segment, final RunStore.CellFilter filter, final RunStore.RemovalSink sink) {
    writer.flush();
    final List<byte[]> heads = new ArrayList<>();
    try (MapSegmentContext<byte[], byte[], ?> c = entries.map.segmentContext(segment)) {
      c.forEachSegmentEntry(
          e -> {
            if (decodeRun(e, scan) && anyDropped(scan, filter)) {
              heads.add(Arrays.copyOf(scanKey.bytes, scanKey.length));
            }
          });
    }
    final RunImage m = writer.image();
    for (byte[] head : heads) {
      headKey.setRaw(head, head.length);
      if (!writer.load(headKey)) {
        continue;
      }
      for (int r = 0; r < m.rows; r++) {
        if (m.rowCount[r] == 0) {
          continue;
        }
        for (int col = 0; col < m.cols; col++) {
          if (m.present(r, col) && filter.drop(m.partition, m.holders[col], m.seen(r, col))) {
            final int slotOf = m.slot(r, col);
            m.clear(r, col);
            m.rowKey(r, visitKey);
            sink.removed(
                visitKey.bytes, visitKey.length, m.holders[col], slotOf, m.rowCount[r] == 0);
          }
        }
      }
      writer.flush();
    }
  }

  private static boolean anyDropped(final RunImage m, final RunStore.CellFilter filter) {
    for (int r = 0; r < m.rows; r++) {
      for (int col = 0; col < m.cols; col++) {
        if (m.present(r, col) && filter.drop(m.partition, m.holders[col], m.seen(r, col))) {
          return true;
        }
      }
    }
    return false;
  }
}
