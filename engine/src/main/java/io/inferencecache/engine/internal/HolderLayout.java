package io.inferencecache.engine.internal;

/**
 * Layout of the prefix index's keys in the Chronicle Map, and of the decoded holder record the
 * writer works on (see engine/docs/design.md §2; the stored value, a run, is {@link RunLayout}'s).
 *
 * <p>Key: the partition id (tenant, model, hash scheme, adapter interned together) followed by the
 * opaque hash bytes exactly as the engine sent them:
 *
 * <pre>
 *   0               4                                   4 + hashLength
 *   +---------------+-----------------------------------+
 *   | partition i32 | hash bytes (8 for vllm, 32 sha256)|
 *   +---------------+-----------------------------------+
 * </pre>
 *
 * <p>Holder record: one key's holders as the writer's {@link HolderBuffer} holds them once decoded
 * from a run (never stored in this form since layout 3), one 24-byte record per replica, sorted by
 * replica id:
 *
 * <pre>
 *   0                               8               12              16              20      22  23
 *   +-------------------------------+---------------+---------------+---------------+-------+---+---+
 *   | lastSeen (epoch ns, i64)      | tokens (i32)  | replica (i32) | LFU slot (i32)| gen16 |tier| 0 |
 *   +-------------------------------+---------------+---------------+---------------+-------+---+---+
 * </pre>
 *
 * The LFU access count itself lives in the {@link CounterArena} slot, so it can be credited
 * lock-free at a fixed address whatever happens to the record. Byte order is native (little endian
 * on every supported platform); the file is not portable across byte orders.
 */
public final class HolderLayout {
  /** Bytes of the partition id at the start of a key. */
  public static final int KEY_PARTITION_BYTES = 4;

  /** Longest hash accepted, in bytes; longer hashes are rejected at ingest. */
  public static final int MAX_HASH_BYTES = 256;

  /** Partition id reserved for the index's own metadata records (dictionary, header). */
  public static final int META_PARTITION = -1;

  /** Bytes per holder record. */
  public static final int RECORD_BYTES = 24;

  public static final int LAST_SEEN_OFFSET = 0;
  public static final int TOKENS_OFFSET = 8;
  public static final int REPLICA_OFFSET = 12;
  public static final int SLOT_OFFSET = 16;
  public static final int GEN_OFFSET = 20;
  public static final int TIER_OFFSET = 22;

  /** Stored tier code for a tier the index does not know, or a negative (cold) tier. */
  public static final int TIER_UNKNOWN_COLD = 255;

  private HolderLayout() {}

  /**
   * Maps a wire tier to its stored code: 0 (unspecified) → 1 (T1); 1..3 kept; other positive values
   * kept up to 254 (they sort colder than T3 and report as unspecified); negative values → {@link
   * #TIER_UNKNOWN_COLD}.
   */
  public static int tierCode(final int wireTier) {
    if (wireTier == 0) {
      return 1;
    }
    if (wireTier < 0) {
      return TIER_UNKNOWN_COLD;
    }
    return Math.min(wireTier, 254);
  }

  /** Maps a stored or run tier back to the wire: 1..3 as is, anything else unspecified (0). */
  public static int wireTier(final int code) {
    return code >= 1 && code <= 3 ? code : 0;
  }

  /** The colder of two run tiers; unspecified (0) poisons the run. */
  public static int worstTier(final int a, final int b) {
    if (a == 0 || b == 0) {
      return 0;
    }
    return Math.max(a, b);
  }
}
