package io.inferencecache.engine.internal;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Where every stored block key is (engine/docs/design.md §2, "Block locations"): a {@link
 * BlockDirectory} from each key's fingerprint to its place, and the run ids that place names. Not
 * persisted: rebuilt from the runs whenever a file is opened ({@link RunRecovery}).
 *
 * <pre>
 *   a run's first block   fingerprint → HEAD (0xFFFFFFFF)   the key is a run key of the map
 *   any later block       fingerprint → run id (u24) ‖ row (u8)
 *   run id → the run's first key (partition ‖ hash), in {@link Heads}
 * </pre>
 *
 * <p>Every key of the map is in the directory, so the writer learns that a key is new from the
 * directory alone, without a Chronicle probe. A run has an id only while it has more than one row.
 * Fingerprints collide: a candidate is trusted only once the run it names has the key's hash at
 * that row (readers: {@link RunCursor}; the writer: {@link RunEntries#readLocation}), and several
 * keys of one fingerprint may all be {@link #HEAD}, which is why the writer finds an entry by its
 * fingerprint and its exact value.
 *
 * <p>Readers read {@link Heads} without a lock: the writer fills a run id's slot before any
 * directory entry names it (the directory's release write orders the two), and a reader that reads
 * a slot being reused for another run reads a head whose row does not match, so it moves on. One
 * writer at a time; readers any thread.
 */
final class BlockLocations {
  /** The value of a run's first block. */
  static final int HEAD = -1;

  /** A row's key has no entry (the writer's bookkeeping in {@link RunImage#dirVal}). */
  static final int NO_ENTRY = 0;

  /** No run id: a run of one row, or one not stored yet. */
  static final int NO_RUN = 0;

  /** The largest run id (ids 1..this, so that no value is {@link #HEAD} or {@link #NO_ENTRY}). */
  static final int MAX_RUN_ID = (1 << 24) - 2;

  private static final int HASH8_KEY = HolderLayout.KEY_PARTITION_BYTES + Long.BYTES;
  private static final VarHandle LONG_AT =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** Run id → its first key: 8-byte hashes packed in two arrays, other lengths as arrays. */
  static final class Heads {
    final int[] partition;
    final long[] hash8;
    final byte[][] other;

    Heads(final int capacity) {
      partition = new int[capacity];
      hash8 = new long[capacity];
      other = new byte[capacity][];
    }

    Heads(final Heads from, final int capacity) {
      partition = Arrays.copyOf(from.partition, capacity);
      hash8 = Arrays.copyOf(from.hash8, capacity);
      other = Arrays.copyOf(from.other, capacity);
    }
  }

  private final BlockDirectory dir;
  private final int fingerprintMask =
      Integer.parseUnsignedInt(
          System.getProperty(RunStore.FINGERPRINT_MASK_PROP_NAME, "FFFFFFFF"), 16);
  private final BlockDirectory.Probe writerProbe = new BlockDirectory.Probe();
  private volatile Heads heads = new Heads(64);
  private int nextId = 1;
  private int[] free = new int[64];
  private int freeCount;
  private int liveRuns;
  private long otherKeyBytes; // first keys not of 8-byte hashes, held as arrays

  private final int maxRunId;

  BlockLocations(final long expectedKeys) {
    this(expectedKeys, MAX_RUN_ID);
  }

  /** A directory that gives out at most {@code maxRunId} run ids (tests of running out). */
  BlockLocations(final long expectedKeys, final int maxRunId) {
    dir = new BlockDirectory(expectedKeys);
    this.maxRunId = Math.min(maxRunId, MAX_RUN_ID);
  }

  static int value(final int runId, final int row) {
    return runId << 8 | row;
  }

  static int runOf(final int value) {
    return value >>> 8;
  }

  static int rowOf(final int value) {
    return value & 0xFF;
  }

  /**
   * The fingerprint of {@code key} in this directory: {@link BlockDirectory#fingerprint}, with the
   * bits {@link RunStore#FINGERPRINT_MASK_PROP_NAME} clears cleared (never 0).
   */
  int fingerprint(final KeyBuffer key) {
    final int fp = BlockDirectory.fingerprint(key.bytes, key.length) & fingerprintMask;
    return fp == 0 ? 1 : fp;
  }

  BlockDirectory table() {
    return dir;
  }

  /** Directory entries (one per stored block key). */
  int keys() {
    return dir.size();
  }

  /** Runs with an id (more than one row). */
  int runIds() {
    return liveRuns;
  }

  /**
   * Heap bytes of the directory's slots and the run-id table (array headers aside; a first key held
   * as an array counted by its bytes). Constant time: read by the metrics at every scrape.
   */
  long bytes() {
    return dir.bytes()
        + (long) heads.partition.length * (Integer.BYTES + Long.BYTES + Integer.BYTES)
        + otherKeyBytes
        + (long) free.length * Integer.BYTES;
  }

  /**
   * Bytes the stored keys take in the directory: one 8-byte slot each, and each run id's first key
   * (12 B for an 8-byte hash: partition and hash); {@link #bytes()} is what is allocated.
   */
  long usedBytes() {
    return (long) dir.size() * Long.BYTES
        + (long) liveRuns * (Integer.BYTES + Long.BYTES)
        + otherKeyBytes;
  }

  // ---------------------------------------------------------------------------------------------
  // Readers

  /**
   * Writes run {@code runId}'s first key into {@code into} if it is a key of {@code partition} and
   * of {@code keyLength} bytes; false otherwise (an id freed or reused meanwhile reads as another
   * run's key, which the caller's row check then rejects).
   */
  boolean headKey(final int runId, final int partition, final int keyLength, final KeyBuffer into) {
    final Heads h = heads;
    if (runId <= 0 || runId >= h.partition.length || h.partition[runId] != partition) {
      return false;
    }
    final byte[] b = into.bytes;
    if (keyLength == HASH8_KEY) {
      if (h.other[runId] != null) {
        return false; // a first key of another length
      }
      into.putPartition(partition);
      LONG_AT.set(b, HolderLayout.KEY_PARTITION_BYTES, h.hash8[runId]);
    } else {
      final byte[] k = h.other[runId];
      if (k == null || k.length != keyLength) {
        return false;
      }
      System.arraycopy(k, 0, b, 0, keyLength);
      // the partition checked above, not the copied one: the id may be reused meanwhile
      into.putPartition(partition);
    }
    into.length = keyLength;
    return true;
  }

  // ---------------------------------------------------------------------------------------------
  // Writer

  /**
   * A new run id naming {@code head} (a run's first key), or {@link #NO_RUN} when every id is
   * taken. Filled before it is returned, so entries written after it see it.
   */
  int register(final KeyBuffer head) {
    final int id;
    if (freeCount > 0) {
      id = free[--freeCount];
    } else if (nextId <= maxRunId) {
      id = nextId++;
    } else {
      return NO_RUN;
    }
    Heads h = heads;
    if (id >= h.partition.length) {
      h = new Heads(h, (int) Math.min((long) MAX_RUN_ID + 1, Math.max(64L, 2L * id)));
    }
    h.partition[id] = KeyBuffer.partitionOf(head.bytes);
    if (head.length == HASH8_KEY) {
      h.hash8[id] = (long) LONG_AT.get(head.bytes, HolderLayout.KEY_PARTITION_BYTES);
      h.other[id] = null;
    } else {
      h.other[id] = Arrays.copyOf(head.bytes, head.length);
      otherKeyBytes += head.length;
    }
    heads = h; // volatile: the filled slot is visible to any reader that sees this table
    liveRuns++;
    return id;
  }

  /** Gives {@code runId} back once no entry names it. */
  void release(final int runId) {
    if (runId == NO_RUN) {
      return;
    }
    final Heads h = heads;
    h.partition[runId] = -1;
    if (h.other[runId] != null) {
      otherKeyBytes -= h.other[runId].length;
      h.other[runId] = null;
    }
    if (freeCount == free.length) {
      free = Arrays.copyOf(free, freeCount * 2);
    }
    free[freeCount++] = runId;
    liveRuns--;
  }

  /**
   * Makes the entry of the key whose fingerprint is {@code fp} read {@code to} instead of {@code
   * from} ({@link #NO_ENTRY} on either side: inserted or removed). An entry is identified by its
   * fingerprint and its exact value; any one of several {@link #HEAD}s of one fingerprint is.
   */
  void change(final int fp, final int from, final int to) {
    if (from == to) {
      return;
    }
    if (from != NO_ENTRY) {
      final int slot = find(fp, from);
      if (slot >= 0) {
        if (to == NO_ENTRY) {
          dir.remove(slot);
        } else {
          dir.replace(slot, to);
        }
        return;
      }
    }
    if (to != NO_ENTRY) {
      dir.insert(fp, to);
    }
  }

  private int find(final int fp, final int value) {
    final BlockDirectory.Probe p = writerProbe.start(dir, fp);
    while (p.next()) {
      if (p.value() == value) {
        return p.slot();
      }
    }
    return -1;
  }

  /** Empties the directory and frees every run id. */
  void clear() {
    dir.clear();
    heads = new Heads(64);
    nextId = 1;
    freeCount = 0;
    liveRuns = 0;
    otherKeyBytes = 0;
  }
}
