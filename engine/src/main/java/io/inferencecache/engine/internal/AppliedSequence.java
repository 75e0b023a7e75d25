package io.inferencecache.engine.internal;

import java.nio.ByteBuffer;

/**
 * The last replication-stream sequence applied to the index, kept as one metadata record of the
 * main store so that it is written in the same writer critical section as the data it covers: a
 * process killed at any point reopens with a sequence no later than its data, and replaying from
 * there is idempotent (upserts, evictions and clears of what is already applied change nothing).
 *
 * <pre>
 *   key   (9 bytes): FF FF FF FF 'Q' 00 00 00 00   partition -1 (metadata), kind 'Q', id 0
 *   value (8 bytes): sequence, u64 big-endian
 * </pre>
 *
 * Writes: the index's writer only. {@link #get()} from any thread (volatile read).
 */
public final class AppliedSequence {
  static final byte[] KEY = {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, 'Q', 0, 0, 0, 0};

  private volatile long value;

  /** Reads the record of a reopened store (0 when it has none). */
  public void load(final RunStore store) {
    final byte[] raw = store.getRaw(KEY);
    value = raw != null && raw.length == Long.BYTES ? ByteBuffer.wrap(raw).getLong() : 0L;
  }

  /**
   * Records {@code sequence} as applied; stores it in {@code store} when not null (a persisted
   * index). Writer only, inside the critical section that applied the data.
   */
  public void record(final RunStore store, final long sequence) {
    value = sequence;
    if (store != null) {
      store.putRaw(KEY, ByteBuffer.allocate(Long.BYTES).putLong(sequence).array());
    }
  }

  /** The last applied sequence, 0 when none. */
  public long get() {
    return value;
  }
}
