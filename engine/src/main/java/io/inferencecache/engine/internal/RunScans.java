package io.inferencecache.engine.internal;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntPredicate;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.MapEntry;
import net.openhft.chronicle.map.MapSegmentContext;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Whole-map and segment-at-a-time passes over a {@link RunStore}'s runs: the visit of every stored
 * block (recounts, snapshots, eviction scans) and the removal of the holders a filter selects (TTL
 * sweeps, ALL_CLEARED), and the LFU counters given to holders stored without one. Each pass stores
 * the writer's pending run first. Writer only.
 */
final class RunScans {
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();

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
    forEachEntry(
        (c, e) -> {
          if (decodeRun(e, scan)) {
            visitRows(scan, visitor);
          }
        });
  }

  /** An entry of a whole-map pass, with the context of its segment (to change it in place). */
  private interface EntryVisitor {
    void visit(MapSegmentContext<byte[], byte[], ?> segment, MapEntry<byte[], byte[]> entry);
  }

  /** Stores the writer's pending run, then visits every entry, segment by segment. */
  private void forEachEntry(final EntryVisitor visitor) {
    writer.flush();
    final int n = entries.map.segments();
    for (int s = 0; s < n; s++) {
      try (MapSegmentContext<byte[], byte[], ?> c = entries.map.segmentContext(s)) {
        c.forEachSegmentEntry(e -> visitor.visit(c, e));
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

  /** See {@link RunStore#assignCounters}. */
  long assignCounters(final IntPredicate partition, final CounterArena arena) {
    final long[] assigned = new long[1];
    forEachEntry(
        (c, e) -> {
          final Data<byte[]> k = e.key();
          final int klen = (int) k.size();
          if (klen < HolderLayout.KEY_PARTITION_BYTES) {
            return;
          }
          final long at = k.offset();
          final int pid = // the key's first 4 bytes, big-endian
              (k.bytes().readUnsignedByte(at) << 24)
                  | (k.bytes().readUnsignedByte(at + 1) << 16)
                  | (k.bytes().readUnsignedByte(at + 2) << 8)
                  | k.bytes().readUnsignedByte(at + 3);
          if (pid == HolderLayout.META_PARTITION || !partition.test(pid)) {
            return;
          }
          final Data<byte[]> v = e.value();
          final int size = (int) v.size();
          if (patchBuf.length < size) {
            patchBuf = new byte[Math.max(size, patchBuf.length * 2)];
            patchStore = BytesStore.wrap(patchBuf);
          }
          v.bytes().read(v.offset(), patchBuf, 0, size);
          final int given = giveCounters(size, klen, arena);
          if (given > 0) {
            e.doReplaceValue(c.wrapValueBytesAsData(patchStore, 0, size));
            assigned[0] += given;
          }
        });
    return assigned[0];
  }

  private final UnsafeBuffer patchView = new UnsafeBuffer(new byte[0]);
  private final RunHeader patchHeader = new RunHeader();
  private byte[] patchBuf = new byte[4096];
  private BytesStore<?, byte[]> patchStore = BytesStore.wrap(patchBuf);

  /**
   * Gives a counter to every held cell without one in the run in {@link #patchBuf} (its {@code
   * size} bytes, key length {@code keyLength}), in place: the run keeps its size. A value that is
   * not a well-formed run is left alone. Returns how many it gave; throws {@link
   * IllegalStateException} (nothing taken) when the counters cannot grow.
   */
  private int giveCounters(final int size, final int keyLength, final CounterArena arena) {
    patchView.wrap(patchBuf, 0, size);
    if (!patchHeader.read(patchView, size, keyLength - HolderLayout.KEY_PARTITION_BYTES)) {
      return 0;
    }
    final int at = RunLayout.cellsOffset(patchHeader.flags);
    final int cells = patchHeader.rows * patchHeader.cols;
    int missing = 0;
    for (int i = 0; i < cells; i++) {
      missing += lacksCounter(at + i * RunLayout.CELL_BYTES) ? 1 : 0;
    }
    if (missing == 0) {
      return 0;
    }
    if (!arena.counterRoom(missing)) {
      throw new IllegalStateException("no room for " + missing + " more LFU counters");
    }
    for (int i = 0; i < cells; i++) {
      final int cell = at + i * RunLayout.CELL_BYTES;
      if (lacksCounter(cell)) {
        final long sg = arena.assign();
        patchView.putInt(cell + RunLayout.CELL_SLOT_OFFSET, (int) (sg >>> 16), ORDER);
        patchView.putShort(cell + RunLayout.CELL_GEN_OFFSET, (short) sg, ORDER);
      }
    }
    return missing;
  }

  /** Whether the cell at {@code cell} of {@link #patchView} is held and has no counter. */
  private boolean lacksCounter(final int cell) {
    return (patchView.getShort(cell + RunLayout.CELL_PALETTE_OFFSET, ORDER) & 0xFFFF) != 0
        && patchView.getInt(cell + RunLayout.CELL_SLOT_OFFSET, ORDER) == CounterArena.NO_COUNTER;
  }
}
