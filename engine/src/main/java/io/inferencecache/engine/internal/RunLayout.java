package io.inferencecache.engine.internal;

/**
 * Layout of the v2 prefix index's Chronicle Map entries (see engine/docs/design.md, "Layouts").
 *
 * <p>Key (unchanged from v1): {@code partition i32 (big-endian) ‖ hash bytes as sent}. Every stored
 * block hash is exactly one key. The key's value is either a <b>run</b> (the key is the first block
 * of a run) or a <b>locator</b> (the key is a later block of some run).
 *
 * <p>A run is a sequence of consecutive blocks of one ingested chain, stored once however many
 * replicas hold them: the rows are blocks, the columns the run's holders (sorted by replica id), a
 * cell says whether that replica holds that block and, if so, its LFU slot and which palette entry
 * has its attributes. The palette interns the distinct {@code (lastSeen, tier, token delta)}
 * triples of the run, so attributes are paid once per distinct fact, not per (block, holder):
 *
 * <pre>
 *   0        4      6      8         10        12        16
 *   +--------+------+------+---------+---------+---------+
 *   | tag    | rows | cols | palette | hashLen | 0       |  header, u16 counts
 *   +--------+------+------+---------+---------+---------+
 *   | cells: rows × cols × 8 B, row-major                 |  slot i32 | gen u16 | pal u16 (0 = absent)
 *   +-----------------------------------------------------+
 *   | palette: palette × 16 B                             |  lastSeen i64 | token delta i32 | tier u8 | 0
 *   +-----------------------------------------------------+
 *   | tokens: rows × i32 (the block's cumulative tokens)  |  a cell's tokens = row tokens + delta
 *   +-----------------------------------------------------+
 *   | holders: cols × i32 replica ids, ascending          |
 *   +-----------------------------------------------------+
 *   | hashes of rows 1..rows-1, hashLen bytes each        |  row 0's hash is the key
 *   +-----------------------------------------------------+
 * </pre>
 *
 * <p>A locator ({@code tag ‖ row i32 ‖ hash of the run's first block}) sends a lookup that starts
 * in the middle of a run, or an event naming a block hash, to the run's entry:
 *
 * <pre>
 *   0        4        8
 *   +--------+--------+------------------------+
 *   | tag    | row    | first block's hash ... |
 *   +--------+--------+------------------------+
 * </pre>
 *
 * Byte order is native (little endian on every supported platform), as in v1.
 */
public final class RunLayout {
  /** Tag word of a run entry ("RUN2"). */
  public static final int RUN_TAG = 0x324E5552;

  /** Tag word of a locator entry ("LOC2"). */
  public static final int LOCATOR_TAG = 0x32434F4C;

  public static final int TAG_OFFSET = 0;
  public static final int ROWS_OFFSET = 4;
  public static final int COLS_OFFSET = 6;
  public static final int PALETTE_OFFSET = 8;
  public static final int HASH_LENGTH_OFFSET = 10;
  public static final int HEADER_BYTES = 16;

  public static final int CELL_BYTES = 8;
  public static final int CELL_SLOT_OFFSET = 0;
  public static final int CELL_GEN_OFFSET = 4;
  public static final int CELL_PALETTE_OFFSET = 6;

  public static final int PALETTE_BYTES = 16;
  public static final int PALETTE_SEEN_OFFSET = 0;
  public static final int PALETTE_DELTA_OFFSET = 8;
  public static final int PALETTE_TIER_OFFSET = 12;

  public static final int LOCATOR_ROW_OFFSET = 4;
  public static final int LOCATOR_HASH_OFFSET = 8;

  /** Most blocks in one run; a longer chain continues in a next run. */
  public static final int MAX_ROWS = 256;

  /** Most bytes of one run value (cells are capped so palette indexes fit in u16). */
  public static final int MAX_RUN_BYTES = 256 * 1024;

  private RunLayout() {}

  /** Offset of the palette, for a run of {@code rows × cols}. */
  public static int paletteOffset(final int rows, final int cols) {
    return HEADER_BYTES + rows * cols * CELL_BYTES;
  }

  /** Offset of the row tokens. */
  public static int tokensOffset(final int rows, final int cols, final int palette) {
    return paletteOffset(rows, cols) + palette * PALETTE_BYTES;
  }

  /** Offset of the holder ids. */
  public static int holdersOffset(final int rows, final int cols, final int palette) {
    return tokensOffset(rows, cols, palette) + rows * 4;
  }

  /** Offset of the hashes of rows 1.. . */
  public static int hashesOffset(final int rows, final int cols, final int palette) {
    return holdersOffset(rows, cols, palette) + cols * 4;
  }

  /** Total value bytes of a run. */
  public static int runBytes(final int rows, final int cols, final int palette, final int hashLen) {
    return hashesOffset(rows, cols, palette) + (rows - 1) * hashLen;
  }
}
