package io.inferencecache.engine.internal;

import static io.inferencecache.engine.internal.RunLayout.CELL_BYTES;
import static io.inferencecache.engine.internal.RunLayout.CELL_PALETTE_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_DELTA_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_SEEN_OFFSET;
import static io.inferencecache.engine.internal.RunLayout.PALETTE_TIER_OFFSET;

import java.nio.ByteOrder;
import java.util.List;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.hash.Data;
import net.openhft.chronicle.map.ChronicleMap;
import net.openhft.chronicle.map.ExternalMapQueryContext;
import net.openhft.chronicle.map.MapEntry;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * The writer's per-run refresh of a re-reported chain (engine/docs/design.md §3, "Refresh in
 * place"): when a replica reports again blocks that follow one another in a stored run and its
 * cells in those rows all name one palette entry that no other cell names, the refresh is that
 * entry's {@code lastSeen} and tier rewritten, once for the run, in the run's entry (same size, so
 * Chronicle replaces it in place under the segment's write lock). The rows' hashes are compared
 * sequentially with the chain's; nothing is decoded into a {@link RunImage} or re-encoded.
 *
 * <p>The result is byte for byte what the general path ({@link RunWriter#upsert} per block, then
 * one store) writes: that path interns a new palette entry for the same cells and drops the old
 * one, and the encoder orders palette entries by their first cell, which is the old entry's place.
 * Whatever this class cannot do exactly that way (a partial refresh of an entry, another token
 * count, a triple another entry already has, a missing cell) it declines, and the caller takes the
 * general path. Writer thread only.
 */
final class RunRefresh {
  private static final ByteOrder ORDER = ByteOrder.nativeOrder();

  private final ChronicleMap<byte[], byte[]> map;
  private final UnsafeBuffer view = new UnsafeBuffer(new byte[0]);
  private final RunHeader header = new RunHeader();
  private byte[] buf = new byte[4096];
  private BytesStore<?, byte[]> bufStore = BytesStore.wrap(buf);

  // The store of the array the image took from decodeDeclined() last, which it gives back next.
  private BytesStore<?, byte[]> spareStore;

  // The last refresh, if it ended on its run's last row with blocks of the chain still to come:
  // the run's bytes before it and what it changed, so the writer can rebuild the image the
  // general path would have open there (a new block is appended to that run).
  private boolean ended;
  private final KeyBuffer endedHead = new KeyBuffer();
  private byte[] endedBytes = new byte[4096];
  private int endedLength;
  private int endedFirstRow;
  private int endedFirstBlock;

  RunRefresh(final ChronicleMap<byte[], byte[]> map) {
    this.map = map;
  }

  /** Whether the last refresh ended on its run's last row (see {@link #reopenEnded}). */
  boolean hasEnded() {
    return ended;
  }

  /**
   * Whether the last {@link #refresh} found a run stored under its key (whatever it returned):
   * false when the key has no entry, or one that is not a run of the size it has.
   */
  boolean foundRun() {
    return copied || patched;
  }

  /** Forgets the last refresh (any other change of the writer follows it). */
  void forget() {
    ended = false;
  }

  /**
   * Refreshes holder {@code replica} of blocks {@code hashes[from..]} in the run stored under
   * {@code head}, starting at its row {@code row}, as far as the rows follow the chain; {@code
   * tokens[j]} is block j's cumulative token count. Returns how many blocks it refreshed; 0 when
   * the general path has to do it (nothing changed then).
   */
  int refresh(
      final KeyBuffer head,
      final int row,
      final List<byte[]> hashes,
      final int from,
      final int[] tokens,
      final int replica,
      final long seen,
      final int tier) {
    ended = false;
    copied = false;
    patched = false;
    try (ExternalMapQueryContext<byte[], byte[], ?> c =
        map.queryContext(head.store, 0, head.length)) {
      c.updateLock().lock();
      final MapEntry<byte[], byte[]> e = c.entry();
      if (e == null) {
        return 0;
      }
      final Data<byte[]> v = e.value();
      final int size = (int) v.size();
      if (size < RunLayout.UNIT_HEADER_BYTES) {
        return 0;
      }
      if (buf.length < size) {
        buf = new byte[Math.max(size, buf.length * 2)];
        bufStore = BytesStore.wrap(buf);
      }
      v.bytes().read(v.offset(), buf, 0, size);
      copiedSize = size;
      final int n = refreshed(head, size, row, hashes, from, tokens, replica, seen, tier);
      if (n > 0 && patched) {
        e.doReplaceValue(c.wrapValueBytesAsData(bufStore, 0, size));
      }
      return n;
    }
  }

  // Whether refreshed() changed the buffer (false: the entry already says what was reported).
  private boolean patched;

  // Whether buf holds the whole run the last refresh read (copiedSize bytes, its header checked),
  // unchanged: what a declined refresh leaves for decodeDeclined().
  private boolean copied;
  private int copiedSize;

  /**
   * After a {@link #refresh} of the run under {@code head} that declined (returned 0), decodes the
   * run it read into {@code m} exactly as {@link RunEntries#load} would (run id not bound), so the
   * general path that follows (a holder added, most often) changes it without reading it again;
   * false if that refresh read no run. Valid until the writer's next change.
   */
  boolean decodeDeclined(final KeyBuffer head, final RunImage m) {
    if (!copied || patched) {
      return false;
    }
    copied = false;
    final byte[] next = m.decodeForAdd(head, buf, copiedSize);
    if (next != buf) {
      // the image kept the bytes read; this reads the next run into the array it held
      final BytesStore<?, byte[]> nextStore =
          spareStore != null && spareStore.underlyingObject() == next
              ? spareStore
              : BytesStore.wrap(next);
      spareStore = bufStore;
      buf = next;
      bufStore = nextStore;
    }
    return true;
  }

  /** Checks and patches {@link #buf} (the run's {@code size} bytes); see {@link #refresh}. */
  private int refreshed(
      final KeyBuffer head,
      final int size,
      final int row,
      final List<byte[]> hashes,
      final int from,
      final int[] tokens,
      final int replica,
      final long seen,
      final int tier) {
    patched = false;
    view.wrap(buf, 0, size);
    final int hashLen = head.length - HolderLayout.KEY_PARTITION_BYTES;
    if (!header.read(view, size, hashLen)) {
      return 0;
    }
    copied = true;
    if (row >= header.rows) {
      return 0;
    }
    final int flags = header.flags;
    final boolean unit = (flags & RunLayout.FLAG_UNIT) != 0;
    final int rows = header.rows;
    final int cols = header.cols;
    final int palette = header.palette;
    final int col =
        column(RunLayout.holdersOffset(rows, cols, palette, flags), cols, flags, replica);
    if (col < 0) {
      return 0;
    }
    final int cells = RunLayout.cellsOffset(flags);
    final int palOff = RunLayout.paletteOffset(rows, cols, flags);
    final int stride = RunLayout.paletteStride(flags);
    final int tokOff = RunLayout.tokensOffset(rows, cols, palette, flags);
    final int hashOff = RunLayout.hashesOffset(rows, cols, palette, flags);
    final int entry = cellPalette(cells, cols, row, col);
    if (entry < 0) {
      return 0;
    }
    final boolean deltas = (flags & RunLayout.FLAG_DELTAS) != 0;
    final int at = palOff + entry * stride;
    final int delta = deltas ? view.getInt(at + PALETTE_DELTA_OFFSET, ORDER) : 0;
    // The rows that follow the chain and whose cell of the replica names the entry, with the
    // token count the entry gives them.
    int n = 0;
    for (int r = row, j = from; r < rows && j < hashes.size(); r++, j++) {
      final byte[] h = hashes.get(j);
      if (h == null
          || h.length != hashLen
          || !rowHashEquals(head, hashOff, r, h, hashLen)
          || cellPalette(cells, cols, r, col) != entry
          || tokens[j] - view.getInt(tokOff + 4 * r, ORDER) != delta) {
        break;
      }
      n++;
    }
    if (n == 0) {
      return 0;
    }
    final int refs =
        (flags & RunLayout.FLAG_SEGMENTS) != 0
            ? referencesBySegments(
                RunLayout.segmentIndexOffset(rows, cols, palette, flags, hashLen),
                cols,
                rows,
                entry)
            : references(cells, rows * cols, entry);
    if (refs != n) {
      return 0;
    }
    for (int q = 0; q < palette; q++) {
      final int qa = palOff + q * stride;
      if (q != entry
          && view.getLong(qa + PALETTE_SEEN_OFFSET, ORDER) == seen
          && (view.getByte(qa + PALETTE_TIER_OFFSET) & 0xFF) == tier
          && (deltas ? view.getInt(qa + PALETTE_DELTA_OFFSET, ORDER) : 0) == delta) {
        return 0; // the general path would share that entry
      }
    }
    if (row + n == rows && from + n < hashes.size()) {
      keepEnded(head, size, row, from);
    }
    if (view.getLong(at + PALETTE_SEEN_OFFSET, ORDER) != seen
        || (view.getByte(at + PALETTE_TIER_OFFSET) & 0xFF) != tier) {
      view.putLong(at + PALETTE_SEEN_OFFSET, seen, ORDER);
      view.putByte(at + PALETTE_TIER_OFFSET, (byte) tier);
      patched = true;
    }
    return n;
  }

  /** The column of {@code replica} among the run's ascending holder ids, or -1. */
  private int column(final int offset, final int cols, final int flags, final int replica) {
    final boolean wide = (flags & RunLayout.FLAG_WIDE_HOLDERS) != 0;
    int lo = 0;
    int hi = cols - 1;
    while (lo <= hi) {
      final int mid = (lo + hi) >>> 1;
      final int h =
          wide
              ? view.getInt(offset + 4 * mid, ORDER)
              : view.getShort(offset + 2 * mid, ORDER) & 0xFFFF;
      if (h < replica) {
        lo = mid + 1;
      } else if (h > replica) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -1;
  }

  /** Palette index of cell {@code (row, col)}, or -1 if the cell is absent. */
  private int cellPalette(final int cells, final int cols, final int row, final int col) {
    return (view.getShort(cells + (row * cols + col) * CELL_BYTES + CELL_PALETTE_OFFSET, ORDER)
            & 0xFFFF)
        - 1;
  }

  /** How many of the run's {@code count} cells name palette entry {@code entry}. */
  private int references(final int cells, final int count, final int entry) {
    final short stored = (short) (entry + 1);
    int refs = 0;
    for (int i = 0, at = cells + CELL_PALETTE_OFFSET; i < count; i++, at += CELL_BYTES) {
      if (view.getShort(at, ORDER) == stored) {
        refs++;
      }
    }
    return refs;
  }

  /**
   * As {@link #references}, counted from the run's column segments (the stored run's size was
   * checked against them): each segment naming {@code entry} covers its rows up to the column's
   * next segment, or to the run's end. A 64 × 16 run has 16 segments against 1,024 cells.
   */
  private int referencesBySegments(
      final int index, final int cols, final int rows, final int entry) {
    final int stored = entry + 1;
    final int list = index + (cols + 1) * 2;
    final int count = view.getShort(index + cols * 2, ORDER) & 0xFFFF; // sized into the run
    int refs = 0;
    for (int c = 0; c < cols; c++) {
      final int end = Math.min(count, view.getShort(index + (c + 1) * 2, ORDER) & 0xFFFF);
      for (int s = view.getShort(index + c * 2, ORDER) & 0xFFFF; s < end; s++) {
        final int at = list + s * RunLayout.SEGMENT_BYTES;
        if ((view.getShort(at + RunLayout.SEGMENT_REF_OFFSET, ORDER) & 0xFFFF) == stored) {
          final int to =
              s + 1 < end
                  ? view.getShort(
                          at + RunLayout.SEGMENT_BYTES + RunLayout.SEGMENT_ROW_OFFSET, ORDER)
                      & 0xFFFF
                  : rows;
          refs += to - (view.getShort(at + RunLayout.SEGMENT_ROW_OFFSET, ORDER) & 0xFFFF);
        }
      }
    }
    return refs;
  }

  private boolean rowHashEquals(
      final KeyBuffer head, final int hashOff, final int r, final byte[] h, final int hashLen) {
    if (r == 0) {
      return java.util.Arrays.equals(
          head.bytes,
          HolderLayout.KEY_PARTITION_BYTES,
          HolderLayout.KEY_PARTITION_BYTES + hashLen,
          h,
          0,
          hashLen);
    }
    final int at = hashOff + (r - 1) * hashLen;
    return java.util.Arrays.equals(buf, at, at + hashLen, h, 0, hashLen);
  }

  private void keepEnded(final KeyBuffer head, final int size, final int row, final int from) {
    if (endedBytes.length < size) {
      endedBytes = new byte[Math.max(size, endedBytes.length * 2)];
    }
    System.arraycopy(buf, 0, endedBytes, 0, size);
    endedLength = size;
    endedHead.setRaw(head.bytes, head.length);
    endedFirstRow = row;
    endedFirstBlock = from;
    ended = true;
  }

  /**
   * If the last refresh ended on its run's last row, rebuilds into {@code m} the image the general
   * path would hold there: the run as it was before the refresh, then the refresh applied to the
   * image (so a refused store of what follows reverts it exactly as it would have). Returns false
   * if there is no such refresh.
   */
  boolean reopenEnded(
      final RunImage m, final int[] tokens, final int replica, final long seen, final int tier) {
    if (!ended) {
      return false;
    }
    ended = false;
    m.decode(endedHead, endedBytes, endedLength);
    final int col = m.column(replica);
    for (int r = endedFirstRow, j = endedFirstBlock; r < m.rows; r++, j++) {
      m.setPal(r, col, m.intern(seen, tokens[j] - m.tokens[r], tier));
      m.lastRow = r;
    }
    return true;
  }
}
