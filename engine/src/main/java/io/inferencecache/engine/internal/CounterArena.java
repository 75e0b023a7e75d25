package io.inferencecache.engine.internal;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import org.agrona.BufferUtil;
import org.agrona.IoUtil;
import org.agrona.collections.IntArrayList;
import org.agrona.concurrent.AtomicBuffer;
import org.agrona.concurrent.UnsafeBuffer;

/**
 * Off-heap LFU access counters at fixed addresses, one 8-byte word per storage entry.
 *
 * <pre>
 *   0                   16                                              64
 *   +-------------------+-----------------------------------------------+
 *   | generation (u16)  | access count (u48, saturating)                |
 *   +-------------------+-----------------------------------------------+
 * </pre>
 *
 * A storage entry records its slot and the slot's generation when the slot was handed to it.
 * Readers credit a hit with {@link #incrementIfGeneration} — a CAS loop on the word that gives up
 * if the generation moved on (the entry was removed and the slot possibly reused) — so credits are
 * lock-free, never lost under contention and never land on a different entry. Slots are allocated
 * and freed by the single index writer only. Freeing bumps the generation.
 *
 * <p>The arena is a heap-free direct buffer, or a memory-mapped file when the index is persisted,
 * so counts survive a restart (and a crash of the process).
 */
public final class CounterArena implements Closeable {
  /** Bytes per slot. */
  public static final int SLOT_BYTES = 8;

  private static final int GEN_SHIFT = 48;
  private static final long COUNT_MASK = (1L << GEN_SHIFT) - 1;

  private final AtomicBuffer buffer;
  private final ByteBuffer byteBuffer;
  private final int capacity;
  private final IntArrayList free = new IntArrayList();
  private int highWater;

  private CounterArena(final ByteBuffer byteBuffer, final int capacity) {
    this.byteBuffer = byteBuffer;
    this.buffer = new UnsafeBuffer(byteBuffer);
    this.buffer.verifyAlignment(); // CAS on the words needs 8-byte alignment
    this.capacity = capacity;
  }

  /** An in-memory arena of {@code capacity} slots. */
  public static CounterArena inMemory(final int capacity) {
    return new CounterArena(ByteBuffer.allocateDirect(capacity * SLOT_BYTES), capacity);
  }

  /**
   * Maps {@code file} as an arena of {@code capacity} slots, creating it (zeroed) if absent. An
   * existing file of another size is an error (the caller sets the index aside).
   */
  public static CounterArena mapped(final File file, final int capacity) throws IOException {
    final long length = (long) capacity * SLOT_BYTES;
    if (file.exists() && file.length() != length) {
      throw new IOException(
          "counter file " + file + " has " + file.length() + " bytes, expected " + length);
    }
    try (RandomAccessFile raf = new RandomAccessFile(file, "rw");
        FileChannel ch = raf.getChannel()) {
      if (raf.length() != length) {
        raf.setLength(length);
      }
      final MappedByteBuffer mapped = ch.map(FileChannel.MapMode.READ_WRITE, 0, length);
      return new CounterArena(mapped, capacity);
    }
  }

  /** Slots in the arena. */
  public int capacity() {
    return capacity;
  }

  /** Slots currently handed out. Writer only. */
  public int used() {
    return highWater - free.size();
  }

  /** Whether a slot can be allocated without eviction. Writer only. */
  public boolean hasFree() {
    return !free.isEmpty() || highWater < capacity;
  }

  /**
   * Hands out a slot with a zero count and returns {@code slot << 16 | generation}, or -1 when the
   * arena is full. Writer only.
   */
  public long allocate() {
    final int slot;
    if (!free.isEmpty()) {
      slot = free.removeAt(free.size() - 1);
    } else if (highWater < capacity) {
      slot = highWater++;
    } else {
      return -1;
    }
    final long offset = (long) slot * SLOT_BYTES;
    final long word = buffer.getLongVolatile((int) offset);
    final int gen = (int) ((word >>> GEN_SHIFT) + 1) & 0xFFFF;
    buffer.putLongRelease((int) offset, (long) gen << GEN_SHIFT);
    return ((long) slot << 16) | gen;
  }

  /** Returns a slot; the generation moves on so late credits to it are discarded. Writer only. */
  public void release(final int slot) {
    final int offset = slot * SLOT_BYTES;
    final long word = buffer.getLongVolatile(offset);
    final long gen = ((word >>> GEN_SHIFT) + 1) & 0xFFFF;
    buffer.putLongRelease(offset, gen << GEN_SHIFT);
    free.addInt(slot);
  }

  /**
   * Marks {@code slot} as in use with generation {@code gen} (used when rebuilding the free list
   * after reopening a persisted index). Returns false if the stored generation differs.
   */
  public boolean claimOnRecovery(final int slot, final int gen) {
    if (slot < 0 || slot >= capacity) {
      return false;
    }
    highWater = Math.max(highWater, slot + 1);
    final long word = buffer.getLongVolatile(slot * SLOT_BYTES);
    return ((word >>> GEN_SHIFT) & 0xFFFF) == gen;
  }

  /** Rebuilds the free list from a set of used slots after recovery. Writer only. */
  public void rebuildFreeList(final java.util.BitSet used) {
    free.clear();
    for (int s = 0; s < highWater; s++) {
      if (!used.get(s)) {
        free.addInt(s);
      }
    }
  }

  /**
   * Adds one access to {@code slot} if it still belongs to generation {@code gen}. Lock-free; safe
   * from any thread. Returns false when the entry the caller saw has since been removed.
   */
  public boolean incrementIfGeneration(final int slot, final int gen) {
    final int offset = slot * SLOT_BYTES;
    while (true) {
      final long word = buffer.getLongVolatile(offset);
      if (((word >>> GEN_SHIFT) & 0xFFFF) != gen) {
        return false;
      }
      if ((word & COUNT_MASK) == COUNT_MASK) {
        return true; // saturated
      }
      if (buffer.compareAndSetLong(offset, word, word + 1)) {
        return true;
      }
    }
  }

  /** The access count of {@code slot} (acquire read). */
  public long countAcquire(final int slot) {
    return buffer.getLongVolatile(slot * SLOT_BYTES) & COUNT_MASK;
  }

  /** Bytes of off-heap memory the arena occupies. */
  public long bytes() {
    return (long) capacity * SLOT_BYTES;
  }

  /** Flushes a mapped arena to its file (no-op in memory). */
  public void force() {
    if (byteBuffer instanceof MappedByteBuffer) {
      ((MappedByteBuffer) byteBuffer).force();
    }
  }

  @Override
  public void close() {
    if (byteBuffer instanceof MappedByteBuffer) {
      final MappedByteBuffer mapped = (MappedByteBuffer) byteBuffer;
      mapped.force();
      IoUtil.unmap(mapped);
    } else {
      BufferUtil.free(byteBuffer);
    }
  }
}
