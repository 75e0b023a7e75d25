package io.inferencecache.engine.internal;

/**
 * Layout of the prefix index's Chronicle Map entries, version 3 (see engine/docs/design.md,
 * "Layouts").
 *
 * <p>Key (unchanged from v1): {@code partition i32 (big-endian) ‖ hash bytes as sent}. The map's
 * keys are the first blocks of <b>runs</b> ({@link #RUN_TAG}); every other stored block is found
 * through the {@link BlockLocations} on the heap, which names its run and row. The hash length is
 * the key's length minus 4.
 *
 * <p>A run is a sequence of consecutive blocks of one ingested chain, stored once however many
 * replicas hold them: the rows are blocks, the columns the run's holders (sorted by replica id), a
 * cell says whether that replica holds that block and, if so, its LFU slot and which palette entry
 * has its attributes. The palette interns the distinct {@code (lastSeen, tier, token delta)}
 * triples of the run, so attributes are paid once per distinct fact, not per (block, holder). Two
 * flags narrow what is rarely needed: without {@link #FLAG_DELTAS} no palette entry has a token
 * delta (every holder reported the row's token count; 9-byte entries), without {@link
 * #FLAG_WIDE_HOLDERS} every replica id fits in a u16; a one-block, one-holder run ({@link
 * #FLAG_UNIT}) has no counts in its header (the cells start at byte 2):
 *
 * <pre>
 *   0     1       2      4      6         8
 *   +-----+-------+------+------+---------+
 *   | tag | flags | rows | cols | palette |          header, u16 counts
 *   +-----+-------+------+------+---------+-----------+
 *   | cells: rows × cols × 8 B, row-major             |  slot i32 | gen u16 | pal u16 (0 = absent)
 *   +-------------------------------------------------+
 *   | palette: palette × 9 B (13 B with FLAG_DELTAS)  |  lastSeen i64 | tier u8 [| token delta i32]
 *   +-------------------------------------------------+
 *   | tokens: rows × i32 (the block's cumulative tokens) |  a cell's tokens = row tokens + delta
 *   +-------------------------------------------------+
 *   | holders: cols × u16 (i32 with FLAG_WIDE_HOLDERS) |  replica ids, ascending
 *   +-------------------------------------------------+
 *   | hashes of rows 1..rows-1, hashLen bytes each    |  row 0's hash is the key
 *   +-------------------------------------------------+
 *   | with FLAG_SEGMENTS: segment index (cols + 1) × u16 | column c's segments are [index[c], index[c+1])
 *   | segments: row u16 | palette ref u16, each       |  from that row on, the column's cells name ref
 *   +-------------------------------------------------+
 * </pre>
 *
 * <p>The segments ({@link #FLAG_SEGMENTS}, written for runs of at least {@link #SEGMENTS_MIN_ROWS}
 * rows) describe each column's palette references as runs of equal values: a column whose replica
 * reported the whole run at once is one segment. A lookup follows a replica down the run by its
 * segments, without reading its cells (the cells still carry the LFU slots and are the truth the
 * segments are derived from whenever the run is encoded).
 *
 * <p>Layout 2 also stored a <b>locator</b> entry under every later block of a run ({@code tag ‖ row
 * u8 ‖ hash of the run's first block}, {@link #LOCATOR_TAG}); a file of layout 2 is migrated on
 * open by removing them ({@link RunRecovery}), as the directory now holds what they held.
 *
 * <p>Multi-byte fields are in native byte order (little endian on every supported platform), as in
 * v1; fields after the palette are not aligned (read with unaligned accesses).
 */
public final class RunLayout {
  /** First byte of a run entry. */
  public static final byte RUN_TAG = (byte) 0xA2;

  /** First byte of a layout-2 locator entry (removed when such a file is opened). */
  public static final byte LOCATOR_TAG = (byte) 0xB2;

  public static final int TAG_OFFSET = 0;
  public static final int FLAGS_OFFSET = 1;
  public static final int ROWS_OFFSET = 2;
  public static final int COLS_OFFSET = 4;
  public static final int PALETTE_OFFSET = 6;
  public static final int HEADER_BYTES = 8;

  /** Flag: palette entries carry a token delta (13 bytes instead of 9). */
  public static final int FLAG_DELTAS = 1;

  /** Flag: holder ids are i32 (some replica id does not fit in a u16). */
  public static final int FLAG_WIDE_HOLDERS = 2;

  /**
   * Flag: one block, one holder, one palette entry; the header is only tag and flags (the counts
   * are implied), so a one-block key of one holder fits in 5 chunks with its key.
   */
  public static final int FLAG_UNIT = 4;

  /**
   * Flag: the run ends with its columns' segments (see the class comment); never with {@link
   * #FLAG_UNIT}.
   */
  public static final int FLAG_SEGMENTS = 8;

  /** Fewest rows of a run encoded with {@link #FLAG_SEGMENTS}. */
  public static final int SEGMENTS_MIN_ROWS = 16;

  /** Bytes of one segment: its first row (u16) and palette reference (u16). */
  public static final int SEGMENT_BYTES = 4;

  public static final int SEGMENT_ROW_OFFSET = 0;
  public static final int SEGMENT_REF_OFFSET = 2;

  /** Header bytes of a {@link #FLAG_UNIT} run. */
  public static final int UNIT_HEADER_BYTES = 2;

  public static final int CELL_BYTES = 8;
  public static final int CELL_SLOT_OFFSET = 0;
  public static final int CELL_GEN_OFFSET = 4;
  public static final int CELL_PALETTE_OFFSET = 6;

  /** Bytes of a palette entry without a delta; {@link #PALETTE_DELTA_BYTES} more with one. */
  public static final int PALETTE_BYTES = 9;

  public static final int PALETTE_DELTA_BYTES = 4;
  public static final int PALETTE_SEEN_OFFSET = 0;
  public static final int PALETTE_TIER_OFFSET = 8;
  public static final int PALETTE_DELTA_OFFSET = 9;

  /** Largest replica id of a run stored without {@link #FLAG_WIDE_HOLDERS}. */
  public static final int NARROW_HOLDER_MAX = 0xFFFF;

  public static final int LOCATOR_ROW_OFFSET = 1;
  public static final int LOCATOR_HASH_OFFSET = 2;

  /**
   * Most blocks in one run (a directory entry's row is a u8); a longer chain continues in a next
   * run.
   */
  public static final int MAX_ROWS = 256;

  /** Most bytes of one run value (cells are capped so palette indexes fit in u16). */
  public static final int MAX_RUN_BYTES = 256 * 1024;

  private RunLayout() {}

  /** Bytes of one palette entry under {@code flags}. */
  public static int paletteStride(final int flags) {
    return (flags & FLAG_DELTAS) != 0 ? PALETTE_BYTES + PALETTE_DELTA_BYTES : PALETTE_BYTES;
  }

  /** Bytes of one holder id under {@code flags}. */
  public static int holderBytes(final int flags) {
    return (flags & FLAG_WIDE_HOLDERS) != 0 ? 4 : 2;
  }

  /**
   * Writes holder id {@code replica} at {@code at} of {@code into}, as an i32 under {@link
   * #FLAG_WIDE_HOLDERS} in {@code flags} and a u16 otherwise; returns the bytes written.
   */
  public static int putHolder(
      final org.agrona.MutableDirectBuffer into,
      final int at,
      final int replica,
      final int flags,
      final java.nio.ByteOrder order) {
    if ((flags & FLAG_WIDE_HOLDERS) != 0) {
      into.putInt(at, replica, order);
      return 4;
    }
    into.putShort(at, (short) replica, order);
    return 2;
  }

  /** Offset of the palette, for a run of {@code rows × cols}. */
  public static int paletteOffset(final int rows, final int cols, final int flags) {
    return cellsOffset(flags) + rows * cols * CELL_BYTES;
  }

  /** Offset of the cells. */
  public static int cellsOffset(final int flags) {
    return (flags & FLAG_UNIT) != 0 ? UNIT_HEADER_BYTES : HEADER_BYTES;
  }

  /** Offset of the row tokens. */
  public static int tokensOffset(
      final int rows, final int cols, final int palette, final int flags) {
    return paletteOffset(rows, cols, flags) + palette * paletteStride(flags);
  }

  /** Offset of the holder ids. */
  public static int holdersOffset(
      final int rows, final int cols, final int palette, final int flags) {
    return tokensOffset(rows, cols, palette, flags) + rows * 4;
  }

  /** Offset of the hashes of rows 1.. . */
  public static int hashesOffset(
      final int rows, final int cols, final int palette, final int flags) {
    return holdersOffset(rows, cols, palette, flags) + cols * holderBytes(flags);
  }

  /**
   * Value bytes of a run up to the end of its hashes (all of it without {@link #FLAG_SEGMENTS}).
   */
  public static int runBytes(
      final int rows, final int cols, final int palette, final int flags, final int hashLen) {
    return hashesOffset(rows, cols, palette, flags) + (rows - 1) * hashLen;
  }

  /** Offset of the segment index (with {@link #FLAG_SEGMENTS}): where the hashes end. */
  public static int segmentIndexOffset(
      final int rows, final int cols, final int palette, final int flags, final int hashLen) {
    return runBytes(rows, cols, palette, flags, hashLen);
  }

  /** Bytes of the segment index and {@code segments} segments of a run of {@code cols} columns. */
  public static int segmentsBytes(final int cols, final int segments) {
    return (cols + 1) * 2 + segments * SEGMENT_BYTES;
  }

  /**
   * Value bytes of the run whose header is in {@code v}: {@link #runBytes} plus its segments, if it
   * has them (their count is the index's last entry).
   */
  public static int storedBytes(
      final org.agrona.DirectBuffer v,
      final java.nio.ByteOrder order,
      final int rows,
      final int cols,
      final int palette,
      final int flags,
      final int hashLen) {
    final int end = runBytes(rows, cols, palette, flags, hashLen);
    if ((flags & FLAG_SEGMENTS) == 0) {
      return end;
    }
    if (v.capacity() < end + (cols + 1) * 2) {
      return -1;
    }
    return end + segmentsBytes(cols, v.getShort(end + cols * 2, order) & 0xFFFF);
  }
}
